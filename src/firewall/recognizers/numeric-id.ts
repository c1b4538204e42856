// Shared scanner for national identification numbers: a precompiled candidate regex, a
// check-digit validator and context cues. A candidate that fails its check digits is never
// reported; one that passes is dropped only when a "not about a person" cue (order, invoice,
// amount …) is nearer to it than a cue for the identifier itself.
import { NON_PERSONAL_NUMBER_CUE, nearestCue } from '../context.js';
import { Matcher, runsWithDigits, scanOf, type GroupGaps, type TextScan } from '../scan.js';
import type { Detection, EntityType, Language, Recognizer } from '../types.js';
import { labelledAsReference } from './reference.js';

export interface NumericIdSpec {
  type: EntityType;
  /** Global regex; group 0 is the candidate as written. */
  candidate: RegExp;
  /** Canonical compact form of a candidate (digits only, upper case …). */
  compact(value: string): string;
  /** Check digits and structure of the compact form. */
  valid(compact: string): boolean;
  /** Words that name this identifier ("BSN", "Steuer-ID" …). */
  cue: RegExp;
  /** When true, a candidate is reported only with `cue` nearby. Default false. */
  requireCue?: boolean;
  /**
   * When set, a candidate is reported only when this matches the text that ends right before it
   * (`$`-anchored, read over the same line's last LABEL_WINDOW characters): its label, with nothing
   * but words between ("bsn van klant: 12345672"). For a form too common among other numbers for a
   * cue somewhere in the window to name it.
   */
  labelBefore?: RegExp;
  /**
   * Fewest digits a candidate has before its first letter, if any, when its digits are at most one
   * gap of `gaps` apart: digit runs that hold fewer are not tried.
   */
  minDigits?: number;
  /** The gaps `candidate` allows between groups (see scan.ts); default 'single'. */
  gaps?: GroupGaps;
  /**
   * Another kind of number written in this shape, whose words can name it: where `cue` of it stands
   * nearer than this identifier's own and `reads` takes the number for one, the candidate is left
   * to that kind's recognizer (which must then read it, or the number would go out in clear).
   */
  yieldsTo?: { cue: RegExp; reads(compact: string): boolean };
  /** A candidate written like something else (an IP address) is not one, whatever its check digits. */
  reject?: (value: string) => boolean;
  /** A candidate starts at most this many characters before its first digit (letters leading it). Default 0. */
  back?: number;
  /** Whether `valid` tests real check digits (default true); a format-only identifier says false. */
  checksum?: boolean;
  /**
   * Whether a candidate can lead to the digit run at `p`: for an identifier that starts with
   * letters, a cheap look at them spares the regex most digit runs of a text.
   */
  leadsTo?: (text: string, p: number) => boolean;
}

const WINDOWS = { before: 48, after: 24 };
const LABEL_WINDOW = 40;

export function scanNumericIds(text: string, spec: NumericIdSpec, scan?: TextScan): Detection[] {
  const s = scanOf(text, scan);
  if (s.digitRuns.length === 0) return [];
  // Every candidate starts with the first digit of a digit run (its lookbehind refuses a digit).
  let starts = spec.minDigits === undefined ? s.digitRuns : runsWithDigits(s, spec.minDigits, spec.gaps);
  if (spec.leadsTo !== undefined) starts = starts.filter((p) => spec.leadsTo!(text, p));
  // Most texts have no number this long: nothing to try, nothing to allocate.
  if (starts.length === 0) return [];
  const out: Detection[] = [];
  const matches = new Matcher(spec.candidate, s, starts, { back: spec.back ?? 0 });
  for (let m = matches.exec(); m; m = matches.exec()) {
    const value = m[0];
    if (spec.reject?.(value)) continue;
    const compact = spec.compact(value);
    if (!spec.valid(compact)) continue;
    const start = m.index;
    const end = start + value.length;
    // "Polisnummer: 123456782": a number labelled as a policy or customer number is that number
    // (masked by reference.ts), whatever check digits it passes.
    if (labelledAsReference(text, start)) continue;
    if (spec.labelBefore !== undefined && !labelRightBefore(text, start, spec.labelBefore)) continue;
    const verdict = nearestCue(s, start, end, spec.cue, NON_PERSONAL_NUMBER_CUE, WINDOWS);
    if (verdict === 'negative') continue;
    if (spec.yieldsTo !== undefined && yields(s, start, end, compact, spec)) continue;
    if ((spec.requireCue || inRunOfNumbers(text, start, end, value)) && verdict !== 'positive') continue;
    out.push({ type: spec.type, start, end, text: value, checksum: spec.checksum ?? true, normalized: compact });
  }
  return out;
}

function yields(s: TextScan, start: number, end: number, compact: string, spec: NumericIdSpec): boolean {
  const other = spec.yieldsTo!;
  return nearestCue(s, start, end, spec.cue, other.cue, WINDOWS) === 'negative' && other.reads(compact);
}

function labelRightBefore(text: string, start: number, label: RegExp): boolean {
  let before = text.slice(Math.max(0, start - LABEL_WINDOW), start);
  const nl = before.lastIndexOf('\n');
  if (nl >= 0) before = before.slice(nl + 1);
  return label.test(before);
}

/**
 * A candidate written in groups with blanks that more numbers stand beside, blank-separated:
 * "110 111 112 113 114" (a sequence, a column of figures, line numbers) holds "112 113 114" by
 * chance. Such a one needs its cue. A candidate with wider gaps ("1234  56  782") is beside more
 * numbers when the same gap leads to one.
 */
function inRunOfNumbers(text: string, start: number, end: number, value: string): boolean {
  const gap = /[ \t]+/.exec(value)?.[0];
  if (gap === undefined) return false;
  const digit = (i: number) => i >= 0 && i < text.length && text.charCodeAt(i) >= 48 && text.charCodeAt(i) <= 57;
  const blank = (i: number) => text.charCodeAt(i) === 32 || text.charCodeAt(i) === 9;
  if ((blank(start - 1) && digit(start - 2)) || (blank(end) && digit(end + 1))) return true;
  return (
    gap.length > 1 &&
    ((text.startsWith(gap, start - gap.length) && digit(start - gap.length - 1)) || (text.startsWith(gap, end) && digit(end + gap.length)))
  );
}

export function numericIdRecognizer(spec: NumericIdSpec): Recognizer & { spec: NumericIdSpec } {
  return {
    type: spec.type,
    needsDigit: true,
    spec,
    detect(text: string, _language: Language, scan?: TextScan): Detection[] {
      return scanNumericIds(text, spec, scan);
    },
  };
}
