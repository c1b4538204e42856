// Phone numbers, validated by libphonenumber-js (full "max" metadata: per-country number plans,
// not just lengths). The default region comes from the message language (nl→NL, de→DE, fr→FR,
// en→GB); international numbers (+CC / 00CC) are recognised whatever the language. Spanish,
// Italian and Polish numbers in national form, which none of these regions reads, are read under
// their own plans where a phone word of those languages, an English one or a phone column names
// them (phone-es-it-pl.ts).
//
// Cost control: a precompiled pre-filter finds digit-dense runs (≥ 7 digits with phone-style
// separators); only those runs are handed to libphonenumber, so digit-free or digit-poor text never
// reaches it. A run that could not be accepted anyway (no +/00/0 prefix and no phone cue, or a
// date) is dropped before parsing; a run is parsed whole first (cheap) and searched for several
// numbers only when it is long enough to hold more than one. Context then removes what the number plan alone cannot: dates, amounts, order and
// invoice numbers that happen to fit a national plan. libphonenumber's calls draw on the request's
// work budget (../budget.ts); once it is spent, a run written like a phone number is masked as one
// without consulting the number plan.
import { findNumbers, parsePhoneNumberFromString, type CountryCode } from 'libphonenumber-js/max';
import { NON_PERSONAL_NUMBER_CUE, cueDistance, nearestCue } from '../context.js';
import { COST, type WorkBudget } from '../budget.js';
import { digitCount, digitsOnly } from '../checksums.js';
import { Matcher, isClaimed, isDigitCode, isLetterCode, runLength, scanOf, type TextScan } from '../scan.js';
import type { Detection, Language, Recognizer } from '../types.js';
import { esItPlReading, type EsItPlReading } from './phone-es-it-pl.js';

export const REGION_OF_LANGUAGE: Record<Language, CountryCode> = { nl: 'NL', en: 'GB', fr: 'FR', de: 'DE' };
const FALLBACK_REGIONS: CountryCode[] = ['NL', 'BE', 'DE', 'FR', 'GB'];

// A run that starts with '+', '(' or a digit, holds only digits and phone separators, and ends with a
// digit. Bounded quantifiers and a single character class: linear time.
// A comma before the run is a CSV separator ("…@gmail.com,07500 151849"), unless a digit precedes it
// ("1,234,567").
// An en dash is a hyphen as word processors and phones write it ("tel 06–12345678": QA 2026-11-27c,
// only "12345678" was masked).
const RUN = /(?<![\p{L}\p{N}@_+\-\u2013/.])(?<!\d,)(?:\+\s?)?\(?\d[\d ()./\u2013-]{5,24}\d(?![\p{L}\p{N}@_]|[.,]\d)/gu;
const DATE_LIKE = /^(?:\d{1,2}[-./]\d{1,2}[-./](?:\d{4}|\d{2})|\d{4}[-./]\d{1,2}[-./]\d{1,2})$/;
// A date with the time after it, as logs write them: "20241126 093015", "20241126093015",
// "2024-11-26 09" (the run ends at the time's colon: "2024-11-26 09:30:15.123"), "26/11/2024 0930".
// With a phone cue nearby ("API call at 20241126 093015") libphonenumber accepted some as numbers.
const TIMESTAMP =
  /^(?:(?:19|20)\d{2}([-./]?)(?:0[1-9]|1[0-2])\1(?:0[1-9]|[12]\d|3[01])|(?:0?[1-9]|[12]\d|3[01])([-./])(?:0?[1-9]|[12]\d|3[01])\2(?:19|20)\d{2})(?:[ T_-]?(?:[01]\d|2[0-3])(?:[0-5]\d){0,2}(?:[.,]\d{1,6})?)?$/;
// A date with a two-digit year, then an hour whose minutes follow a colon, as chat logs and exports
// stamp their lines ("[26-11-24 09:14:22] Fenna: …", "26.11.24 09:14"): the run ends at the colon,
// and "26-11-24 09" fits some national plans (QA 2026-11-27c: every line's stamp was one
// [PHONE_1]). Day and month either way round. A date followed by a time is never a phone number.
const SHORT_DATE_HOUR = /^(?:0?[1-9]|[12]\d|3[01])([-./])(?:0?[1-9]|[12]\d|3[01])\1\d{2}[ T](?:[01]?\d|2[0-3])$/;

/** Whether the run at `index` is a short date and an hour with ":MM" right after it in the text. */
function dateThenClock(text: string, run: string, index: number): boolean {
  if (!SHORT_DATE_HOUR.test(run)) return false;
  const e = index + run.length;
  return text.charCodeAt(e) === 58 && isDigitCode(text.charCodeAt(e + 1)) && isDigitCode(text.charCodeAt(e + 2));
}
// "0.8472…": a fraction, not a trunk prefix (a national number's 0 is followed by its area code).
const DECIMAL_FRACTION = /^0[.,]\d/;
const TIME_OR_VERSION = /^\d{1,2}[:.]\d{2}(?:[:.]\d{2})?$|^\d+\.\d+\.\d+/;
// "06.12.34.56.78", "07912.795.337", "0151.2345.6789": a national number with a trunk 0 written with
// dots, which TIME_OR_VERSION would take for a version; libphonenumber still has to accept it.
const DOTTED_PHONE = /^0\d{1,4}(?:\.\d{2,4}){2,4}$/;

function timeOrVersion(run: string): boolean {
  return TIME_OR_VERSION.test(run) && !(DOTTED_PHONE.test(run) && digitCount(run) >= 9);
}

export const PHONE_CUE = new RegExp(
  [
    '\\btel\\b', 'telefo', 'phone', '\\bcall', '\\bring\\b', 'text me', 'whats\\s?app', '\\bsms\\b', '\\bcell', '\\bmobile?\\b',
    '\\bmob\\b', '\\bfax', 'reach me', 'contact', 'dial', 'landline',
    '\\bbel\\b', '\\bbellen', 'gebeld', 'belt\\b', 'mobiel', '\\bgsm', '06-nummer', 'terugbellen', 'bereikbaar',
    'telefon', 'handy', '\\bmobil\\b', 'rufnummer', 'anruf', '\\bruf', 'erreichbar', 'festnetz', 'durchwahl',
    'téléphone', 'telephone', '\\btél', 'portable', 'appel', 'joindre', 'fixe', 'rappeler',
    // Someone's "number" is their phone number ("Sanne's number is …", "mijn nummer is …"); an
    // order or account number has its noun in between ("my order number"), which these don't match.
    'reachable', "['’]s\\s+number\\b", '\\b(?:my|your|his|her|their|our)\\s+number\\b',
    '\\b(?:mijn|jouw|je|zijn|haar|hun|ons|uw)\\s+nummer\\b', '\\b(?:meine|deine|seine|ihre|unsere|eure)\\s+nummer\\b',
    '\\b(?:mon|ton|son|sa|votre|notre|leur)\\s+numéro\\b',
  ].join('|'),
  'i',
);

const WINDOWS = { before: 40, after: 20 };

interface Candidate {
  start: number;
  end: number;
  e164: string;
}

function trimBrackets(run: string, s: number, e: number): [number, number] {
  // "(06 12345678)": keep an unbalanced bracket outside the number.
  const value = run.slice(s, e);
  if (value.startsWith('(') && !value.includes(')')) s++;
  if (value.endsWith(')') && !value.includes('(')) e--;
  return [s, e];
}

const ANOTHER_NUMBER_INSIDE = /[\s(/](?:\+|0)\d/;
const TRUNK_PREFIXED = /^\(?0[1-9]/;

/** Whether no candidate starts where the run does (maybe after its opening bracket). */
function leavesHeadOut(found: Candidate[], runIndex: number): boolean {
  return found.every((c) => c.start > runIndex + 1);
}

/** The run's numbers under `region`; null when the budget could not pay for reading them. */
function findInRun(run: string, offset: number, budget: WorkBudget, region: CountryCode): Candidate[] | null {
  if (!budget.take(COST.phoneParse)) return null;
  const whole = parsePhoneNumberFromString(run, region);
  if (whole?.isValid()) {
    const [s, e] = trimBrackets(run, 0, run.length);
    return [{ start: offset + s, end: offset + e, e164: whole.number }];
  }
  // Several numbers in one run ("020 1234567 / 06 12345678"), or a number after other digits.
  if (digitCount(run) < 12 && !ANOTHER_NUMBER_INSIDE.test(run)) return [];
  if (!budget.take(COST.phoneSearch)) return null;
  const out: Candidate[] = [];
  for (const f of findNumbers(run, { defaultCountry: region, v2: true })) {
    const [s, e] = trimBrackets(run, f.startsAt, f.endsAt);
    out.push({ start: offset + s, end: offset + e, e164: f.number.number });
  }
  return out;
}

function accept(s: TextScan, c: Candidate, cued: boolean): boolean {
  const value = s.text.slice(c.start, c.end);
  if (DATE_LIKE.test(value) || timeOrVersion(value) || TIMESTAMP.test(value)) return false;
  const international = value.startsWith('+') || value.startsWith('00');
  const trunk = /^\(?0/.test(value);
  const verdict = nearestCue(s, c.start, c.end, PHONE_CUE, NON_PERSONAL_NUMBER_CUE, WINDOWS);
  if (verdict === 'negative') return false;
  // Numbering plans allow short national numbers (a German "020-4812"), but people rarely have
  // them; without a cue a national number needs eight digits.
  if (!international && digitCount(value) < 8 && !cued && verdict !== 'positive') return false;
  if (verdict === 'positive' || cued) return true;
  // Without a cue, only numbers written the way people write phone numbers: international, or
  // national with the trunk prefix 0. A bare run of digits is more likely an id or an amount.
  return international || trunk;
}

export function findPhones(text: string, language: Language, scan?: TextScan): Detection[] {
  const s = scanOf(text, scan);
  if (s.digitRuns.length === 0) return [];
  const region = REGION_OF_LANGUAGE[language];
  const out: Detection[] = whatsAppLinkNumbers(s);
  for (const { run, index, worth, esItPl } of runsWorthParsing(s)) {
    // Inside an IBAN, card or national number: overlap resolution would drop the phone anyway.
    if (s.claimed.length > 0 && isClaimed(s, index, index + run.length)) continue;
    // A Spanish, Italian or Polish word (or column) names the country: its plan first.
    const named = esItPl?.named ? readEsItPl(s, run, index, esItPl.regions) : null;
    if (named !== null) {
      out.push(named);
      continue;
    }
    const found = worth ? readRun(s, run, index, region) : [];
    for (const d of found) out.push(d);
    if (found.length === 0 && esItPl !== null && !esItPl.named) {
      const d = readEsItPl(s, run, index, esItPl.regions);
      if (d !== null) out.push(d);
    }
  }
  return out;
}

// "wa.me/" (WhatsApp's click-to-chat link) right before 8 to 15 digits (E.164's most): the link's
// path is a phone number, international without its "+" ("https://wa.me/31612345678"), or with it. RUN leaves digits after a
// slash alone (paths, dates, versions), so these were sent in clear (QA 2026-11-27) while
// "tel:+31612345678" was masked. "api.whatsapp.com/send?phone=…" is read by its query key (structure.ts).
const WA_ME = 'wa.me/';
const WA_NUMBER_DIGITS = { min: 8, max: 15 };

/**
 * The numbers of the text's wa.me links. Each is keyed by its digits as written, not by its E.164
 * form: a placeholder restores to the form first seen, and "wa.me/06 12345678" would be no link;
 * the same number written elsewhere in text gets a placeholder of its own.
 */
function whatsAppLinkNumbers(s: TextScan): Detection[] {
  const { text } = s;
  let out: Detection[] | undefined;
  for (const p of s.digitRuns) {
    const plus = text.charCodeAt(p - 1) === 43;
    const slash = p - (plus ? 2 : 1);
    if (text.charCodeAt(slash) !== 47 || !linkHostBefore(text, slash + 1)) continue;
    const len = runLength(text, p);
    if (len < WA_NUMBER_DIGITS.min || len > WA_NUMBER_DIGITS.max || isWordCode(text.charCodeAt(p + len))) continue;
    const start = plus ? p - 1 : p;
    const value = text.slice(start, p + len);
    // No number plan asked: the link's path is the number WhatsApp dials, whatever the plan says of
    // it (libphonenumber finds QA's "+491512345678" a digit short for a German mobile, and the
    // link still reaches someone, or was meant to).
    (out ??= []).push({ type: 'PHONE', start, end: p + len, text: value, checksum: false, normalized: text.slice(p, p + len) });
  }
  return out ?? [];
}

/** Whether "wa.me/" ends at `at`, as a host of its own (not "java.me/"), in any case. */
function linkHostBefore(text: string, at: number): boolean {
  const from = at - WA_ME.length;
  if (from < 0 || text.slice(from, at).toLowerCase() !== WA_ME) return false;
  const c = text.charCodeAt(from - 1);
  return !(isWordCode(c) || c === 45 || c === 46);
}

function isWordCode(c: number): boolean {
  return (c >= 48 && c <= 57) || isLetterCode(c) || c === 95;
}

/** The phone numbers of one run worth parsing, read under the language's region and the fallbacks. */
function readRun(s: TextScan, run: string, index: number, region: CountryCode): Detection[] {
  const { text } = s;
  let found = findInRun(run, index, s.budget, region);
  let cued = false;
  const trunkPrefixed = TRUNK_PREFIXED.test(run);
  if (found !== null && (found.length === 0 || (trunkPrefixed && leavesHeadOut(found, index)))) {
    // A national number from another country than the language suggests (a Belgian number in a
    // Dutch message, a German mobile in a Dutch one, a Dutch mobile in an English one, or a short
    // message whose language was guessed wrong): when written with the trunk prefix 0, or with an
    // explicit phone cue. A region that reads only the end of a trunk-prefixed run as a number
    // ("0176 25965890" under NL or BE: "25965890") is kept only when no region reads the run from
    // its start: it would leave the prefix in clear, beside a placeholder.
    const partial = found.length > 0 ? found : null;
    cued = nearestCueIsPositive(s, index, index + run.length);
    if (!cued && !trunkPrefixed) return [];
    let fallbackPartial: Candidate[] | null = null;
    for (const r of FALLBACK_REGIONS) {
      if (r === region) continue;
      found = findInRun(run, index, s.budget, r);
      if (found === null) break;
      if (found.length === 0) continue;
      if (!trunkPrefixed || !leavesHeadOut(found, index)) break;
      fallbackPartial ??= found;
      found = [];
    }
    if (found !== null && found.length === 0) {
      // The language's own reading first, as before; its candidates are judged without the cue.
      if (partial) {
        found = partial;
        cued = false;
      } else if (fallbackPartial) found = fallbackPartial;
    }
  }
  if (found === null) return [spentBudgetReading(text, run, index)];
  const out: Detection[] = [];
  for (const c of found) {
    if (!accept(s, c, cued)) continue;
    out.push({ type: 'PHONE', start: c.start, end: c.end, text: text.slice(c.start, c.end), checksum: false, normalized: c.e164 });
  }
  return out;
}

/**
 * The budget is spent (see budget.ts): without the number plan or the words around it, a run
 * written like a phone number (see runsWorthParsing), or named one by a word, is taken for one —
 * masking a number too many rather than letting one through.
 */
function spentBudgetReading(text: string, run: string, index: number): Detection {
  const [start, end] = trimBrackets(run, 0, run.length);
  const value = text.slice(index + start, index + end);
  return { type: 'PHONE', start: index + start, end: index + end, text: value, checksum: false, normalized: digitsOnly(value) };
}

/** The run read under the first of `regions` whose plan accepts it whole (phone-es-it-pl.ts), or null. */
function readEsItPl(s: TextScan, run: string, index: number, regions: readonly CountryCode[]): Detection | null {
  for (const r of regions) {
    if (!s.budget.take(COST.phoneParse)) return spentBudgetReading(s.text, run, index);
    const number = parsePhoneNumberFromString(run, r);
    if (number?.isValid()) return { type: 'PHONE', start: index, end: index + run.length, text: run, checksum: false, normalized: number.number };
  }
  return null;
}

interface Run {
  run: string;
  index: number;
  /** Worth reading under the language's region and the fallbacks (see runsWorthParsing). */
  worth: boolean;
  /** How to read it as a Spanish, Italian or Polish number, when something names it one. */
  esItPl: EsItPlReading | null;
}

// Per text (per pre-scan): the runs worth parsing, shared by phoneRegionMatters and findPhones.
const runsOfScan = new WeakMap<TextScan, Run[]>();

/** The digit runs of the text that are worth handing to libphonenumber, in text order. */
function runsWorthParsing(s: TextScan): Run[] {
  let out = runsOfScan.get(s);
  if (out) return out;
  out = [];
  // A run starts at most three characters ("+ (") before its first digit.
  const runs = new Matcher(RUN, s, s.digitRuns, { back: 3 });
  for (let m = runs.exec(); m; m = runs.exec()) {
    const run = m[0];
    const index = m.index;
    const digits = digitCount(run);
    if (digits < 6 || DATE_LIKE.test(run) || DECIMAL_FRACTION.test(run) || TIMESTAMP.test(run) || dateThenClock(s.text, run, index)) continue;
    let cued: boolean | undefined;
    const phoneCued = () => (cued ??= nearestCueIsPositive(s, index, index + run.length));
    const worth = digits >= 7 && !timeOrVersion(run) && (/^\(?(?:\+|0)/.test(run) || ANOTHER_NUMBER_INSIDE.test(run) || phoneCued());
    const esItPl = digits <= 11 ? esItPlReading(s, run, index, phoneCued, WINDOWS) : null;
    if (worth || esItPl !== null) out.push({ run, index, worth, esItPl });
  }
  runsOfScan.set(s, out);
  return out;
}

/**
 * Whether the default region — the message language — can change what `findPhones` finds in
 * `text`. Only runs worth parsing count, and of those not a lone international number
 * ("+31 6 12345678"): libphonenumber reads "+CC" the same whatever the default region.
 */
export function phoneRegionMatters(text: string, scan?: TextScan): boolean {
  const s = scanOf(text, scan);
  if (s.digitRuns.length === 0) return false;
  for (const { run, worth } of runsWorthParsing(s)) {
    if (!worth) continue;
    const lone = run.startsWith('+') && digitCount(run) < 12 && !ANOTHER_NUMBER_INSIDE.test(run);
    if (!lone) return true;
  }
  return false;
}

/** `nearestCue(…) === 'positive'`, without reading the negative cues when there is no phone cue. */
function nearestCueIsPositive(s: TextScan, start: number, end: number): boolean {
  const p = cueDistance(s, start, end, PHONE_CUE, WINDOWS);
  return p !== Infinity && p <= cueDistance(s, start, end, NON_PERSONAL_NUMBER_CUE, WINDOWS);
}

export const phoneRecognizer: Recognizer = {
  type: 'PHONE',
  needsDigit: true,
  detect: findPhones,
};
