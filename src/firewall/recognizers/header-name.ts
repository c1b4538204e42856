// Names as mail and chat headers write them, surname first, which the name recognizer (reading
// names in their spoken order) splits or misses:
//  - Outlook and Exchange display names: "From: Jansen, Pieter <p.jansen@rotterdam.nl>", "Aan:
//    Smit, Johan", 'To: "de Groot, Annelies" <…>', "Van: Visser, A. (Anouk) <…>";
//  - French mail: "De : GIRARD Nicolas <…>", "À : FONTAINE Élodie ; MOREAU Julien";
//  - Teams transcripts: "[09:12] Krause, Wolfgang: …";
//  - a form's label naming the order: "NAME, VORNAME: MÜLLER, SABINE";
//  - a subject that files a case under a surname: "Onderwerp: dossier Visser", "RE: Okafor complaint".
// Anywhere else "Jansen, Pieter" is two words around a comma (a list, a place and its country), so
// the name recognizer reads at most one of them, and the surname went out in clear beside the
// placeholder ("Hoekstra, [PERSON_1]"). What says the pair is one person is where it stands: a
// header key at the line's start, a transcript's time stamp, the label. Before a mailbox a header's
// entry is a display name whatever its words; without one the given name must be one the lists know
// and the surname no word of a role, a team or an organisation ("Cc: Legal, Support" stays).
// Only a line that starts with a key or a time stamp is read, up to MAX_LINE characters, and the
// name regexes are tried, sticky and with bounded runs only, where an entry can start: after the
// key's colon, after each "," or ";", and after the next key of a paste that lost its line breaks.
// The order-naming label is looked for anywhere, by one global regex of literal words, only in a
// text that holds one of its words. Linear in the text.
import { isKnownLastName } from '../gazetteer/index.js';
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
// A subject line, or a line opened by a reply's or forward's prefix.
const SUBJECT_KEYS = new Set('subject onderwerp betreft betreff objet re fw fwd aw wg tr antw'.split(' '));
const MAX_LINE = 1000;
// A header key at a line's start, behind quote marks or Markdown bold as pasted mail shows them;
// French writes a space before the colon ("De : ", "À : ").
const KEY_Y = /[ \t>*]{0,8}([\p{L}-]{1,12})[ \u00a0]?(?:\*{0,2}:\*{0,2}|:)[ \t\u00a0]*/uy;
// A transcript's time stamp at a line's start: "[09:12] ", "[27-11-2026 14:05:33] ", "09:12 ".
const STAMP_Y = /[ \t>*]{0,8}(?:\[([^\]\n]{1,30})\]|(\d{1,2}:\d{2}(?::\d{2})?))[ \t]+/uy;
const TIME = /(?<!\d)\d{1,2}:\d{2}(?!\d)/;
// The next header's key, when a paste lost the line breaks between headers: "From: Hoekstra,
// Marieke Sent: Monday, … To: …". Read as a given name, "Marieke Sent" was masked with the key.
const NEXT_KEYS = '(?:Sent|Verzonden|Gesendet|Envoyé|Date|Datum|To|Aan|An|Cc|CC|Bcc|Subject|Onderwerp|Betreff|Objet)';
const MAILBOX = '(?:<([^<>\\s@]{1,64}@[^<>\\s]{1,255})>)?';
// "Surname, First names": the surname with lower-case or capitalised particles before it ("de
// Groot", "Van der Berg"), written capitalised or in capitals; the first names or initials after
// the comma (in capitals too, after a surname in capitals: "From: MÜLLER, KATHARINA <…>" was sent in
// clear, QA 2026-11-27); then a bracket (a calling name, "(Anouk)", or an organisation, "(Gemeente Utrecht)"),
// a closing quote and the mailbox.
const COMMA_Y = new RegExp(
  '(["\'“]?)(' +
    "(?:\\p{L}{1,3}['’]?[ ]){0,3}\\p{Lu}(?:\\p{Ll}{1,30}|\\p{Lu}{1,30})(?:[- ]\\p{Lu}\\p{Ll}{1,30}){0,2}" +
    ',[ ]' +
    `(\\p{Lu}\\p{Ll}{1,30}(?:[- ](?!${NEXT_KEYS}[ ]?:)\\p{Lu}\\p{Ll}{1,30}){0,2}|\\p{Lu}{2,30}(?:-\\p{Lu}{2,30})?|\\p{Lu}\\.(?:[ ]?\\p{Lu}\\.){0,3})` +
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
  // Every reading here needs a colon: after a header key, in a time stamp, after a label.
  if (text.indexOf(':') < 0) return out;
  let lineStart = 0;
  while (lineStart < text.length) {
    let lineEnd = text.indexOf('\n', lineStart);
    if (lineEnd < 0) lineEnd = text.length;
    if (lineEnd - lineStart <= MAX_LINE) readLine(text, lineStart, lineEnd, out);
    lineStart = lineEnd + 1;
  }
  findOrderedPairs(text, out);
  return out;
}

type Place = 'header' | 'mailbox-only' | 'speaker';

function readLine(text: string, start: number, end: number, out: Detection[]): void {
  KEY_Y.lastIndex = start;
  const key = KEY_Y.exec(text);
  if (key && KEY_Y.lastIndex <= end) {
    const word = key[1]!.toLowerCase();
    if (HEADER_KEYS.has(word)) readEntries(text, KEY_Y.lastIndex, end, MAILBOX_ONLY_KEYS.has(word) ? 'mailbox-only' : 'header', out);
    else if (SUBJECT_KEYS.has(word)) readSubject(text, KEY_Y.lastIndex, end, out);
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
    // The next entry starts after a separator: a comma or a semicolon and its spaces, or the next
    // header's key where a paste lost the line breaks ("… Sent: Monday, … To: Brouwer, Wouter").
    let next = at;
    for (; next < end; next++) {
      const c = text.charCodeAt(next);
      if (c === 44 || c === 59) break;
      if (next > at && c >= 65 && c <= 90 && isBlank(text.charCodeAt(next - 1)) && stickyEnd(NEXT_KEY_Y, text, next) > 0) {
        next = NEXT_KEY_Y.lastIndex - 1;
        break;
      }
    }
    if (next >= end) return;
    next++;
    while (next < end && (text.charCodeAt(next) === 32 || text.charCodeAt(next) === 9)) next++;
    at = next;
  }
}

function isBlank(c: number): boolean {
  return c === 32 || c === 9 || c === 0xa0;
}

function stickyEnd(re: RegExp, text: string, at: number): number {
  re.lastIndex = at;
  return re.test(text) ? re.lastIndex : -1;
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

const NEXT_KEY_Y = new RegExp(`${NEXT_KEYS}[ \\u00a0]?:`, 'uy');

/** Whether an entry without a mailbox ends at `i`: the line's end, a separator, the next header's key, a speaker's colon. */
function endsEntry(text: string, i: number, end: number, place: Place): boolean {
  while (i < end && isBlank(text.charCodeAt(i))) i++;
  if (i >= end) return true;
  const c = text.charCodeAt(i);
  if (place === 'speaker') return c === 58;
  if (c === 44 || c === 59) return true;
  return isBlank(text.charCodeAt(i - 1)) && stickyEnd(NEXT_KEY_Y, text, i) > 0;
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
  const givenWritten = given.split(/[ -]/)[0]!;
  // A given name in capitals is read only after a surname in capitals, and as the lists know it.
  const givenCapitals = givenWritten.length > 1 && !given.endsWith('.') && givenWritten === givenWritten.toUpperCase();
  if (givenCapitals && !capitals) return false;
  const firstGiven = givenCapitals ? titleCase(givenWritten) : givenWritten;
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

// --- Subject lines -------------------------------------------------------------------------------

// Reply and forward prefixes before a subject ("RE: FW: AW: …").
const PREFIXES_Y = /(?:(?:re|fw|fwd|aw|wg|tr|antw|doorst)[ \u00a0]?:[ \t\u00a0]*){0,6}/iuy;
// A word that files the subject under a person's name: "dossier Visser", "klant Jansen", "Kunde
// Müller", "client Dupont", "complaint about Okafor".
const SUBJECT_CUE_G = /(?<![\p{L}\p{N}])(?:dossier|klant|kunde|client|customer|complaint about|klacht over|beschwerde von|plainte de|réclamation de)[ \u00a0]+/giu;
// "RE: Okafor complaint": a surname opening the subject before the complaint it names.
const COMPLAINT_AFTER_Y = /[ \u00a0]+(?:complaint|klacht|beschwerde|plainte|réclamation)(?![\p{L}])/iuy;
const SUBJECT_PARTICLE_Y = /(?:[Vv]an (?:de[rn]? |['’]t )?|[Vv]on (?:der )?|[Dd]e (?:la )?|[Dd]u |[Ll]e |[Tt]e[rn] )/uy;
const SURNAME_Y = /\p{Lu}(?:\p{Ll}{1,30}(?:-\p{Lu}\p{Ll}{1,30})?|\p{Lu}{1,30})(?![\p{L}\p{N}'’])/uy;

/**
 * A subject names a person only with a strong cue, and then only by a surname the lists know (or
 * know by its form, "Petrović"): after "dossier", "klant", "Kunde", "client" … or before
 * "complaint" at the subject's start. A capitalised word after the surname makes it a firm's or a
 * product's ("dossier Jansen Transport"), and is left.
 */
function readSubject(text: string, from: number, end: number, out: Detection[]): void {
  PREFIXES_Y.lastIndex = from;
  PREFIXES_Y.exec(text);
  const start = Math.min(PREFIXES_Y.lastIndex, end);
  const first = subjectSurnameAt(text, start, end);
  if (first > 0) {
    COMPLAINT_AFTER_Y.lastIndex = first;
    if (COMPLAINT_AFTER_Y.test(text)) out.push(person(text, start, first));
  }
  const line = text.slice(start, end);
  SUBJECT_CUE_G.lastIndex = 0;
  for (let m = SUBJECT_CUE_G.exec(line); m; m = SUBJECT_CUE_G.exec(line)) {
    const at = start + SUBJECT_CUE_G.lastIndex;
    const e = subjectSurnameAt(text, at, end);
    if (e < 0) continue;
    out.push(person(text, at, e));
    SUBJECT_CUE_G.lastIndex = e - start;
  }
}

/** End of a known surname (after particles) at `at` that no capitalised word follows, or -1. */
function subjectSurnameAt(text: string, at: number, end: number): number {
  SUBJECT_PARTICLE_Y.lastIndex = at;
  const i = SUBJECT_PARTICLE_Y.test(text) ? SUBJECT_PARTICLE_Y.lastIndex : at;
  SURNAME_Y.lastIndex = i;
  const m = SURNAME_Y.exec(text);
  if (!m || SURNAME_Y.lastIndex > end) return -1;
  const tok = m[0];
  const plain = tok === tok.toUpperCase() ? titleCase(tok) : tok;
  if (isNonNameWord(plain) || isAmbiguousFirstName(plain) || isRoleOrOrganisationWord(plain)) return -1;
  if (!plain.split('-').every((part) => isSurnameToken(part))) return -1;
  if (isFirstNameToken(plain) && !isKnownLastName(plain)) return -1;
  const e = i + tok.length;
  const next = text.charAt(e + 1);
  if (text.charCodeAt(e) === 32 && next !== next.toLowerCase() && next === next.toUpperCase()) return -1;
  return e;
}

function person(text: string, start: number, end: number): Detection {
  return { type: 'PERSON', start, end, text: text.slice(start, end), checksum: false };
}

// --- A label that names the order ------------------------------------------------------------------

// "NAME, VORNAME:", "Naam, voornaam:", "Nom, prénom :", "Surname, first name:": the value after it
// is written in that order, and the pair around its comma is one person ("MÜLLER, SABINE"); read
// as prose, the surname was masked and the given name left in clear.
const ORDER_LABEL_G =
  /(?<![\p{L}])(?:(?:nach|familien)?name|(?:achter)?naam|nom(?: de famille)?|surname|last[ -]?name|family[ -]name)[ \t]*[,/][ \t]*(?:vorname[n]?|voorna(?:am|men)|pr[ée]noms?|first[ -]?names?|given[ -]names?|forenames?)(?:\(s\))?[ \t\u00a0]*:[ \t\u00a0]*/giu;
const ORDER_LABEL_HINT = /vorname|voorna|pr[ée]nom|first[ -]?name|given[ -]name|forename/i;
// The label ends right before a colon: only the few characters before each colon are read, not
// every position of every text (a case-insensitive alternation over a long document cost as much as
// a recognizer). A text of very many colons (a log, JSON) is read once, whole, instead.
const ORDER_LABEL_BEFORE_COLON = /(?:vorname|voorna|pr[ée]nom|first[ -]?name|given[ -]name|forename)[^:\n]{0,8}$/i;
const MAX_COLONS_LOOKED_AT = 2000;

function holdsOrderLabel(text: string): boolean {
  let colons = 0;
  for (let colon = text.indexOf(':'); colon >= 0; colon = text.indexOf(':', colon + 1)) {
    if (++colons > MAX_COLONS_LOOKED_AT) return ORDER_LABEL_HINT.test(text);
    if (ORDER_LABEL_BEFORE_COLON.test(text.slice(Math.max(0, colon - 24), colon))) return true;
  }
  return false;
}
const PAIR_Y = /((?:\p{L}{1,3}['’]?[ ]){0,3}\p{Lu}[\p{L}'’-]{1,40}(?:[ ]\p{Lu}[\p{L}'’-]{1,40})?),[ \t]*(\p{Lu}[\p{L}'’-]{1,40})((?:[ ]\p{Lu}[\p{L}'’-]{1,40}){0,2})(?![\p{L}\p{N}.])/uy;

function findOrderedPairs(text: string, out: Detection[]): void {
  if (text.indexOf(',') < 0 || !holdsOrderLabel(text)) return;
  ORDER_LABEL_G.lastIndex = 0;
  for (let m = ORDER_LABEL_G.exec(text); m; m = ORDER_LABEL_G.exec(text)) {
    const at = ORDER_LABEL_G.lastIndex;
    PAIR_Y.lastIndex = at;
    const pair = PAIR_Y.exec(text);
    if (!pair) continue;
    const surname = pair[1]!;
    const last = surname.slice(surname.lastIndexOf(' ') + 1);
    if (isNonNameWord(last) || isNonNameWord(pair[2]!)) continue;
    // Further given names only as far as they are first names ("MÜLLER, SABINE ANNA", not "…, SABINE GEB").
    let end = at + pair[0].length - pair[3]!.length;
    for (const word of pair[3]!.split(' ').slice(1)) {
      if (!isFirstNameToken(word)) break;
      end += 1 + word.length;
    }
    out.push(person(text, at, end));
    ORDER_LABEL_G.lastIndex = end;
  }
}

export const headerNameRecognizer: Recognizer = {
  type: 'PERSON',
  needsDigit: false,
  detect(text: string, _language: Language): Detection[] {
    return findHeaderNames(text);
  },
};
