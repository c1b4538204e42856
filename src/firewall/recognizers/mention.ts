// A person's handle in a chat or tracker mention: "@jeroen.smit", "@anna_de_vries", "@p-jansen"
// (Slack, Jira, GitHub, Teams). Written first name and surname joined by a dot, underscore or
// hyphen, after an "@" that does not end an e-mail's local part; the first part a known first name
// (or an initial before a known surname), the rest letters. Masked without the "@", which stays,
// so the text still reads as a mention. Cost: one pass over the text's "@" signs.
import { isKnownFirstNameLower, isKnownLastNameLower } from '../gazetteer/index.js';
import type { Detection, Language, Recognizer } from '../types.js';
import { isFirstNameHandle } from './person.js';

// Not a scoped package's ("@mark.down/parser"): a "/" after it.
const HANDLE_Y = /([a-z]+)((?:[._-][a-z]+){1,3})(?![\p{L}\p{N}@/]|[._-][\p{L}\p{N}])/iuy;
const WORD_BEFORE = /[\p{L}\p{N}._%+-]/u;
// A handle of one word: a first name alone ("@wouter kun je dit oppakken?"), as chats address a
// colleague. Not followed by "/" (a scoped package), nor by a dot or hyphen and more of a handle.
const SINGLE_Y = /\p{L}{3,20}(?![\p{L}\p{N}@/_]|[.-][\p{L}\p{N}])/uy;

export function findMentions(text: string): Detection[] {
  const out: Detection[] = [];
  for (let at = text.indexOf('@'); at >= 0; at = text.indexOf('@', at + 1)) {
    // "jan@example.nl": an e-mail's local part ends at its "@".
    if (at > 0 && WORD_BEFORE.test(text[at - 1]!)) continue;
    HANDLE_Y.lastIndex = at + 1;
    const m = HANDLE_Y.exec(text);
    if (m === null) {
      SINGLE_Y.lastIndex = at + 1;
      const one = SINGLE_Y.exec(text);
      if (one === null || !isFirstNameHandle(one[0])) continue;
      const end = at + 1 + one[0].length;
      if (text.charCodeAt(end) === 40 || (onlyBlanksBefore(text, at) && endsLine(text, end))) continue;
      out.push({ type: 'PERSON', start: at + 1, end, text: one[0], checksum: false });
      continue;
    }
    const first = m[1]!.toLowerCase();
    const rest = m[2]!.slice(1).split(/[._-]/);
    const surname = rest[rest.length - 1]!.toLowerCase();
    const named = (first.length > 1 && isKnownFirstNameLower(first) && surname.length > 1) || (first.length === 1 && isKnownLastNameLower(surname));
    if (!named) continue;
    // A Python decorator ("@mark.parametrize(…)", "@ray.remote" on a line of its own) is code.
    if (text.charCodeAt(at + 1 + m[0].length) === 40 || (onlyBlanksBefore(text, at) && endsLine(text, at + 1 + m[0].length))) continue;
    out.push({ type: 'PERSON', start: at + 1, end: at + 1 + m[0].length, text: m[0], checksum: false });
  }
  return out;
}

function onlyBlanksBefore(text: string, at: number): boolean {
  for (let i = at - 1; i >= 0 && text.charCodeAt(i) !== 10; i--) if (text.charCodeAt(i) !== 32 && text.charCodeAt(i) !== 9) return false;
  return true;
}

function endsLine(text: string, at: number): boolean {
  return at >= text.length || text.charCodeAt(at) === 10 || text.charCodeAt(at) === 13;
}

export const mentionRecognizer: Recognizer = {
  type: 'PERSON',
  needsDigit: false,
  detect(text: string, _language: Language): Detection[] {
    return text.indexOf('@') < 0 ? [] : findMentions(text);
  },
};
