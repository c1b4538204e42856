// IBANs, printed compact ("NL91ABNA0417164300") or in groups ("NL91 ABNA 0417 1643 00").
// Validation by ibantools: the country's registered length and BBAN format, and the ISO 13616
// mod-97 check digits. The candidate is read up to exactly the country's length, so a number
// that follows the IBAN is never swallowed.
import { getCountrySpecifications, isValidIBAN } from 'ibantools';
import { Matcher, scanOf, type TextScan } from '../scan.js';
import type { Detection, Language, Recognizer } from '../types.js';

const SPECS = getCountrySpecifications();
// "NL 63 …", "NL-63", "NL.63": a separator may follow the country code too, as wide as the gaps
// between the groups may be (see groupGap).
const START = /(?<![\p{L}\p{N}])([A-Za-z]{2})(?: {1,3}|[.\u00a0\t-])?(\d{2})/gu;
const MAX_GAP = 3;

function isAlnum(c: number): boolean {
  return (c >= 48 && c <= 57) || (c >= 65 && c <= 90) || (c >= 97 && c <= 122);
}

/**
 * The width of the gap between two groups at `at`, or 0: one space, hyphen, dot or no-break space,
 * or up to three spaces or a tab, as text copied out of a PDF spaces them ("DE89  3704  0044 …").
 * Wider gaps are not read: they part numbers that belong to nothing in common.
 */
function groupGap(text: string, at: number): number {
  const c = text.charCodeAt(at);
  let width = 0;
  if (c === 32) while (width < MAX_GAP && text.charCodeAt(at + width) === 32) width++;
  else if (c === 45 || c === 46 || c === 0xa0 || c === 9) width = 1;
  return width > 0 && isAlnum(text.charCodeAt(at + width)) ? width : 0;
}

function isAsciiLetter(c: number): boolean {
  return (c >= 65 && c <= 90) || (c >= 97 && c <= 122);
}

/** Where START would have to start for its check digits to open the digit run at `p`, or -1. */
function ibanStartBefore(text: string, p: number): number {
  let i = p;
  const c = text.charCodeAt(i - 1);
  if (c === 32) for (let n = 0; n < MAX_GAP && text.charCodeAt(i - 1) === 32; n++) i--;
  else if (c === 45 || c === 46 || c === 0xa0 || c === 9) i--;
  return i >= 2 && isAsciiLetter(text.charCodeAt(i - 1)) && isAsciiLetter(text.charCodeAt(i - 2)) ? i - 2 : -1;
}

export function findIbans(text: string, scan?: TextScan): Detection[] {
  const s = scanOf(text, scan);
  const { digitRuns } = s;
  if (digitRuns.length === 0) return [];
  const out: Detection[] = [];
  // An IBAN starts two letters (and maybe a gap) before the first digit of a digit run: found with
  // character tests, so the regex is tried once where it can match rather than at every offset a
  // gap of up to three spaces allows (six tries a digit run, which slowed chat with numbers).
  const starts: number[] = [];
  for (const p of digitRuns) {
    const at = ibanStartBefore(text, p);
    if (at >= 0) starts.push(at);
  }
  const matches = new Matcher(START, s, starts);
  for (let m = matches.exec(); m; m = matches.exec()) {
    const country = m[1]!.toUpperCase();
    const length = SPECS[country]?.chars;
    if (!length) continue;
    let i = m.index + m[0].length;
    // Read alphanumerics, allowing a gap between groups, as codes: building the string a character
    // at a time cost more than all the rest on a text of IBAN-like fragments.
    const codes = [country.charCodeAt(0), country.charCodeAt(1), m[2]!.charCodeAt(0), m[2]!.charCodeAt(1)];
    while (codes.length < length && i < text.length) {
      const c = text.charCodeAt(i);
      if (isAlnum(c)) {
        codes.push(c >= 97 ? c - 32 : c);
        i++;
      } else {
        const gap = groupGap(text, i);
        if (gap === 0) break;
        i += gap;
      }
    }
    if (codes.length !== length) continue;
    const compact = String.fromCharCode(...codes);
    if (i < text.length && isAlnum(text.charCodeAt(i))) continue;
    if (!isValidIBAN(compact)) continue;
    out.push({ type: 'IBAN', start: m.index, end: i, text: text.slice(m.index, i), checksum: true, normalized: compact });
    matches.lastIndex = i;
  }
  return out;
}

export const ibanRecognizer: Recognizer = {
  type: 'IBAN',
  needsDigit: true,
  detect(text: string, _language: Language, scan?: TextScan): Detection[] {
    return findIbans(text, scan);
  },
};
