// Dates of birth: a real calendar date (numeric or with a month name in nl/en/fr/de) with a birth
// cue just before it ("geboren op", "date of birth:", "né le", "Geburtsdatum") or just after it
// ("… 1985 geboren"). Other dates (appointments, timestamps, invoice dates) are not personal data
// by themselves and are left alone.
import { cueDistance, questionBefore } from '../context.js';
import { Matcher, isLetterCode, isSpaceCode, runLength, scanOf, type TextScan } from '../scan.js';
import type { Detection, Language, Recognizer } from '../types.js';

const MONTHS: Array<[number, string[]]> = [
  [1, ['januari', 'january', 'janvier', 'januar', 'jänner', 'jan']],
  [2, ['februari', 'february', 'février', 'fevrier', 'februar', 'feb', 'febr', 'fév', 'fevr', 'févr']],
  [3, ['maart', 'march', 'mars', 'märz', 'maerz', 'mrt', 'mar', 'mär']],
  [4, ['april', 'avril', 'apr', 'avr']],
  [5, ['mei', 'may', 'mai']],
  [6, ['juni', 'june', 'juin', 'jun']],
  [7, ['juli', 'july', 'juillet', 'jul', 'juil']],
  [8, ['augustus', 'august', 'août', 'aout', 'aug']],
  [9, ['september', 'septembre', 'sep', 'sept']],
  [10, ['oktober', 'october', 'octobre', 'okt', 'oct']],
  [11, ['november', 'novembre', 'nov']],
  [12, ['december', 'décembre', 'decembre', 'dezember', 'dec', 'déc', 'dez']],
];
// Spanish, Italian and Polish months (Polish as dates write them, "12 sierpnia 1949", and as
// forms do, "sierpień"): a birth date with its cue is one in any language's text.
const MONTHS_ES_IT_PL: Array<[number, string[]]> = [
  [1, ['enero', 'gennaio', 'stycznia', 'styczeń', 'styczen']],
  [2, ['febrero', 'febbraio', 'lutego', 'luty']],
  [3, ['marzo', 'marca', 'marzec']],
  [4, ['abril', 'aprile', 'kwietnia', 'kwiecień', 'kwiecien']],
  [5, ['mayo', 'maggio', 'maja', 'maj']],
  [6, ['junio', 'giugno', 'czerwca', 'czerwiec']],
  [7, ['julio', 'luglio', 'lipca', 'lipiec']],
  [8, ['agosto', 'sierpnia', 'sierpień', 'sierpien']],
  [9, ['septiembre', 'setiembre', 'settembre', 'września', 'wrzesnia', 'wrzesień', 'wrzesien']],
  [10, ['octubre', 'ottobre', 'października', 'pazdziernika', 'październik', 'pazdziernik']],
  [11, ['noviembre', 'listopada', 'listopad']],
  [12, ['diciembre', 'dicembre', 'grudnia', 'grudzień', 'grudzien']],
];
for (const [n, names] of MONTHS_ES_IT_PL) MONTHS[n - 1]![1].push(...names);
// Portuguese ones not already among them ("nascido em 12 de março de 1985": QA 2026-11-27c).
const MONTHS_PT: Array<[number, string[]]> = [
  [1, ['janeiro']],
  [2, ['fevereiro']],
  [3, ['março']],
  [5, ['maio']],
  [6, ['junho']],
  [7, ['julho']],
  [9, ['setembro']],
  [10, ['outubro']],
  [11, ['novembro']],
  [12, ['dezembro']],
];
for (const [n, names] of MONTHS_PT) MONTHS[n - 1]![1].push(...names);
const MONTH_OF = new Map<string, number>();
for (const [n, names] of MONTHS) for (const name of names) MONTH_OF.set(name, n);
// Longest names first so that "juillet" is not read as "jul".
const MONTH_ALT = [...MONTH_OF.keys()].sort((a, b) => b.length - a.length).join('|');
// Spanish and Italian abbreviations not already above, as forms write them ("12-ago-1985"): looked
// up (ABBREVIATED_MONTH below) for the day-month-year form with hyphens, slashes or dots only; prose
// writes the month out. With a birth cue before the date, "set" or "ago" there are months.
const ABBREVIATIONS_ES_IT: Array<[number, string[]]> = [
  [1, ['ene', 'gen']],
  [2, ['fev']],
  [4, ['abr']],
  [5, ['mag']],
  [6, ['giu']],
  [7, ['lug']],
  [8, ['ago']],
  [9, ['set']],
  [10, ['ott', 'out']],
  [12, ['dic']],
];
const ABBREVIATED_MONTH_OF = new Map(MONTH_OF);
for (const [n, names] of ABBREVIATIONS_ES_IT) for (const name of names) ABBREVIATED_MONTH_OF.set(name, n);

const B = '(?<![\\p{L}\\p{N}])';
const E = '(?![\\p{L}\\p{N}])';
const DATE = new RegExp(
  [
    // 31-12-1985, 31.12.1985, 31/12/85, 12/31/1985 (US order accepted when unambiguous); and
    // 12-Mar-1985, 12/mrt/85, 12.Mär.1985, a form's or a database's day-month-year (Oracle writes
    // DD-MON-YY). Its month is any word of letters, looked up in parse(): the month names'
    // alternation here, or in an alternative of its own, made chat prompts some 2–3 % slower.
    `${B}(?<d1>\\d{1,2})(?<s1>[./-])(?:(?<m1>\\d{1,2})|(?<mn1>\\p{L}{3,12}))\\k<s1>(?<y1>\\d{4}|\\d{2})${E}`,
    // 1985-12-31
    `${B}(?<y2>(?:19|20)\\d{2})-(?<m2>\\d{1,2})-(?<d2>\\d{1,2})${E}`,
    // 31 december 1985, 31. Dezember 1985, 1er mars 1990, 3rd of May 1990, 4 de julio de 1965
    `${B}(?<d3>\\d{1,2})(?:er|e|st|nd|rd|th)?\\.?\\s+(?:(?:of|de)\\s+)?(?<mn3>${MONTH_ALT})\\.?,?\\s+(?:de\\s+)?(?<y3>\\d{4})${E}`,
    // December 31, 1985 / May 3rd 1990
    `${B}(?<mn4>${MONTH_ALT})\\.?\\s+(?<d4>\\d{1,2})(?:st|nd|rd|th)?,?\\s+(?<y4>\\d{4})${E}`,
  ].join('|'),
  'giu',
);

// Portuguese ones too ("data de nascimento:", "nascido em", "nasci a", "nasceu em").
// Spanish, Italian and Polish cues too ("Fecha de nacimiento:", "nacida el", "Data di nascita:",
// "nata il", "Data urodzenia:", "ur."). Italian "nato"/"nata" only before "il", "a" or "l'", as a
// birth is written ("nato a Roma il …"): "NATO" is an alliance with a founding date. The first
// person and the Italian past are told as often as the third ("Nací el 5/6/1982 en Sevilla", "nacqui
// il 3 maggio 1950"; QA 2026-11-27 sent the first in clear).
const CUE_BEFORE =
  /geboren|\bgeb\.|geboorte|verjaardag|jarig|\bborn\b|birth|\bdob\b|d\.o\.b|(?<!\p{L})née?(?!\p{L})|naissance|anniversaire|geburt|nacimiento|nacid[oa]s?(?!\p{L})|naci[óo](?!\p{L})|(?<!\p{L})nac[ií](?!\p{L})|(?<!\p{L})nacqu[ei](?!\p{L})|cumpleaños|nascita|(?<!\p{L})nat[oa][ \u00a0](?:il|a|l['’])(?!\p{L})|compleanno|urodz|(?<!\p{L})ur\.|nascimento|(?<!\p{L})nascid[oa]s?(?!\p{L})|(?<!\p{L})nasc(?:i|eu|eram)(?!\p{L})|anivers[áa]rio/iu;
// What joins the dates of one list: a comma or semicolon, a conjunction of the four languages (and
// of Spanish, Italian, Polish), or both; nothing else, so a date after other words is not listed.
const LIST_GAP = /^[ \u00a0]*(?:[,;&][ \u00a0]*)?(?:(?:and|en|und|et|y|e|i|oraz)[ \u00a0]+)?$/u;
const LIST_GAP_MAX = 12;
// What makes a listed date one of its own, not of the list (QA 2026-11-27: "born on 3 May 2012, and
// 17 Sept 2025 is when the lease ends", "DOB: 12/04/1985, 01/01/2020 (start)" masked the second as
// a date of birth): a verb or "when" right after it, which opens a sentence about that date, or a
// bracketed note that names another event.
const OWN_CONTEXT_AFTER =
  /^[ \u00a0]*(?:\([ \u00a0]*(?:start|end|begin|beginning|expiry|expires|expiration|due|deadline|signed|issued|valid|until|renewal|renewed|hired|joined|left|moved|contract|lease|policy|today|now|beginn|ende|ablauf|einde|begin|ingang|vervaldatum|début|fin|échéance|inicio|vencimiento|inizio|fine|scadenza|początek|koniec)(?![\p{L}])|(?:is|was|will|would|marks|ist|war|wird|est|était|sera|es|fue|será|è|era|sarà|jest|był|była|będzie|wordt|werd|zal|when|wenn|als|quand|cuando|quando|kiedy)(?![\p{L}]))/iu;
const CUE_AFTER = /^[^\p{L}\p{N}]{0,3}(?:\p{L}+\s+){0,2}(?:geboren|born|née?(?!\p{L})|zur welt)/iu;
// A founding word right before a date makes it the founding's, whatever is said to be born after it:
// "De vereniging, opgericht op 12 maart 1902, werd geboren uit een fusie" was masked as a date of
// birth (QA 2026-11-27). A cue before the date still counts ("geboren op 12 maart 1902").
const FOUNDED_BEFORE =
  /(?:opgericht|gesticht|ontstaan|gegründet|gestiftet|founded|established|incorporated|fondée?s?|créée?s?|fundad[oa]|fondat[oa]|założon[ya])[ \u00a0]+(?:(?:op|in|am|im|on|le|en|el|il|nel|w)[ \u00a0]+)?(?:(?:de|den|der|the)[ \u00a0]+)?$/iu;
const FOUNDED_WINDOW = 32;

const DAYS = [31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];

function daysIn(month: number, year: number): number {
  const leap = (year % 4 === 0 && year % 100 !== 0) || year % 400 === 0;
  return month === 2 && leap ? 29 : DAYS[month - 1]!;
}

// The current year, looked up once per scan rather than per candidate date.
let thisYear = new Date().getUTCFullYear();

function fullYear(y: string): number {
  const n = Number(y);
  if (y.length === 4) return n;
  return n <= thisYear % 100 ? 2000 + n : 1900 + n;
}

function plausible(day: number, month: number, year: number): boolean {
  return year >= 1900 && year <= thisYear && month >= 1 && month <= 12 && day >= 1 && day <= daysIn(month, year);
}

/** Parses one DATE match to y/m/d, or null when it is not a real date. */
function parse(g: Record<string, string | undefined>): { y: number; m: number; d: number } | null {
  if (g.mn1 !== undefined) {
    const r = { y: fullYear(g.y1!), m: ABBREVIATED_MONTH_OF.get(g.mn1.toLowerCase()) ?? 0, d: Number(g.d1) };
    return plausible(r.d, r.m, r.y) ? r : null;
  }
  if (g.d1 !== undefined) {
    const y = fullYear(g.y1!);
    const a = Number(g.d1);
    const b = Number(g.m1);
    if (plausible(a, b, y)) return { y, m: b, d: a };
    if (plausible(b, a, y)) return { y, m: a, d: b }; // month first (US)
    return null;
  }
  if (g.y2 !== undefined) {
    const r = { y: Number(g.y2), m: Number(g.m2), d: Number(g.d2) };
    return plausible(r.d, r.m, r.y) ? r : null;
  }
  const mn = (g.mn3 ?? g.mn4)!.toLowerCase();
  const month = MONTH_OF.get(mn);
  const day = Number(g.d3 ?? g.d4);
  const year = Number(g.y3 ?? g.y4);
  if (!month || !plausible(day, month, year)) return null;
  return { y: year, m: month, d: day };
}

const pad = (n: number) => String(n).padStart(2, '0');

/**
 * Whether a DATE match can start at the digit run at `p`: 1–2 digits then a separator, a suffix
 * ("1er", "3rd"), a dot or a space (31-12-1985, 31 december, 1er mars), or 4 digits then a hyphen
 * (1985-12-31).
 */
function dateCanStartAt(text: string, p: number): boolean {
  const len = runLength(text, p);
  const c = text.charCodeAt(p + len);
  if (len === 4) return c === 45;
  if (len > 2) return false;
  return c === 46 || c === 47 || c === 45 || isSpaceCode(c) || (c >= 97 && c <= 122) || (c >= 65 && c <= 90);
}

/**
 * Where a DATE match can start: at the first digit of a digit run, or — month name first, "May 3,
 * 1990" — at the start of the word that ends right before the run's spaces (and optional dot).
 */
function dateStarts(text: string, digitRuns: readonly number[]): number[] {
  const out: number[] = [];
  for (const p of digitRuns) {
    let i = p;
    while (i > 0 && isSpaceCode(text.charCodeAt(i - 1))) i--;
    if (i < p) {
      if (i > 0 && text.charCodeAt(i - 1) === 46) i--; // "Dec. 31"
      let w = i;
      while (w > 0 && isLetterCode(text.charCodeAt(w - 1))) w--;
      if (w < i && w > (out.length > 0 ? out[out.length - 1]! : -1)) out.push(w);
    }
    if (dateCanStartAt(text, p)) out.push(p);
  }
  return out;
}

/**
 * Whether the date at [start, end) has the genealogical star for "born" before it ("Sohn,
 * *12.04.2010", "(* 3. Mai 1948 in Köln)"). Not Markdown's: bold ("**12.04.2010**") or a list
 * item's bullet at the start of a line ("* 12.04.2010 Planung").
 */
function bornStarBefore(text: string, start: number, end: number): boolean {
  let k = start - 1;
  const spaced = k >= 0 && (text.charCodeAt(k) === 32 || text.charCodeAt(k) === 0xa0);
  if (spaced) k--;
  if (k < 0 || text.charCodeAt(k) !== 42 || text.charCodeAt(k - 1) === 42 || text.charCodeAt(end) === 42) return false;
  if (!spaced) return true;
  for (let b = k - 1; b >= 0 && text.charCodeAt(b) !== 10; b--) if (!isSpaceCode(text.charCodeAt(b))) return true;
  return false;
}

/**
 * Whether the date at `start` has a short sign for "born" right before it: the degree sign of
 * Belgian and French records ("Jan Peeters, ° 12/03/1985", "°12.03.1985"; not a temperature's,
 * which follows a number: "20° 12/03"), or English "b." opening a bracket or after a comma ("(b. 4
 * Feb 1982)", "John Smith, b. 4 Feb 1982"; not a list's item "b.").
 */
function bornSignBefore(text: string, start: number): boolean {
  let k = start - 1;
  if (k >= 0 && (text.charCodeAt(k) === 32 || text.charCodeAt(k) === 0xa0)) k--;
  if (k < 0) return false;
  // Not after a digit (20°) nor a letter ("n° 12/03/2024", numéro; "T° 12/03", a temperature).
  if (text.charCodeAt(k) === 0xb0) return !(k > 0 && (isDigitCode(text.charCodeAt(k - 1)) || isLetterCode(text.charCodeAt(k - 1))));
  if (text.charCodeAt(k) !== 46 || k < 1 || (text.charCodeAt(k - 1) | 32) !== 98 /* b */) return false;
  const opener = text.charCodeAt(k - 2);
  if (!(opener === 40 /* ( */ || (opener === 32 && text.charCodeAt(k - 3) === 44 /* , */))) return false;
  // Not the second item of a list whose first is "a." ("Steps: a. 12/03/2024 kickoff, b. …").
  return !/(?:^|[\s(,:])a\.\s/.test(text.slice(Math.max(0, k - 120), k - 1));
}

/**
 * Whether the date at `start` answers a question about a birth on the line before ("Wat is uw
 * geboortedatum?" / "14 maart 1968", "Agent: Can you confirm your date of birth?" / "Caller: Yes,
 * it's the 14th of March 1968."): the first date of the answer's line (none read since `lastEnd`).
 */
function answersBirthQuestion(text: string, start: number, lastEnd: number): boolean {
  // Another date before it on its line: not the first (the gaps between dates add up to the text once).
  if (lastEnd >= 0 && text.slice(lastEnd, start).indexOf('\n') < 0) return false;
  const qa = questionBefore(text, start);
  if (qa === null || lastEnd > qa.answer.start) return false;
  return CUE_BEFORE.test(text.slice(qa.question.start, qa.question.end));
}

function isDigitCode(c: number): boolean {
  return c >= 48 && c <= 57;
}

export function findDatesOfBirth(text: string, scan?: TextScan): Detection[] {
  const s = scanOf(text, scan);
  const { digitRuns } = s;
  if (digitRuns.length === 0) return [];
  thisYear = new Date().getUTCFullYear();
  const out: Detection[] = [];
  const matches = new Matcher(DATE, s, dateStarts(text, digitRuns));
  // A birth cue is the first date's after it: "Geburtsdatum 12.03.1980, Eintrittsdatum 01.09.2015"
  // has one date of birth.
  let previousEnd = -1;
  // The end of the last date of birth: a date joined to it by "and", "en", "und", "et" or a comma
  // ("born on 3 May 2012 and 17 Sept 2015", "Geburtsdaten: 03.05.2012 und 17.09.2015") is a date
  // of birth of the same list, under the same cue; before, only the first was masked.
  let listEnd = -1;
  // The end of the last date read, of birth or not: only the first date of an answer answers.
  let anyEnd = -1;
  for (let m = matches.exec(); m; m = matches.exec()) {
    const date = parse(m.groups ?? {});
    if (!date) continue;
    const start = m.index;
    const end = start + m[0].length;
    const cueAt = start - cueDistance(s, start, end, CUE_BEFORE, { before: 48, after: 0 });
    const listed =
      listEnd >= 0 && start - listEnd <= LIST_GAP_MAX && LIST_GAP.test(text.slice(listEnd, start)) && !OWN_CONTEXT_AFTER.test(text.slice(end, end + 24));
    const before =
      cueAt > previousEnd || listed || bornStarBefore(text, start, end) || bornSignBefore(text, start) || answersBirthQuestion(text, start, anyEnd);
    anyEnd = end;
    const cueAfter = before || FOUNDED_BEFORE.test(text.slice(Math.max(0, start - FOUNDED_WINDOW), start)) ? null : CUE_AFTER.exec(text.slice(end, end + 30));
    const after = cueAfter !== null;
    // A cue after a date is that date's ("… 1985 geboren, lid sinds 2010"): the next date's cue must come later.
    previousEnd = end + (cueAfter?.[0].length ?? 0);
    if (!before && !after) {
      listEnd = -1;
      continue;
    }
    listEnd = end;
    out.push({
      type: 'DATE_OF_BIRTH',
      start,
      end,
      text: m[0],
      checksum: false,
      normalized: `${date.y}-${pad(date.m)}-${pad(date.d)}`,
    });
  }
  return out;
}

export const dateOfBirthRecognizer: Recognizer = {
  type: 'DATE_OF_BIRTH',
  needsDigit: true,
  detect(text: string, _language: Language, scan?: TextScan): Detection[] {
    return findDatesOfBirth(text, scan);
  },
};
