// Street addresses with a house number and a postcode:
//   NL  Keizersgracht 123, 1015 CJ Amsterdam        (street number, 1234 AB city)
//   DE  Hauptstraße 5a, 10115 Berlin                (street number, 5 digits city)
//   FR  12 rue de la Paix, 75002 Paris              (number street, 5 digits city)
//   BE  Rue de la Loi 16, 1000 Bruxelles            (street number, 4 digits city)
//   UK  221B Baker Street, London NW1 6XE           (number street, town, postcode)
// The scan is anchored on postcodes (rare in text), then the street and house number are matched
// backwards in a bounded window just before the postcode and the town forwards after it. The
// street may sit on the line above the postcode. Reading the street and town draws on the request's
// work budget (../budget.ts); once it is spent, the postcode's line (and the line above, when the
// postcode opens its line) is masked whole.
import { COST } from '../budget.js';
import { Matcher, isLetterCode, runLength, scanOf, type TextScan } from '../scan.js';
import { isKnownFirstName } from '../gazetteer/index.js';
import { isNonNameWord, isStreetLeadingWord } from '../words.js';
import { HOUSE_TAIL_SRC } from './house-number.js';
import type { Detection, Language, Recognizer } from '../types.js';

const B = '(?<![\\p{L}\\p{N}])';
const E = '(?![\\p{L}\\p{N}])';

// Postcodes. NL: 1234 AB; DE/FR/IT/ES: 5 digits; BE/AT/CH/LU/DK: 4 digits; UK: outward + inward.
const POSTCODE = new RegExp(
  [
    `${B}(?<nl>[1-9]\\d{3}[ \\u00a0]?(?!SA|SD|SS)[A-Z]{2})${E}`,
    `(?<![\\p{L}\\p{N}.,/-])(?:[DFLA]-)?(?<five>\\d{5})(?![\\p{L}\\p{N}]|[.,/-]\\d)`,
    `(?<![\\p{L}\\p{N}.,/-])(?:[BLA]-)?(?<four>[1-9]\\d{3})(?![\\p{L}\\p{N}]|[.,/-]\\d)`,
    `${B}(?<uk>(?:[A-Z]{1,2}\\d[A-Z\\d]?|GIR)[ \\u00a0]?\\d[A-Z]{2})${E}`,
  ].join('|'),
  'gu',
);

const CAP = "\\p{Lu}[\\p{L}'’.-]*";
const PARTICLE =
  "(?:van|de|der|den|het|'t|ter|ten|te|op|aan|bij|in|des|du|la|le|les|l'|d'|von|vom|zu|zum|zur|am|im|unter|auf|sur|sous|en|of|the|di|da|del|della)";
// A house number with an optional addition: 12, 12a, 12 A, 12-14, 12/3, 12-II, 12 bis, 12 hs.
const NUM = "\\d{1,5}(?:[ ]?[a-zA-Z](?![\\p{L}])|[-/]\\d{1,4}|-[A-Z]{1,3}(?![\\p{L}])|[ ](?:bis|ter|hs|huis|boven|I{1,3})(?![\\p{L}]))?" + `(?:${HOUSE_TAIL_SRC}){0,2}`;
// (and after it the flat's unit, door or floor: "12 bus 3", "5/3/12", "5, 3. OG"; see house-number.ts)

// Street then number (NL, DE, BE, AT, CH): capitalised words joined by spaces, hyphens or particles.
const STREET_FIRST = new RegExp(`(?<![\\p{L}\\p{N}'’.-])(?<street>${CAP}(?:[ \\t](?:${PARTICLE}[ \\t])*${CAP}){0,3})[ \\t]+(?<num>${NUM})$`, 'u');
// Number then a French street type word then the name.
const FR_TYPES =
  'rue|avenue|av\\.|boulevard|bd|place|chemin|allée|impasse|quai|route|cours|square|passage|rond-point|esplanade|sentier|faubourg|résidence|lieu-dit|cité|voie|parvis|promenade|rampe|villa|hameau';
const FR_STREET = new RegExp(
  `${B}(?<num>\\d{1,4}(?:[ ]?(?:bis|ter|[A-Da-d])(?![\\p{L}]))?),?[ \\t]+(?:${FR_TYPES})[ \\t]+[\\p{L}'’.-]+(?:[ \\t][\\p{L}'’.-]+){0,6}$`,
  'iu',
);
// French-Belgian order: street type first, then name, then number ("Rue de la Loi 16", "Avenue Louise 54");
// Spanish, Italian and Polish streets are written so too ("Calle de Alcalá 145", "Via Roma 10", "ul.
// Floriańska 12"): read as a street of capitalised words, the words before the type came with it
// ("Vivo en Calle de Alcalá 145, 28009 Madrid" was masked whole).
const SOUTH_TYPES = 'calle|c/|avenida|avda\\.|paseo|plaza|camino|via|viale|piazza|piazzale|corso|largo|vicolo|ul\\.|ulica|al\\.|aleja|plac';
const TYPE_FIRST = new RegExp(
  `(?<![\\p{L}])(?:${FR_TYPES}|straße|strasse|laan|weg|plein|kade|dreef|steenweg|chaussée|${SOUTH_TYPES})[ \\t]+[\\p{L}'’.-]+(?:[ \\t][\\p{L}'’.-]+){0,5}[ \\t]+(?:${NUM})$`,
  'iu',
);
// UK: number, street words, a street type; then optional locality/town parts before the postcode.
const UK_TYPES =
  'Street|St|Road|Rd|Avenue|Ave|Lane|Ln|Drive|Dr|Close|Way|Place|Pl|Court|Ct|Gardens|Gdns|Crescent|Cres|Terrace|Square|Sq|Hill|Row|Grove|Park|Mews|Walk|Green|Parade|Rise|View|Boulevard|Embankment|Broadway|Wharf|Yard|Gate';
const UK_STREET = new RegExp(
  `${B}(?:(?:Flat|Apt\\.?|Apartment|Unit)[ \\t]\\d{1,4}[A-Za-z]?,?[ \\t])?\\d{1,4}[A-Za-z]?,?[ \\t]+(?:${CAP}[ \\t]){1,3}(?:${UK_TYPES})\\.?(?:,?[ \\t]*\\n?[ \\t]*${CAP}(?:[ \\t]${CAP}){0,2}){0,3},?[ \\t]*\\n?[ \\t]*$`,
  'u',
);
// Without a street type word ("56 Kingsway, Manchester M19 2LL"): the town must follow a comma.
const UK_STREET_BARE = new RegExp(
  `${B}\\d{1,4}[A-Za-z]?[ \\t]+${CAP}(?:[ \\t]${CAP}){0,2},[ \\t]*\\n?[ \\t]*${CAP}(?:[ \\t]${CAP}){0,2},?[ \\t]*\\n?[ \\t]*$`,
  'u',
);

// A UK address written one part a line, as a label or a "Ship to:" block has it: a line of its own
// that is a house number and a street's name without a street word ("41 Kingsway"), maybe a town's
// line under it, right above the postcode's line. The lines make it an address where prose would
// need the comma of UK_STREET_BARE.
const UK_STREET_LINES = new RegExp(
  `(?:^|\\n)[ \\t]*(\\d{1,4}[A-Za-z]?[ \\t]+${CAP}(?:[ \\t]${CAP}){0,2}[ \\t]*\\n(?:[ \\t]*${CAP}(?:[ \\t]${CAP}){0,2},?[ \\t]*\\n)?)[ \\t]*$`,
  'u',
);
// The addressee's line right above such a block: initials and a surname, maybe after a title ("Mr J.
// Carter", "J. Carter", "Mrs A. M. Evans"), or a title and a surname ("Mr Carter"). Above an address a
// line of this form is a person's; the title stays outside the span, as in person.ts.
const ADDRESSEE_LINE =
  /(?:^|\n)[ \t]*(?:(?:Mr|Mrs|Ms|Miss|Mx|Dr)\.?[ ]+)?((?:\p{Lu}\.[ ]?){1,3}[ ]?\p{Lu}\p{Ll}{1,30}(?:[- ]\p{Lu}\p{Ll}{1,30})?)[ \t]*\n$|(?:^|\n)[ \t]*(?:Mr|Mrs|Ms|Miss|Mx|Dr)\.?[ ]+(\p{Lu}\p{Ll}{1,30}(?:[- ]\p{Lu}\p{Ll}{1,30})?)[ \t]*\n$/u;

const CITY_TOKEN = "\\p{Lu}[\\p{L}'’]*(?:-\\p{L}[\\p{L}'’]*)*";
const CITY = new RegExp(
  `[ \\t\\u00a0]+(?:(?:'s-|Den[ ]|De[ ]|La[ ]|Le[ ]|Les[ ]|Bad[ ]|Sankt[ ]|St\\.[ ]|Saint[ ]|Sint[ ])?${CITY_TOKEN}(?:[ ](?:am|an der|an|aan de|aan den|aan|sur|sous|en|bei|im|ob|upon|on|le|la)[ ]${CITY_TOKEN})?(?:[ ]?\\((?:${CITY_TOKEN})\\))?)`,
  'uy',
);

const CITY_PREFIX = new Set(['Den', 'De', 'La', 'Le', 'Les', 'Bad', 'Sankt', 'St.', 'Saint', 'Sint']);

const WINDOW = 100;

function isBlank(c: number): boolean {
  return c === 32 || c === 9;
}

/**
 * Start of the separator between the street part and the postcode at `pcStart` — a comma, spaces,
 * or one line break, with spaces around them — read within WINDOW characters before it; -1 when
 * there is none. (A regex ending in `$` tried every position of the window, several times over.)
 */
export function separatorStart(text: string, pcStart: number): number {
  const from = Math.max(0, pcStart - WINDOW);
  let k = pcStart;
  while (k > from && isBlank(text.charCodeAt(k - 1))) k--;
  if (k > from && text.charCodeAt(k - 1) === 10) {
    k--;
    while (k > from && isBlank(text.charCodeAt(k - 1))) k--;
    return k;
  }
  if (k > from && text.charCodeAt(k - 1) === 44) return k - 1;
  return k < pcStart ? k : -1;
}

/** Start of the line holding `at`, looking back at most `limit` characters. */
function lineStart(text: string, at: number, limit: number): number {
  const from = Math.max(0, at - limit);
  let i = at;
  while (i > from && text.charCodeAt(i - 1) !== 10) i--;
  return i;
}

/**
 * Where an address ends at a postcode read without its street (the budget is spent, see
 * ../budget.ts): the street is somewhere on the postcode's line or on the line above, so all of
 * that is taken — a few words too many rather than a street let through. Never before `floor`,
 * the end of the previous address.
 */
function coarseStart(text: string, sepStart: number, floor: number): number {
  let start = lineStart(text, sepStart, WINDOW);
  // The postcode opens its line: the street is on the line above.
  if (start === sepStart || text.slice(start, sepStart).trim() === '') {
    if (start > 0 && text.charCodeAt(start - 1) === 10) start = lineStart(text, start - 1, WINDOW);
  }
  // Not in the middle of a word: a word cut by the window is taken whole (within a bound).
  for (let back = 0; back < 32 && start > 0 && isLetterCode(text.charCodeAt(start - 1)); back++) start--;
  return Math.max(start, floor);
}

function cityAfter(text: string, end: number): number {
  CITY.lastIndex = end;
  const m = CITY.exec(text);
  if (!m) return -1;
  // The town must not be a function word ("10115 Sie …" is not a town); "Den Haag", "Le Havre"
  // and the like are read as one town by the regex.
  const first = m[0].trim().split(/[ -]/)[0]!;
  if (isNonNameWord(first) && !CITY_PREFIX.has(first)) return -1;
  // "Bilthoven en Sanne Visser": the French link of "Châlons en Champagne" is Dutch for "and", and
  // a first name after it starts a person, whom the town would otherwise swallow (leaving the
  // surname in clear).
  const link = EN_LINK.exec(m[0]);
  if (link !== null && isKnownFirstName(link[1]!)) return end + link.index;
  return end + m[0].length;
}
const EN_LINK = /[ ]en[ ](\p{Lu}[\p{L}'’-]*)/u;

/** Start of the street part ending right before `sepStart`, or -1. */
function streetStart(text: string, sepStart: number, kind: 'continental' | 'uk'): number {
  const from = Math.max(0, sepStart - WINDOW);
  let win = text.slice(from, sepStart);
  // At most the current line and the one above.
  const nl = win.lastIndexOf('\n');
  const nl2 = nl > 0 ? win.lastIndexOf('\n', nl - 1) : -1;
  let base = from;
  if (kind === 'uk' && nl >= 0 && win.slice(nl + 1).trim() === '') {
    // The postcode opens its line: the street may be two lines up, with the town's line between.
    const nl3 = nl2 > 0 ? win.lastIndexOf('\n', nl2 - 1) : -1;
    if (nl3 >= 0) {
      win = win.slice(nl3 + 1);
      base = from + nl3 + 1;
    }
    const m = UK_STREET.exec(win) ?? UK_STREET_BARE.exec(win) ?? UK_STREET_LINES.exec(win);
    if (!m) return -1;
    return m[1] === undefined ? base + m.index : base + m.index + m[0].indexOf(m[1]);
  }
  if (nl2 >= 0) {
    win = win.slice(nl2 + 1);
    base = from + nl2 + 1;
  }
  if (kind === 'uk') {
    const m = UK_STREET.exec(win) ?? UK_STREET_BARE.exec(win);
    return m ? base + m.index : -1;
  }
  const fr = FR_STREET.exec(win) ?? TYPE_FIRST.exec(win);
  if (fr) return base + fr.index;
  // Street-first: street words must be on one line; trim leading function words ("Mijn", "Wir").
  const lineStart = win.lastIndexOf('\n') + 1;
  const line = win.slice(lineStart);
  const m = STREET_FIRST.exec(line);
  if (!m) return -1;
  let s = m.index;
  const street = m.groups!.street!;
  const tokens = street.split(/[ \t]+/);
  let i = 0;
  const trim = (t: string) => isNonNameWord(t) && !isStreetLeadingWord(t);
  while (i < tokens.length - 1 && trim(tokens[i]!)) {
    s += tokens[i]!.length;
    while (line[s] === ' ' || line[s] === '\t') s++;
    i++;
  }
  if (i === tokens.length - 1 && trim(tokens[i]!)) return -1;
  return base + lineStart + s;
}

/**
 * Whether a postcode can have its first digit at the digit run at `p`: four or five digits (NL,
 * DE, FR, BE …), or a UK outward code — one or two digits right after a capital letter ("NW1",
 * "M19") — or the "0" of GIR 0AA.
 */
function postcodeCanStartAt(text: string, p: number): boolean {
  const len = runLength(text, p);
  if (len === 4 || len === 5) return true;
  if (len > 2) return false;
  const before = text.charCodeAt(p - 1);
  if (before >= 65 && before <= 90) return true;
  return text.startsWith('GIR', p - 4) || text.startsWith('GIR', p - 3);
}

export function findAddresses(text: string, scan?: TextScan): Detection[] {
  const s = scanOf(text, scan);
  const { digitRuns } = s;
  if (digitRuns.length === 0) return [];
  const out: Detection[] = [];
  // A postcode starts at most four characters before its first digit ("GIR 0AA", "D-10115").
  const starts = digitRuns.filter((p) => postcodeCanStartAt(text, p));
  const postcodes = new Matcher(POSTCODE, s, starts, { back: 4 });
  let lastEnd = 0;
  for (let m = postcodes.exec(); m; m = postcodes.exec()) {
    const g = m.groups!;
    const pcStart = m.index;
    const pcEnd = pcStart + m[0].length;
    const sepStart = separatorStart(text, pcStart);
    if (sepStart < 0) continue;
    let start: number;
    let end: number;
    const full = s.budget.take(COST.address);
    if (g.uk) {
      start = full ? streetStart(text, pcStart, 'uk') : coarseStart(text, sepStart, lastEnd);
      end = pcEnd;
    } else {
      // The town first: cheaper than the street, and most 4- and 5-digit numbers have none.
      const cityEnd = cityAfter(text, pcEnd);
      // NL postcodes (1234 AB) are distinctive enough on their own; digit-only ones need a town.
      if (cityEnd < 0 && !g.nl) continue;
      start = full ? streetStart(text, sepStart, 'continental') : coarseStart(text, sepStart, lastEnd);
      end = cityEnd < 0 ? pcEnd : cityEnd;
    }
    if (start < 0) continue;
    lastEnd = end;
    const value = text.slice(start, end);
    if (g.uk && full) addressee(text, start, out);
    out.push({ type: 'ADDRESS', start, end, text: value, checksum: false, normalized: value.replace(/\s+/g, ' ').toLowerCase() });
    postcodes.lastIndex = end;
  }
  return out;
}

/** The addressee on the line right above a UK address that opens its line (ADDRESSEE_LINE), read within WINDOW characters. */
function addressee(text: string, start: number, out: Detection[]): void {
  if (start === 0 || text.charCodeAt(start - 1) !== 10) return;
  const from = Math.max(0, start - WINDOW);
  const win = text.slice(from, start);
  const m = ADDRESSEE_LINE.exec(win);
  if (!m) return;
  const name = (m[1] ?? m[2])!;
  const at = from + m.index + m[0].lastIndexOf(name);
  out.push({ type: 'PERSON', start: at, end: at + name.length, text: name, checksum: false });
}

export const addressRecognizer: Recognizer = {
  type: 'ADDRESS',
  needsDigit: true,
  detect(text: string, _language: Language, scan?: TextScan): Detection[] {
    return findAddresses(text, scan);
  },
};
