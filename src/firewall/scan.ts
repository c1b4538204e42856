// The pre-scan: one pass over the text's char codes (no regex, no substrings) that records where a
// recognizer can possibly match, so that the recognizers' regexes run only at those places instead
// of walking the whole text from every position:
//   - digit runs (an ASCII digit not preceded by one): every numeric recognizer's match contains
//     a digit and starts at most a few characters before the first digit of its run;
//   - colon runs followed by another colon within five characters (IPv6 candidates);
//   - word starts whose first characters (up to four) can begin a person-name cue (the cue regexes
//     register their prefix sets, derived from their sources by regex-prefix.ts);
//   - capitalised word starts (where a name token can begin).
// `Matcher` then replays a global regex over the text by trying it, sticky, only at those
// positions; the matches are exactly those of `re.exec` in a loop (each regex keeps its own
// lookbehind and lookahead, the candidate positions only have to include every possible start).
import { WorkBudget } from './budget.js';
import { combineFilters, firstChars, foldCode, wordPrefixFilter, wordPrefixTest, type FirstChars, type PrefixFilter, type PrefixTest } from './regex-prefix.js';

const LETTER = 1;
const UPPER = 2;
/** \p{N}: any number character, ASCII digits included. */
const NUMBER = 4;
/** ASCII digit 0-9 (what `\d` matches). */
const DIGIT = 8;
/** ' ’ - : characters that glue a capital letter to the word before it ("O'Brien", "Jean-Pierre"). */
const GLUE = 16;
const COLON = 32;
const KNOWN = 128;

const ASCII_CLASS = new Uint8Array(128);
for (let c = 65; c <= 90; c++) ASCII_CLASS[c] = LETTER | UPPER;
for (let c = 97; c <= 122; c++) ASCII_CLASS[c] = LETTER;
for (let c = 48; c <= 57; c++) ASCII_CLASS[c] = NUMBER | DIGIT;
ASCII_CLASS[39] = GLUE; // '
ASCII_CLASS[45] = GLUE; // -
ASCII_CLASS[58] = COLON;

const P_LETTER = /\p{L}/u;
const P_UPPER = /\p{Lu}/u;
const P_NUMBER = /\p{N}/u;

function classify(ch: string): number {
  let k = KNOWN;
  if (P_LETTER.test(ch)) k |= LETTER;
  if (P_UPPER.test(ch)) k |= UPPER;
  if (P_NUMBER.test(ch)) k |= NUMBER;
  if (ch === '’') k |= GLUE;
  return k;
}

// Non-ASCII classes, computed on first sight (Unicode property tests are too slow per character).
const BMP_CLASS = new Uint8Array(0x10000);
const ASTRAL_CLASS = new Map<number, number>();

function bmpClass(c: number): number {
  let k = BMP_CLASS[c]!;
  if (k === 0) {
    // Lone surrogates are no letters or numbers.
    k = c >= 0xd800 && c <= 0xdfff ? KNOWN : classify(String.fromCharCode(c));
    BMP_CLASS[c] = k;
  }
  return k;
}

function astralClass(cp: number): number {
  let k = ASTRAL_CLASS.get(cp);
  if (k === undefined) {
    k = classify(String.fromCodePoint(cp));
    ASTRAL_CLASS.set(cp, k);
  }
  return k;
}

// Cue prefix filters registered by the recognizers (person.ts) at module load, one bit each: a
// table of the first two characters, then maps of the first one to four characters (folded keys,
// see regex-prefix.ts) to the bits of the cues that admit them.
const cueFilters: PrefixFilter[] = [];
let cueTable: Uint16Array = new Uint16Array(128 * 128);
const cueKeys = [new Map<number, number>(), new Map<number, number>(), new Map<number, number>(), new Map<number, number>()] as const;

/**
 * Registers a cue regex (its source without the leading lookbehind, which word starts satisfy);
 * returns its bit in `TextScan.cueBits`. The word starts recorded for it are those whose first
 * four characters may begin a match.
 */
export function registerCue(source: string): number {
  const test: PrefixTest = wordPrefixTest(source);
  cueFilters.push(wordPrefixFilter(source));
  cueTable = combineFilters(cueFilters);
  const bit = 1 << (cueFilters.length - 1);
  test.keysByLength.forEach((keys, len) => {
    const map = cueKeys[len]!;
    for (const key of keys) map.set(key, (map.get(key) ?? 0) | bit);
  });
  return bit;
}

export interface TextScan {
  readonly text: string;
  /** Positions of the ASCII digits that are not preceded by an ASCII digit, ascending. */
  readonly digitRuns: number[];
  /** Positions of ':' not preceded by ':' with another ':' within the next five characters. */
  readonly colonRuns: number[];
  /** Word starts (a letter not preceded by a letter) whose first four characters may begin a registered cue … */
  readonly cueAt: number[];
  /** … and, in parallel, which cues (bits from `registerCueFilter`). */
  readonly cueBits: number[];
  /** Upper-case letters not preceded by a letter, a number, an apostrophe or a hyphen. */
  readonly capAt: number[];
  /**
   * Spans of checksum-validated detections found so far, as [start, end) pairs: `detectEntities`
   * adds them as the recognizers run (in the default order, every checksum recognizer runs before
   * the ones without checksums). See `isClaimed`.
   */
  readonly claimed: number[];
  /**
   * What the costly steps of the recognizers may still spend (see budget.ts): the caller's, set by
   * `detectEntities`, or the scan's own, which is unbounded.
   */
  budget: WorkBudget;
  /**
   * The reference scan, for the equivalence tests: every Matcher and cue lookup on it walks the
   * text with its global regex, as the recognizers did before the pre-scan. Same results.
   */
  readonly reference: boolean;
}

export interface ScanOptions {
  /** See `TextScan.reference`. */
  reference?: boolean;
}

/**
 * Whether [start, end) lies inside a claimed span that no other claimed span overlaps. Such a
 * checksum detection survives overlap resolution (only another checksum detection could beat it),
 * and it beats anything without a checksum that overlaps it — so a recognizer without checksums
 * may skip a candidate lying there: the result of `detectEntities` is the same.
 */
export function isClaimed(scan: TextScan, start: number, end: number): boolean {
  const alone = aloneSpans(scan);
  // The spans that overlap no other are disjoint and sorted: only the last one starting at or
  // before `start` can hold [start, end).
  let lo = 0;
  let hi = alone.length / 2;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (alone[2 * mid]! <= start) lo = mid + 1;
    else hi = mid;
  }
  return lo > 0 && end <= alone[2 * (lo - 1) + 1]!;
}

// Per scan: the claimed spans that overlap no other claimed span, as sorted [start, end) pairs,
// with the number of claims they were computed from. Comparing every candidate with every claim
// was quadratic in a text of many identifiers.
const aloneOf = new WeakMap<TextScan, { from: number; spans: number[] }>();

function aloneSpans(scan: TextScan): number[] {
  const c = scan.claimed;
  const cached = aloneOf.get(scan);
  if (cached !== undefined && cached.from === c.length) return cached.spans;
  const order: number[] = [];
  for (let k = 0; k < c.length; k += 2) order.push(k);
  order.sort((x, y) => c[x]! - c[y]! || c[x + 1]! - c[y + 1]!);
  const spans: number[] = [];
  let reach = -Infinity; // the furthest end of the spans before this one
  for (let i = 0; i < order.length; i++) {
    const a = c[order[i]!]!;
    const b = c[order[i]! + 1]!;
    const next = i + 1 < order.length ? c[order[i + 1]!]! : Infinity;
    if (reach <= a && next >= b) spans.push(a, b);
    reach = Math.max(reach, b);
  }
  aloneOf.set(scan, { from: c.length, spans });
  return spans;
}

/** Scans `text` once; see the module comment. Cost: one char-code loop, no allocation per character. */
export function scanText(text: string, options: ScanOptions = {}): TextScan {
  const digitRuns: number[] = [];
  const colonRuns: number[] = [];
  const cueAt: number[] = [];
  const cueBits: number[] = [];
  const capAt: number[] = [];
  const table = cueTable;
  const [keys1, keys2, keys3, keys4] = cueKeys;
  const n = text.length;
  let prev = 0;
  for (let i = 0; i < n; i++) {
    let c = text.charCodeAt(i);
    // Fast path: the inside of a word in lower-case ASCII, most of any text.
    if (c >= 97 && c <= 122 && (prev & LETTER) !== 0) {
      do c = text.charCodeAt(++i);
      while (c >= 97 && c <= 122);
      prev = LETTER;
      if (i >= n) break;
    }
    let k: number;
    let width = 1;
    if (c < 128) k = ASCII_CLASS[c]!;
    else if (c >= 0xd800 && c <= 0xdbff && i + 1 < n) {
      const d = text.charCodeAt(i + 1);
      if (d >= 0xdc00 && d <= 0xdfff) {
        k = astralClass(((c - 0xd800) << 10) + (d - 0xdc00) + 0x10000);
        width = 2;
      } else k = KNOWN;
    } else k = bmpClass(c);

    if (k & LETTER) {
      if ((prev & LETTER) === 0) {
        const f1 = foldCode(c);
        const f2 = i + width < n ? foldCode(text.charCodeAt(i + width)) : 0;
        let bits = table[f1 * 128 + f2]!;
        if (bits !== 0) {
          // Refine on up to four characters: one map lookup per prefix length, for all cues.
          const k2 = f1 | (f2 << 7);
          const k3 = k2 | ((i + 2 < n ? foldCode(text.charCodeAt(i + 2)) : 0) << 14);
          const k4 = k3 | ((i + 3 < n ? foldCode(text.charCodeAt(i + 3)) : 0) << 21);
          bits &= (keys1.get(f1) ?? 0) | (keys2.get(k2) ?? 0) | (keys3.get(k3) ?? 0) | (keys4.get(k4) ?? 0);
          if (bits !== 0) {
            cueAt.push(i);
            cueBits.push(bits);
          }
        }
        if ((k & UPPER) !== 0 && (prev & (NUMBER | GLUE)) === 0) capAt.push(i);
      }
    } else if (k & DIGIT) {
      if ((prev & DIGIT) === 0) digitRuns.push(i);
    } else if (k & COLON && (prev & COLON) === 0) {
      const end = Math.min(n, i + 6);
      for (let j = i + 1; j < end; j++) {
        if (text.charCodeAt(j) === 58) {
          colonRuns.push(i);
          break;
        }
      }
    }
    prev = k;
    i += width - 1;
  }
  return { text, digitRuns, colonRuns, cueAt, cueBits, capAt, claimed: [], budget: WorkBudget.unbounded(), reference: options.reference === true };
}

/**
 * The scan for `text`: the one given when it is for this text, a new one otherwise (a reference
 * scan when the one given is).
 */
export function scanOf(text: string, scan: TextScan | undefined): TextScan {
  if (scan === undefined) return scanText(text);
  return scan.text === text ? scan : scanText(text, { reference: scan.reference });
}

const firstCharsOf = new WeakMap<RegExp, FirstChars | null>();

/** The characters a match of `re` can start with (computed once per regex), or null for any. */
function firstCharsCached(re: RegExp): FirstChars | null {
  let f = firstCharsOf.get(re);
  if (f === undefined) {
    f = firstChars(re);
    firstCharsOf.set(re, f);
  }
  return f;
}

const stickyCopies = new WeakMap<RegExp, RegExp>();

/** A sticky copy of a (global) regex, made once. */
export function stickyOf(re: RegExp): RegExp {
  let s = stickyCopies.get(re);
  if (!s) {
    s = new RegExp(re.source, re.flags.replace('g', '') + 'y');
    stickyCopies.set(re, s);
  }
  return s;
}

/** For each of `bits`, the positions of `scan.cueAt` that carry it; one pass. */
export function cuePositions(scan: TextScan, bits: readonly number[]): number[][] {
  const out = bits.map((): number[] => []);
  const { cueAt, cueBits } = scan;
  for (let k = 0; k < cueAt.length; k++) {
    const b = cueBits[k]!;
    for (let j = 0; j < bits.length; j++) if ((b & bits[j]!) !== 0) out[j]!.push(cueAt[k]!);
  }
  return out;
}

// Below this many candidate tries per character, trying a sticky regex at each candidate is
// cheaper than letting the global regex walk the text (measured on digit-heavy logs and tables).
export const SPARSE = 1 / 4;

/**
 * Iterates the matches of the global regex `re` over `text` exactly as `re.exec(text)` in a loop
 * would (including `lastIndex` set by the caller to skip ahead), given that every match starts in
 * [p - back, p] for some p in `starts` (ascending). When there are more than `sparse` tries per
 * character, the global regex is used as it is (same matches, fewer calls).
 */
export interface MatcherOptions {
  /** A match starts at most this many characters before its candidate position. Default 0. */
  back?: number;
  /** Tries per character above which the global regex is used instead. Default `SPARSE`. */
  sparse?: number;
  /**
   * The sticky regex to try at the candidates, when not simply a sticky copy of `re` — e.g. one
   * without a lookbehind that the candidate positions already guarantee.
   */
  sticky?: RegExp;
}

export class Matcher {
  /** Where the next search starts, like `RegExp.lastIndex` of a global regex. */
  lastIndex = 0;
  private readonly text: string;
  private readonly sticky: RegExp | null;
  private readonly first: FirstChars | null;
  private readonly back: number;
  private k = 0;
  private tried = -1;

  constructor(
    private readonly re: RegExp,
    scan: TextScan,
    private readonly starts: readonly number[],
    options: MatcherOptions = {},
  ) {
    this.text = scan.text;
    this.back = options.back ?? 0;
    const tries = starts.length * (this.back + 1);
    this.sticky = !scan.reference && tries <= scan.text.length * (options.sparse ?? SPARSE) ? (options.sticky ?? stickyOf(re)) : null;
    // A try where the text's character cannot start a match is skipped without calling the regex.
    this.first = this.sticky === null ? null : firstCharsCached(this.sticky);
  }

  exec(): RegExpExecArray | null {
    const { text } = this;
    if (this.sticky === null) {
      if (this.lastIndex > text.length) return null;
      this.re.lastIndex = this.lastIndex;
      const m = this.re.exec(text);
      this.lastIndex = m ? this.re.lastIndex : text.length + 1;
      return m;
    }
    const re = this.sticky;
    const { starts, back, first } = this;
    while (this.k < starts.length) {
      const p = starts[this.k]!;
      let pos = Math.max(p - back, this.lastIndex, this.tried + 1, 0);
      for (; pos <= p; pos++) {
        this.tried = pos;
        if (first !== null) {
          const c = text.charCodeAt(pos);
          if (c < 128 ? first.ascii[c] === 0 : !first.other) continue;
        }
        re.lastIndex = pos;
        const m = re.exec(text);
        if (m !== null) {
          this.lastIndex = pos + m[0].length;
          return m;
        }
      }
      this.k++;
    }
    return null;
  }
}

/**
 * How groups of one number may be apart: `single` — one separator (space, no-break space, . - /);
 * `wide` — also up to three spaces or one tab, as text pasted from a PDF or a spreadsheet spaces
 * the groups of an IBAN, a card or a BSN ("DE89  3704  0044", "1234\t56\t782").
 */
export type GroupGaps = 'single' | 'wide';

/** The width of the gap at `at` when a digit follows it within `gaps`, else 0. */
function gapToNextGroup(text: string, at: number, gaps: GroupGaps): number {
  const c = text.charCodeAt(at);
  let width = 0;
  if (isClusterSeparator(c) || (gaps === 'wide' && c === 9)) width = 1;
  if (gaps === 'wide' && c === 32) while (width < 3 && text.charCodeAt(at + width) === 32) width++;
  if (width === 0) return 0;
  const d = text.charCodeAt(at + width);
  return d >= 48 && d <= 57 ? width : 0;
}

/**
 * Digits in the number that starts at `start`: digits, each pair of them at most one gap of `gaps`
 * apart. A regex for an identifier of n digits written with such gaps cannot match at `start` when
 * this is below n.
 */
export function clusterDigits(text: string, start: number, gaps: GroupGaps = 'single'): number {
  let n = 0;
  let i = start;
  for (;;) {
    const c = text.charCodeAt(i);
    if (c >= 48 && c <= 57) {
      n++;
      i++;
      continue;
    }
    const gap = gapToNextGroup(text, i, gaps);
    if (gap === 0) return n;
    i += gap;
  }
}

function isClusterSeparator(c: number): boolean {
  return c === 32 || c === 46 || c === 45 || c === 47 || c === 0xa0;
}

const clusterSizes = { single: new WeakMap<TextScan, Int32Array>(), wide: new WeakMap<TextScan, Int32Array>() };

/**
 * `clusterDigits` at every digit run of the scan, computed once in one backward pass, for both
 * kinds of gap at once: a text with digits is asked for both (IP addresses read single gaps,
 * identifiers wide ones), and the runs are read once.
 */
function clusterSizesOf(scan: TextScan, gaps: GroupGaps): Int32Array {
  const cached = clusterSizes[gaps].get(scan);
  if (cached) return cached;
  const { text, digitRuns } = scan;
  const single = new Int32Array(digitRuns.length);
  const wide = new Int32Array(digitRuns.length);
  for (let k = digitRuns.length - 1; k >= 0; k--) {
    let end = digitRuns[k]!;
    while (end < text.length && text.charCodeAt(end) >= 48 && text.charCodeAt(end) <= 57) end++;
    const n = end - digitRuns[k]!;
    // A gap and then a digit: the next digit run belongs to the same number.
    const next = k + 1 < digitRuns.length;
    single[k] = n + (next && gapToNextGroup(text, end, 'single') > 0 ? single[k + 1]! : 0);
    wide[k] = n + (next && gapToNextGroup(text, end, 'wide') > 0 ? wide[k + 1]! : 0);
  }
  clusterSizes.single.set(scan, single);
  clusterSizes.wide.set(scan, wide);
  return gaps === 'single' ? single : wide;
}

/** The digit runs of `scan` where a number of at least `min` digits starts (see clusterDigits). */
export function runsWithDigits(scan: TextScan, min: number, gaps: GroupGaps = 'single'): number[] {
  const sizes = clusterSizesOf(scan, gaps);
  const out: number[] = [];
  for (let k = 0; k < sizes.length; k++) if (sizes[k]! >= min) out.push(scan.digitRuns[k]!);
  return out;
}

/** Number of ASCII digits from `start` on. */
export function runLength(text: string, start: number): number {
  let i = start;
  for (let c = text.charCodeAt(i); c >= 48 && c <= 57; c = text.charCodeAt(++i));
  return i - start;
}

/** Whether the UTF-16 code unit is a letter (\p{L}); surrogate halves count as no letter. */
export function isLetterCode(c: number): boolean {
  return ((c < 128 ? ASCII_CLASS[c]! : bmpClass(c)) & LETTER) !== 0;
}

/** Whether the UTF-16 code unit is an ASCII digit. */
export function isDigitCode(c: number): boolean {
  return c >= 48 && c <= 57;
}

/** Whether the code unit is one `\s` matches. */
export function isSpaceCode(c: number): boolean {
  return (
    c === 32 ||
    (c >= 9 && c <= 13) ||
    c === 0xa0 ||
    c === 0x1680 ||
    (c >= 0x2000 && c <= 0x200a) ||
    c === 0x2028 ||
    c === 0x2029 ||
    c === 0x202f ||
    c === 0x205f ||
    c === 0x3000 ||
    c === 0xfeff
  );
}
