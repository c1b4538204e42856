// Names as mail and chat headers write them, surname first, which the name recognizer (reading
// names in their spoken order) splits or misses:
//  - Outlook and Exchange display names: "From: Jansen, Pieter <p.jansen@rotterdam.nl>", "Aan:
//    Smit, Johan", 'To: "de Groot, Annelies" <…>', "Van: Visser, A. (Anouk) <…>";
//  - French mail: "De : GIRARD Nicolas <…>", "À : FONTAINE Élodie ; MOREAU Julien";
//  - Teams transcripts: "[09:12] Krause, Wolfgang: …";
// Anywhere else "Jansen, Pieter" is two words around a comma (a list, a place and its country), so
// the name recognizer reads at most one of them, and the surname went out in clear beside the
// placeholder ("Hoekstra, [PERSON_1]"). What says the pair is one person is where it stands: a
// header key at the line's start, a transcript's time stamp. Before a mailbox a header's
// entry is a display name whatever its words; without one the given name must be one the lists know
// and the surname no word of a role, a team or an organisation ("Cc: Legal, Support" stays).
// Only a line that starts with a key or a time stamp is read, up to MAX_LINE characters, and the
// name regexes are tried, sticky and with bounded runs only, where an entry can start: after the
// key's colon and after each "," or ";". Linear in the text.
import { isNonNameWord } from '../words.js';
import { isRoleMailbox } from './email.js';
import { isAmbiguousFirstName, isFirstNameToken, isRoleOrOrganisationWord, isSurnameToken } from './person.js';
import type { Detection, Language, Recognizer } from '../types.js';

const HEADER_KEYS = new Set(
  'from to cc bcc reply-to sender van aan afzender kopie bcc von an absender kopie blindkopie de à a pour copie cci'.split(' '),
);
// "A:" is also the answer of a Q&A transcript ("A: Correct, Anna"), and Spanish and Italian mail's
// "to": on it an entry is read only before its mailbox.
const MAILBOX_ONLY_KEYS = new Set(['a']);
const MAX_LINE = 1000;
// A header key at a line's start, behind quote marks or Markdown bold as pasted mail shows them;
// French writes a space before the colon ("De : ", "À : ").
const KEY_Y = /[ \t>*]{0,8}([\p{L}-]{1,12})[ \u00a0]?(?:\*{0,2}:\*{0,2}|:)[ \t\u00a0]*/uy;
// A transcript's time stamp at a line's start: "[09:12] ", "[27-11-2026 14:05:33] ", "09:12 ".
const STAMP_Y = /[ \t>*]{0,8}(?:\[([^\]\n]{1,30})\]|(\d{1,2}:\d{2}(?::\d{2})?))[ \t]+/uy;
const TIME = /(?<!\d)\d{1,2}:\d{2}(?!\d)/;
const MAILBOX = '(?:<([^<>\\s@]{1,64}@[^<>\\s]{1,255})>)?';
// "Surname, First names": the surname with lower-case or capitalised particles before it ("de
// Groot", "Van der Berg"), written capitalised or in capitals; the first names or initials after
// the comma; then a bracket (a calling name, "(Anouk)", or an organisation, "(Gemeente Utrecht)"),
// a closing quote and the mailbox.
const COMMA_Y = new RegExp(
  '(["\'“]?)(' +
    "(?:\\p{L}{1,3}['’]?[ ]){0,3}\\p{Lu}(?:\\p{Ll}{1,30}|\\p{Lu}{1,30})(?:[- ]\\p{Lu}\\p{Ll}{1,30}){0,2}" +
    ',[ ]' +
    '(\\p{Lu}\\p{Ll}{1,30}(?:[- ]\\p{Lu}\\p{Ll}{1,30}){0,2}|\\p{Lu}\\.(?:[ ]?\\p{Lu}\\.){0,3})' +
    ')(?:[ ]\\(([^()\\n]{0,80})\\))?["\'”]?[ \\t]*' +
    MAILBOX,
  'uy',
);
// "GIRARD Nicolas", "DE LA FONTAINE Jean-Pierre", "LE GALL Marie Anne": the surname in capitals, then
// the first names, as French mail and forms write them.
const CAPS_FIRST_Y = new RegExp(
  '(["\'“]?)(' +
    '(?:(?:DE LA|DE|DU|DES|LE|LA|VAN DER|VAN DEN|VAN DE|VAN|VON|DI|DA|DEL|DOS)[ ])?' +
    "\\p{Lu}{2,30}(?:['’-]\\p{Lu}{2,30})?(?:[ ]\\p{Lu}{2,30})?" +
    '[ ](\\p{Lu}\\p{Ll}{1,30}(?:-\\p{Lu}\\p{Ll}{1,30})?(?:[ ]\\p{Lu}\\p{Ll}{1,30})?)' +
    ')(?![\\p{L}\\p{N}])["\'”]?[ \\t]*' +
    MAILBOX,
  'uy',
);
// What follows a company's name after a comma, not a first name: "Acme, Inc <…>".
const NOT_FIRST_NAMES = new Set(['Inc', 'Ltd', 'Llc', 'Corp', 'Co', 'Gmbh', 'Bv', 'Nv', 'Sa', 'Ag', 'Plc', 'Team', 'Support', 'Sales']);
const CALLING_NAME = /^\p{Lu}[\p{L}-]{1,30}$/u;
const VOWEL = /[AEIOUYÀÂÄÉÈÊËÎÏÔÖÙÛÜ]/u;

export function findHeaderNames(text: string): Detection[] {
  const out: Detection[] = [];
  // Every reading here needs a colon: after a header key, in a time stamp.
  if (text.indexOf(':') < 0) return out;
  let lineStart = 0;
  while (lineStart < text.length) {
    let lineEnd = text.indexOf('\n', lineStart);
    if (lineEnd < 0) lineEnd = text.length;
    if (lineEnd - lineStart <= MAX_LINE) readLine(text, lineStart, lineEnd, out);
    lineStart = lineEnd + 1;
  }
  return out;
}

type Place = 'header' | 'mailbox-only' | 'speaker';

function readLine(text: string, start: number, end: number, out: Detection[]): void {
  KEY_Y.lastIndex = start;
  const key = KEY_Y.exec(text);
  if (key && KEY_Y.lastIndex <= end) {
    const word = key[1]!.toLowerCase();
    if (HEADER_KEYS.has(word)) readEntries(text, KEY_Y.lastIndex, end, MAILBOX_ONLY_KEYS.has(word) ? 'mailbox-only' : 'header', out);
    return;
  }
  STAMP_Y.lastIndex = start;
  const stamp = STAMP_Y.exec(text);
  if (stamp && STAMP_Y.lastIndex < end && (stamp[2] !== undefined || TIME.test(stamp[1]!))) {
    // A transcript's speaker: one entry, then its colon or the line's end.
    const at = STAMP_Y.lastIndex;
    entryAt(text, at, end, 'speaker', out);
  }
}

function readEntries(text: string, from: number, end: number, place: Place, out: Detection[]): void {
  let at = from;
  while (at < end) {
    at = entryAt(text, at, end, place, out);
    // The next entry starts after a separator: a comma or a semicolon and its spaces.
    let next = at;
    while (next < end && text.charCodeAt(next) !== 44 && text.charCodeAt(next) !== 59) next++;
    if (next >= end) return;
    next++;
    while (next < end && (text.charCodeAt(next) === 32 || text.charCodeAt(next) === 9)) next++;
    at = next;
  }
}

/** Reads a surname-first name at `at`; returns where reading goes on (after it, or `at`). */
function entryAt(text: string, at: number, end: number, place: Place, out: Detection[]): number {
  for (const re of [COMMA_Y, CAPS_FIRST_Y]) {
    re.lastIndex = at;
    const m = re.exec(text);
    if (!m || re.lastIndex > end) continue;
    const mailbox = m[m.length - 1];
    if (mailbox === undefined ? !(place !== 'mailbox-only' && endsEntry(text, re.lastIndex, end, place)) : isRoleMailbox(mailbox)) continue;
    const name = m[2]!;
    const given = m[3]!;
    const commaForm = re === COMMA_Y;
    const surname = commaForm ? name.slice(0, name.indexOf(',')) : name.slice(0, name.length - given.length - 1);
    const calling = commaForm ? m[4] : undefined;
    const callingName = calling !== undefined && CALLING_NAME.test(calling) && isFirstNameToken(calling);
    if (!personal(surname, given, callingName, mailbox !== undefined, commaForm)) continue;
    const s = at + m[1]!.length;
    // A calling name in brackets belongs to the person ("Visser, A. (Anouk)"); an organisation's stays.
    const e = callingName ? s + name.length + 2 + calling!.length + 1 : s + name.length;
    out.push({ type: 'PERSON', start: s, end: e, text: text.slice(s, e), checksum: false });
    return re.lastIndex;
  }
  return at;
}

/** Whether an entry without a mailbox ends at `i`: the line's end, a separator, a speaker's colon. */
function endsEntry(text: string, i: number, end: number, place: Place): boolean {
  while (i < end && (text.charCodeAt(i) === 32 || text.charCodeAt(i) === 9 || text.charCodeAt(i) === 0xa0)) i++;
  if (i >= end) return true;
  const c = text.charCodeAt(i);
  return place === 'speaker' ? c === 58 : c === 44 || c === 59;
}

function titleCase(word: string): string {
  return word.charAt(0) + word.slice(1).toLowerCase();
}

/**
 * Whether a surname and given names read on a header line are a person's. Before a mailbox a
 * display name is one unless it names a company ("Acme, Inc"); a surname in capitals still needs
 * a known first name. Without a mailbox: a given name the lists know (one that is also a word, or
 * initials, only with a known surname), and a surname that is no word, role, team or
 * organisation, nor a first name alone ("To: Anna, Pieter" are two people).
 */
function personal(surname: string, given: string, callingName: boolean, mailbox: boolean, commaForm: boolean): boolean {
  const last = surname.slice(surname.lastIndexOf(' ') + 1);
  const capitals = last === last.toUpperCase();
  const plain = capitals ? titleCase(last) : last;
  const firstGiven = given.split(/[ -]/)[0]!;
  if (commaForm && mailbox && !capitals) return !NOT_FIRST_NAMES.has(firstGiven);
  if (isNonNameWord(plain) || isRoleOrOrganisationWord(plain) || NOT_FIRST_NAMES.has(plain)) return false;
  const knownSurname = last.split(/[-'’]/).every((part) => isSurnameToken(capitals ? titleCase(part) : part));
  if (!knownSurname && isFirstNameToken(last)) return false;
  // A word in capitals is as often an acronym ("CNRS Nicolas", "RH Julie"): short or without a vowel, it must be a known surname.
  if (capitals && !knownSurname && (last.length < 4 || !VOWEL.test(last))) return false;
  if (given.endsWith('.')) return mailbox || callingName || knownSurname;
  if (!isFirstNameToken(firstGiven)) return false;
  return !isAmbiguousFirstName(firstGiven) || knownSurname;
}

export const headerNameRecognizer: Recognizer = {
  type: 'PERSON',
  needsDigit: false,
  detect(text: string, _language: Language): Detection[] {
    return findHeaderNames(text);
  },
};
