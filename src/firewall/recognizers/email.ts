// E-mail addresses. Anchored on '@' (text without one costs a single indexOf), then the local part
// is walked back and the domain matched forward with a sticky regex, so no regex ever scans the
// whole text from every position. Validation: RFC 5321 length limits, no leading/trailing/double
// dots in the local part, domain labels of letters/digits/hyphens not starting or ending with a
// hyphen, and an alphabetic top-level domain of at least two letters.
import type { Detection, Language, Recognizer } from '../types.js';

const LOCAL_CHAR = /[\p{L}\p{N}._%+'-]/u;
// Labels then a TLD; every label ends with a literal dot, so there is no ambiguous backtracking.
const DOMAIN = /(?:[\p{L}\p{N}](?:[\p{L}\p{N}-]{0,61}[\p{L}\p{N}])?\.){1,8}(\p{L}{2,24})(?![\p{L}\p{N}-])/uy;

// An organisation's mailboxes that no one reads or that a machine answers: a commit trailer's
// "Co-Authored-By: … <noreply@anthropic.com>", a bounce from "MAILER-DAEMON@…", "notifications@github.com".
// They name no one (before, masked as "[EMAIL_1]" in every coding agent's system prompt). Mailboxes
// a person answers ("info@", "support@", "sales@") are still masked: they may be one person's.
const ROLE_MAILBOXES = new Set(
  'noreply no-reply no_reply donotreply do-not-reply do_not_reply mailer-daemon mailerdaemon postmaster notifications'.split(' '),
);

/** Whether the address is an organisation's no-reply or system mailbox (see ROLE_MAILBOXES). */
export function isRoleMailbox(address: string): boolean {
  const at = address.lastIndexOf('@');
  return at > 0 && at <= 16 && ROLE_MAILBOXES.has(address.slice(0, at).toLowerCase());
}

export function findEmails(text: string): Detection[] {
  const out: Detection[] = [];
  let at = text.indexOf('@');
  let lastEnd = 0;
  while (at !== -1) {
    let s = at;
    while (s > lastEnd && at - s < 64 && LOCAL_CHAR.test(text[s - 1]!)) s--;
    // Quote characters are allowed inside a local part, not at its edges.
    while (s < at && (text[s] === '.' || text[s] === "'")) s++;
    const local = text.slice(s, at);
    DOMAIN.lastIndex = at + 1;
    const m = DOMAIN.exec(text);
    if (local.length > 0 && m && !local.endsWith('.') && !local.includes('..') && m[0].length <= 253) {
      const end = at + 1 + m[0].length;
      const value = text.slice(s, end);
      if (!isRoleMailbox(value)) out.push({ type: 'EMAIL', start: s, end, text: value, checksum: false, normalized: value.toLowerCase() });
      lastEnd = end;
      at = text.indexOf('@', end);
    } else {
      at = text.indexOf('@', at + 1);
    }
  }
  return out;
}

export const emailRecognizer: Recognizer = {
  type: 'EMAIL',
  needsDigit: false,
  detect(text: string, _language: Language): Detection[] {
    return findEmails(text);
  },
};
