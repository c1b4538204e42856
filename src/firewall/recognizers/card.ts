// Payment card numbers (PANs): 12–19 digits, compact or grouped the way cards are printed
// (4-4-4-4[-3], Amex 4-6-5, Diners 4-6-4), a known issuer prefix for that length, and Luhn.
// The groups are one space or hyphen apart, or up to three spaces or a tab as text copied out of a
// PDF has them ("4106  9175  0358  5960"), the same gap each time.
//
// A card's security code after its label ("CVV 123", "CVC: 482", "security code 4821",
// "Prüfnummer 123", "cryptogramme 123") is part of the card, and typed CARD: with the number it
// pays. Three or four digits are anything elsewhere, so only a label makes one; a label that names
// other codes as well (security code, Prüfnummer, CID …) counts only with a card number or a card
// word near it.
import { luhnValid, digitsOnly } from '../checksums.js';
import { NON_PERSONAL_NUMBER_CUE, cueNear, nearestCue } from '../context.js';
import { Matcher, cuePositions, registerCue, runsWithDigits, scanOf, type TextScan } from '../scan.js';
import type { Detection, Language, Recognizer } from '../types.js';

// Not after "+" (or "+ "): card numbers are never written with a country code, and a compact
// international phone number ("+4915112345678") can pass Luhn with a Visa prefix.
const CANDIDATE = /(?<![\p{L}\p{N}.,/+-])(?<!\+[ \u00a0])\d(?:(?:[ \t-]| {2,3})?\d){11,18}(?![\p{L}\p{N}]|[.,/-]\d)/gu;
const GAP = /[ \t-]+/g;

const CARD_CUE =
  /card|kaart|karte|carte|\bcb\b|visa|master\s?card|\bamex\b|american express|maestro|v\s?pay|discover|\bjcb\b|diners|\bpan\b|cvv|cvc|expir|vervaldatum|gültig bis|date d'expiration/i;

interface Scheme {
  prefixes: Array<[number, number]>; // inclusive ranges over the first N digits (N = digits of the bound)
  lengths: number[];
}

const SCHEMES: Scheme[] = [
  { prefixes: [[4, 4]], lengths: [13, 16, 19] }, // Visa
  { prefixes: [[51, 55], [2221, 2720]], lengths: [16] }, // Mastercard
  { prefixes: [[34, 34], [37, 37]], lengths: [15] }, // American Express
  { prefixes: [[6011, 6011], [644, 649], [65, 65]], lengths: [16, 17, 18, 19] }, // Discover
  { prefixes: [[3528, 3589]], lengths: [16, 17, 18, 19] }, // JCB
  { prefixes: [[300, 305], [36, 36], [38, 39]], lengths: [14, 15, 16, 17, 18, 19] }, // Diners
  { prefixes: [[62, 62]], lengths: [16, 17, 18, 19] }, // UnionPay
  { prefixes: [[50, 50], [56, 69]], lengths: [12, 13, 14, 15, 16, 17, 18, 19] }, // Maestro (incl. Bancontact)
];

export function hasCardPrefix(digits: string): boolean {
  for (const s of SCHEMES) {
    if (!s.lengths.includes(digits.length)) continue;
    for (const [lo, hi] of s.prefixes) {
      const n = String(lo).length;
      const p = Number(digits.slice(0, n));
      if (p >= lo && p <= hi) return true;
    }
  }
  return false;
}

function groupingOk(value: string): boolean {
  const groups = value.split(GAP);
  if (groups.length === 1) return true;
  const seps = value.match(GAP)!;
  if (seps.some((s) => s !== seps[0])) return false;
  const lens = groups.map((g) => g.length);
  const key = lens.join('-');
  if (key === '4-6-5' || key === '4-6-4') return true;
  return lens.every((l, i) => (i < lens.length - 1 ? l === 4 : l >= 1 && l <= 4));
}

export function isCardNumber(value: string): boolean {
  const digits = digitsOnly(value);
  // The digit checks first: they loop over at most 19 characters, the grouping check allocates.
  return digits.length >= 12 && digits.length <= 19 && luhnValid(digits) && hasCardPrefix(digits) && groupingOk(value);
}

/**
 * Whether some prefix of the candidate, cut before a separator, can be grouped like a card: a first
 * group of four digits (4-4-4-4, 4-6-5, 4-6-4), or of twelve or more (compact). Any other first
 * group rules out every cut, which spares the cutting loop its work on runs of short groups
 * ("06 12 34 56 78 …").
 */
function firstGroupOk(value: string): boolean {
  let n = 0;
  while (n < value.length && value.charCodeAt(n) >= 48 && value.charCodeAt(n) <= 57) n++;
  return n === 4 || n >= 12;
}

/** Where the gap before the last group begins; 0 when there is one group. */
function lastGroupStart(value: string): number {
  let i = value.length;
  while (i > 0 && isDigitCode(value.charCodeAt(i - 1))) i--;
  while (i > 0 && !isDigitCode(value.charCodeAt(i - 1))) i--;
  return i;
}

function isDigitCode(c: number): boolean {
  return c >= 48 && c <= 57;
}

export function findCards(text: string, scan?: TextScan): Detection[] {
  const s = scanOf(text, scan);
  if (s.digitRuns.length === 0) return [];
  // A candidate starts with the first digit of a digit run, and has at least 12 digits.
  const starts = runsWithDigits(s, 12, 'wide');
  if (starts.length === 0) return [];
  const out: Detection[] = [];
  const matches = new Matcher(CANDIDATE, s, starts);
  for (let m = matches.exec(); m; m = matches.exec()) {
    let value = m[0];
    if (!firstGroupOk(value)) continue;
    // A trailing group may belong to something else ("… 1111 12/26"): retry without it.
    while (!isCardNumber(value)) {
      const cut = lastGroupStart(value);
      if (cut <= 0) break;
      value = value.slice(0, cut);
    }
    if (!isCardNumber(value)) continue;
    const start = m.index;
    const end = start + value.length;
    if (nearestCue(s, start, end, CARD_CUE, NON_PERSONAL_NUMBER_CUE, { before: 40, after: 20 }) === 'negative') continue;
    out.push({ type: 'CARD', start, end, text: value, checksum: true, normalized: digitsOnly(value) });
  }
  return out;
}

// Labels that name a card's code and nothing else.
const CARD_CODE_LABEL =
  'cvv2?|cvc2?|cav2|csc|cvn|card[ _-]?(?:verification|security)[ _-]?(?:value|code|number)|kartenpr[üu]f(?:nummer|ziffer)|cryptogramme(?:[ ]visuel)?';
// Labels that name other codes too: an alarm's, an engineering test's, a caller's id.
const OTHER_CODE_LABEL =
  'cid|security[ _-]?code|sicherheitscode|pr[üu]f(?:nummer|ziffer)|code[ ]de[ ]s[ée]curit[ée]|c[óo]digo[ ]de[ ]seguridad|codice[ ]di[ ]sicurezza|kod[ ]zabezpieczaj[ąa]cy|beveiligingscode|controlecode';
const CODE_LABEL_BIT = registerCue(`(?:${CARD_CODE_LABEL}|${OTHER_CODE_LABEL})`);
// The label, maybe quoted as a key, a sign or a verb, and three or four digits standing alone.
const CODE_TAIL = `["']?[ \\t\\u00a0]{0,4}(?:[:=#][ \\t\\u00a0]{0,4})?["']?(?:(?:is|ist|est|es|è|:)[ \\t\\u00a0]{1,4})?(\\d{3,4})(?![\\p{L}\\p{N}]|[.,/-]\\d)`;
const CODE = new RegExp(`(?<![\\p{L}\\p{N}])(?:(${CARD_CODE_LABEL})|${OTHER_CODE_LABEL})${CODE_TAIL}`, 'giu');
const CODE_STICKY = new RegExp(`(?:(${CARD_CODE_LABEL})|${OTHER_CODE_LABEL})${CODE_TAIL}`, 'iuy');
/** How far from a card number a code under a label of other codes too is still the card's. */
const CARD_REACH = 160;

/** Security codes after their label (see the module comment), given the text's card numbers. */
function findCardCodes(s: TextScan, cards: readonly Detection[]): Detection[] {
  const [labels] = cuePositions(s, [CODE_LABEL_BIT]);
  if (labels!.length === 0) return [];
  const out: Detection[] = [];
  const matches = new Matcher(CODE, s, labels!, { sparse: Infinity, sticky: CODE_STICKY });
  let card = 0;
  for (let m = matches.exec(); m; m = matches.exec()) {
    const end = m.index + m[0].length;
    const start = end - m[2]!.length;
    if (m[1] === undefined) {
      while (card < cards.length && cards[card]!.end < m.index - CARD_REACH) card++;
      const nearCard = card < cards.length && cards[card]!.start <= end + CARD_REACH;
      if (!nearCard && !cueNear(s, m.index, start, CARD_CUE, { before: 60, after: 0 })) continue;
    }
    out.push({ type: 'CARD', start, end, text: m[2]!, checksum: false, normalized: m[2]! });
  }
  return out;
}

export const cardRecognizer: Recognizer = {
  type: 'CARD',
  needsDigit: true,
  detect(text: string, _language: Language, scan?: TextScan): Detection[] {
    const s = scanOf(text, scan);
    const cards = findCards(text, s);
    const codes = findCardCodes(s, cards);
    return codes.length === 0 ? cards : [...cards, ...codes].sort((a, b) => a.start - b.start);
  },
};
