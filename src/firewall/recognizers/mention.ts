// A person's handle in a chat or tracker mention: "@jeroen.smit", "@anna_de_vries", "@p-jansen"
// (Slack, Jira, GitHub, Teams). Written first name and surname joined by a dot, underscore or
// hyphen, after an "@" that does not end an e-mail's local part; the first part a known first name
// (or an initial before a known surname), the rest letters. Masked without the "@", which stays,
// so the text still reads as a mention. Cost: one pass over the text's "@" signs.
import { isKnownFirstNameLower, isKnownLastNameLower } from '../gazetteer/index.js';
import type { Detection, Language, Recognizer } from '../types.js';
import { isAmbiguousFirstName, isFirstNameHandle, nameIsAlsoAWord } from './person.js';

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

// A handle without its "@" (QA 2026-11-27c): "ping kevin.de.boer about it", "cc: lisa.van.dam,
// tom.peeters", a Windows or Unix home directory ("C:\\Users\\Marieke.Jansen\\Desktop",
// "/home/pieter.bakker/app") — a first name the lists know, dots between its parts, and a surname
// the lists know after it (or particles between: "lisa.van.dam"). Code has dotted names too
// ("user.name", "os.path", "console.log", "lodash.merge", "mark.price", "ray.init()"): the first
// part must be a first name, the last a surname that is no word when the first name is one too,
// the handle not one link of a longer chain, not a call, not an e-mail's local part nor a host.
const DOTTED_Y = /([a-z]{2,20})((?:\.[a-z]{1,20}){1,3})(?![\p{L}\p{N}@(_-]|\.[\p{L}\p{N}])/iuy;
const BEFORE_HANDLE = /[\p{L}\p{N}._@$#%+-]/u;
const HANDLE_PARTICLES = new Set('van de der den von ter ten te da di du le la del dos'.split(' '));

export function findDottedHandles(text: string): Detection[] {
  const out: Detection[] = [];
  let readTo = 0;
  for (let dot = text.indexOf('.'); dot >= 0; dot = text.indexOf('.', dot + 1)) {
    // A sentence's full stop, before a space or the end (most dots of prose), joins nothing.
    if (dot < readTo || !isAsciiLetter(text.charCodeAt(dot + 1))) continue;
    let start = dot;
    while (start > 0 && dot - start < 21 && isAsciiLetter(text.charCodeAt(start - 1))) start--;
    if (start === dot || (start > 0 && BEFORE_HANDLE.test(text[start - 1]!))) continue;
    // A URL's path segment is url-paths.ts's (its placeholder percent-encoded), a home directory's below.
    if (start > 0 && text.charCodeAt(start - 1) === 47) continue;
    DOTTED_Y.lastIndex = start;
    const m = DOTTED_Y.exec(text);
    if (m === null) continue;
    readTo = start + m[0].length;
    if (isDottedName(m[1]!.toLowerCase(), m[2]!.slice(1).toLowerCase().split('.'))) {
      out.push({ type: 'PERSON', start, end: readTo, text: m[0], checksum: false });
    }
  }
  return out;
}

function isAsciiLetter(c: number): boolean {
  return (c >= 97 && c <= 122) || (c >= 65 && c <= 90);
}

function isDottedName(first: string, rest: readonly string[]): boolean {
  const last = rest[rest.length - 1]!;
  if (last.length < 2 || !isKnownFirstNameLower(first)) return false;
  const between = rest.slice(0, -1);
  if (between.length > 0) return between.every((w) => HANDLE_PARTICLES.has(w)) && (between.length > 0 || isKnownLastNameLower(last));
  const capital = (w: string) => w.charAt(0).toUpperCase() + w.slice(1);
  return isKnownLastNameLower(last) && !(isAmbiguousFirstName(capital(first)) && nameIsAlsoAWord(capital(last)));
}

// A home directory's user written as a first name and a surname: "/home/pieter.bakker/",
// "C:\\Users\\Marieke.Jansen\\", "/Users/lisa_van_dam/" (as the dotted handles above, with "_" or "-"
// too). A single word ("C:\\Users\\thomas\\", "/home/ubuntu") stays: an account's name, not a person's.
const HOME_DIR = /(?:\/home\/|\/Users\/|[A-Za-z]:\\{1,2}Users\\{1,2})([A-Za-z][A-Za-z._-]{1,40})(?=[\/\\]|$|[\s'"`:)])/g;

export function findHomeDirectories(text: string): Detection[] {
  const out: Detection[] = [];
  for (const m of text.matchAll(HOME_DIR)) {
    const user = m[1]!;
    const parts = user.toLowerCase().split(/[._-]/);
    if (parts.length < 2 || parts.length > 4 || !parts.every((p) => p.length > 0) || !isDottedName(parts[0]!, parts.slice(1))) continue;
    const start = m.index + m[0].length - user.length;
    out.push({ type: 'PERSON', start, end: start + user.length, text: user, checksum: false });
  }
  return out;
}

export const mentionRecognizer: Recognizer = {
  type: 'PERSON',
  needsDigit: false,
  detect(text: string, _language: Language): Detection[] {
    const found = text.indexOf('@') < 0 ? [] : findMentions(text);
    if (text.indexOf('.') >= 0) for (const d of findDottedHandles(text)) found.push(d);
    if (text.indexOf('home/') >= 0 || text.indexOf('Users') >= 0) for (const d of findHomeDirectories(text)) found.push(d);
    return found;
  },
};
