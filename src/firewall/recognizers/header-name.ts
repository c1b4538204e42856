// Display names written surname first in an e-mail header, as Outlook and many address books do:
// "From: Jansen, Pieter <p.jansen@rotterdam.nl>", "Aan: Smit, Johan <j.smit@utrecht.nl>",
// 'To: "de Groot, Annelies" <…>'. Anywhere else "Jansen, Pieter" is two words around a comma (a
// list, a place and its country), so the name recognizer reads at most one of them; on a header
// line, right before the mailbox the name belongs to, the pair is one person.
// Only a line that starts with a header key is read, only up to MAX_LINE characters, and the name
// regex is tried, sticky and with bounded runs only, where an entry of the header can start: after
// the key's colon and after each "," or ";". Linear in the text.
import { isRoleMailbox } from './email.js';
import type { Detection, Language, Recognizer } from '../types.js';

const HEADER_KEYS = new Set(
  'from to cc bcc reply-to sender van aan afzender kopie bcc von an absender kopie blindkopie de à a pour copie cci'.split(' '),
);
const MAX_LINE = 1000;
// A header key at a line's start, behind quote marks or Markdown bold as pasted mail shows them.
const KEY_Y = /[ \t>*]{0,8}([\p{L}-]{1,12})(?:\*{0,2}:\*{0,2}|:)[ \t]*/uy;
// "Surname, First names", the surname with lower-case or capitalised particles before it ("de
// Groot", "Van der Berg"), the first names or initials after the comma; then an optional
// organisation in brackets, a closing quote and the mailbox.
const NAME_Y = new RegExp(
  '(["\'“]?)(' +
    "(?:\\p{L}{1,3}['’]?[ ]){0,3}\\p{Lu}\\p{Ll}{1,30}(?:[- ]\\p{Lu}\\p{Ll}{1,30}){0,2}" +
    ',[ ]' +
    '(?:\\p{Lu}\\p{Ll}{1,30}(?:[- ]\\p{Lu}\\p{Ll}{1,30}){0,2}|\\p{Lu}\\.(?:[ ]?\\p{Lu}\\.){0,3})' +
    ')(?:[ ]\\([^()\\n]{0,80}\\))?["\'”]?[ \\t]*<([^<>\\s@]{1,64}@[^<>\\s]{1,255})>',
  'uy',
);
// What follows a company's name after a comma, not a first name: "Acme, Inc <…>".
const NOT_FIRST_NAMES = new Set(['Inc', 'Ltd', 'Llc', 'Corp', 'Co', 'Gmbh', 'Bv', 'Nv', 'Sa', 'Ag', 'Plc', 'Team', 'Support', 'Sales']);

export function findHeaderNames(text: string): Detection[] {
  const out: Detection[] = [];
  // Most texts hold no mailbox in angle brackets: nothing to read.
  if (text.indexOf('<') < 0 || text.indexOf('@') < 0) return out;
  let lineStart = 0;
  while (lineStart < text.length) {
    let lineEnd = text.indexOf('\n', lineStart);
    if (lineEnd < 0) lineEnd = text.length;
    if (lineEnd - lineStart <= MAX_LINE) readLine(text, lineStart, lineEnd, out);
    lineStart = lineEnd + 1;
  }
  return out;
}

function readLine(text: string, start: number, end: number, out: Detection[]): void {
  KEY_Y.lastIndex = start;
  const key = KEY_Y.exec(text);
  if (!key || KEY_Y.lastIndex > end || !HEADER_KEYS.has(key[1]!.toLowerCase())) return;
  let at = KEY_Y.lastIndex;
  while (at < end) {
    NAME_Y.lastIndex = at;
    const m = NAME_Y.exec(text);
    if (m && NAME_Y.lastIndex <= end) {
      const name = m[2]!;
      const first = name.slice(name.indexOf(', ') + 2).split(/[ -]/)[0]!;
      if (!NOT_FIRST_NAMES.has(first) && !isRoleMailbox(m[3]!)) {
        const s = at + m[1]!.length;
        out.push({ type: 'PERSON', start: s, end: s + name.length, text: name, checksum: false });
      }
      at = NAME_Y.lastIndex;
    }
    // The next entry starts after a separator: a comma or a semicolon and its spaces.
    let next = at;
    while (next < end && text.charCodeAt(next) !== 44 && text.charCodeAt(next) !== 59) next++;
    if (next >= end) return;
    next++;
    while (next < end && (text.charCodeAt(next) === 32 || text.charCodeAt(next) === 9)) next++;
    at = next;
  }
}

export const headerNameRecognizer: Recognizer = {
  type: 'PERSON',
  needsDigit: false,
  detect(text: string, _language: Language): Detection[] {
    return findHeaderNames(text);
  },
};
