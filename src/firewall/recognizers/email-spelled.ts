// E-mail addresses written out so that scrapers miss them: "jan.smit at gmail dot com",
// "anna (at) web (punkt) de", "m.jonker apenstaartje ziggo punt nl", "c.roy arobase free point fr".
// Reported only when the address they spell is a valid one with a known top-level domain, so that
// "look at the results dot plot" stays as it is. Each "at" word is read from: the local part
// backwards (at most LOCAL_MAX characters), the domain forwards label by label (at most
// MAX_LABELS), each step a bounded sticky regex: linear in the text.
import type { Detection, Language, Recognizer } from '../types.js';

// Without the u flag and without a lookbehind, so that irregexp can skip quickly to the next space or
// bracket: this runs over every text, and " at " is everywhere in English.
const AT = /[([{][ ]?(?:at|ät)[ ]?[)\]}]| (?:at|ät|apenstaartje|arobase|arrobase|klammeraffe)(?= )/gi;
const DOT_Y = /(?:[ ]*[([{][ ]?(?:dot|punt|punkt|point)[ ]?[)\]}][ ]*|[ ]+(?:dot|punt|punkt|point)[ ]+|\.)/iuy;
const LABEL_Y = /[a-z0-9](?:[a-z0-9-]{0,62}[a-z0-9])?(?![\p{L}\p{N}@])/iuy;
const LOCAL_MAX = 64;
const MAX_LABELS = 5;
const TLDS = new Set(
  'com net org info biz eu nl be de fr lu ch at uk co ie es it pt dk se no fi pl cz io me email online'.split(' '),
);

function isLocalChar(c: number): boolean {
  return (c >= 48 && c <= 57) || (c >= 65 && c <= 90) || (c >= 97 && c <= 122) || c === 46 || c === 95 || c === 45 || c === 43 || c === 37;
}

export function findSpelledEmails(text: string): Detection[] {
  const out: Detection[] = [];
  AT.lastIndex = 0;
  for (let m = AT.exec(text); m; m = AT.exec(text)) {
    const bracketed = m[0].charCodeAt(0) !== 32;
    // The local part, right before: the spoken "at" brings its space before it; a bracketed one
    // may follow the local part directly.
    let end = m.index;
    if (bracketed && text.charCodeAt(end - 1) === 32) end--;
    let start = end;
    while (start > 0 && end - start < LOCAL_MAX && isLocalChar(text.charCodeAt(start - 1))) start--;
    if (start === end || (start > 0 && /[\p{L}\p{N}@]/u.test(text[start - 1]!))) continue;
    const local = text.slice(start, end);
    if (local.startsWith('.') || local.endsWith('.')) continue;
    // The domain, label by label.
    let i = m.index + m[0].length;
    if (text.charCodeAt(i) === 32) i++;
    const labels: string[] = [];
    let last = -1;
    while (labels.length < MAX_LABELS) {
      LABEL_Y.lastIndex = i;
      const l = LABEL_Y.exec(text);
      if (!l) break;
      labels.push(l[0]);
      last = LABEL_Y.lastIndex;
      DOT_Y.lastIndex = last;
      if (!DOT_Y.test(text)) break;
      i = DOT_Y.lastIndex;
    }
    if (labels.length < 2) continue;
    const tld = labels[labels.length - 1]!.toLowerCase();
    if (!TLDS.has(tld) || !/^[a-z]+$/.test(tld)) continue;
    const address = `${local}@${labels.join('.')}`.toLowerCase();
    out.push({ type: 'EMAIL', start, end: last, text: text.slice(start, last), checksum: false, normalized: address });
    AT.lastIndex = Math.max(AT.lastIndex, last);
  }
  return out;
}

export const spelledEmailRecognizer: Recognizer = {
  type: 'EMAIL',
  needsDigit: false,
  detect(text: string, _language: Language): Detection[] {
    return findSpelledEmails(text);
  },
};
