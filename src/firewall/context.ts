// Small helpers the recognizers share: looking for cue words around a candidate, cheap
// pre-filters. All regexes passed in are precompiled by the callers at module load.
//
// A cue regex is not walked over its window position by position: the two-character prefixes a
// match can start with are derived from its source (regex-prefix.ts), and the regex is tried,
// sticky, only where the window has one — with the same matches as a global scan.
import { foldCode, textPrefixFilter } from './regex-prefix.js';
import type { TextScan } from './scan.js';

/** The `before` characters ending at `start`, cut at the last line break. */
export function windowBefore(text: string, start: number, before: number): string {
  const from = Math.max(0, start - before);
  const slice = text.slice(from, start);
  const nl = slice.lastIndexOf('\n');
  return nl >= 0 ? slice.slice(nl + 1) : slice;
}

/** The `after` characters starting at `end`, cut at the first line break. */
export function windowAfter(text: string, end: number, after: number): string {
  const slice = text.slice(end, end + after);
  const nl = slice.indexOf('\n');
  return nl >= 0 ? slice.slice(0, nl) : slice;
}

export interface CueWindows {
  before: number;
  after: number;
}

interface CueScanner {
  global: RegExp;
  sticky: RegExp;
  /** Folded two-character keys a match can start with, or null: try everywhere. */
  keys: Uint8Array | null;
}

const scanners = new WeakMap<RegExp, CueScanner>();

function scannerOf(re: RegExp): CueScanner {
  let s = scanners.get(re);
  if (!s) {
    const flags = re.flags.replace(/[gy]/g, '');
    s = { global: new RegExp(re.source, flags + 'g'), sticky: new RegExp(re.source, flags + 'y'), keys: textPrefixFilter(re.source)?.keys ?? null };
    scanners.set(re, s);
  }
  return s;
}

/** The first match of the cue in `win` at or after `from`, as a global regex would find it. */
function nextMatch(s: CueScanner, win: string, from: number, reference: boolean): RegExpExecArray | null {
  const { keys } = s;
  if (keys === null || reference) {
    s.global.lastIndex = from;
    return s.global.exec(win);
  }
  const n = win.length;
  for (let i = from; i < n; i++) {
    if (keys[foldCode(win.charCodeAt(i)) * 128 + (i + 1 < n ? foldCode(win.charCodeAt(i + 1)) : 0)] === 0) continue;
    s.sticky.lastIndex = i;
    const m = s.sticky.exec(win);
    if (m !== null) return m;
  }
  return null;
}

/** Whether `re` matches in the text just before or just after [start, end) (same line). */
export function cueNear(scan: TextScan, start: number, end: number, re: RegExp, w: CueWindows): boolean {
  const s = scannerOf(re);
  const { text, reference } = scan;
  if (w.before > 0 && nextMatch(s, windowBefore(text, start, w.before), 0, reference) !== null) return true;
  if (w.after > 0 && nextMatch(s, windowAfter(text, end, w.after), 0, reference) !== null) return true;
  return false;
}

/**
 * Distance in characters from [start, end) to the nearest match of `re` in the windows around it
 * (same line), or Infinity.
 */
export function cueDistance(scan: TextScan, start: number, end: number, re: RegExp, w: CueWindows): number {
  const { before, after } = cueDistances(scan, start, end, re, w);
  return Math.min(before, after);
}

/** The distances to the nearest match before the candidate and after it, each Infinity when there is none. */
function cueDistances(scan: TextScan, start: number, end: number, re: RegExp, w: CueWindows): { before: number; after: number } {
  const s = scannerOf(re);
  const { text, reference } = scan;
  let before = Infinity;
  let after = Infinity;
  if (w.before > 0) {
    const win = windowBefore(text, start, w.before);
    // Every match, left to right without overlap: the last one ends nearest to the candidate.
    for (let m = nextMatch(s, win, 0, reference); m; ) {
      const matchEnd = m.index + m[0].length;
      before = Math.min(before, win.length - matchEnd);
      m = nextMatch(s, win, m[0].length === 0 ? matchEnd + 1 : matchEnd, reference);
    }
  }
  if (w.after > 0) {
    const m = nextMatch(s, windowAfter(text, end, w.after), 0, reference);
    if (m) after = m.index;
  }
  return { before, after };
}

export type CueVerdict = 'positive' | 'negative' | 'none';

const NO_CUE = { before: Infinity, after: Infinity };

// A full stop (or ! or ?), then blanks and a capital: a sentence ends there ("tel. 06…" does not).
const SENTENCE_END = /[.!?]["'’)\]]?[ \t]+(?=\p{Lu})/gu;

/** The cue windows around [start, end) cut at the ends of the sentence it stands in. */
function withinSentence(text: string, start: number, end: number, w: CueWindows): CueWindows {
  const after = windowAfter(text, end, w.after);
  SENTENCE_END.lastIndex = 0;
  const next = SENTENCE_END.exec(after);
  const before = windowBefore(text, start, w.before);
  let from = 0;
  SENTENCE_END.lastIndex = 0;
  for (let m = SENTENCE_END.exec(before); m !== null; m = SENTENCE_END.exec(before)) from = m.index + m[0].length;
  return { before: before.length - from, after: next === null ? w.after : next.index };
}

/**
 * Reads the surroundings of a numeric candidate: the nearer of a positive cue (e.g. "BSN", "tel")
 * and a negative one (e.g. "order", "factuur") decides; a tie goes to the positive cue. A positive
 * cue before the candidate wins over negative ones that come only after it ("Mon NIR est …,
 * commande 55120": the label names the number, the next words the next thing), and a negative
 * cue counts in the candidate's own sentence only.
 */
export function nearestCue(
  scan: TextScan,
  start: number,
  end: number,
  positive: RegExp | null,
  negative: RegExp | null,
  w: CueWindows,
): CueVerdict {
  const p = positive ? cueDistances(scan, start, end, positive, w) : NO_CUE;
  const n = negative ? cueDistances(scan, start, end, negative, withinSentence(scan.text, start, end, w)) : NO_CUE;
  const nearestP = Math.min(p.before, p.after);
  const nearestN = Math.min(n.before, n.after);
  if (nearestP === Infinity && nearestN === Infinity) return 'none';
  if (p.before !== Infinity && n.before === Infinity) return 'positive';
  return nearestP <= nearestN ? 'positive' : 'negative';
}

/**
 * Words near a number that say it is not about a person: orders, invoices, products, versions,
 * tracking, amounts. Shared by the numeric recognizers (each adds its own positive cues). Policies,
 * claims, contracts, customers and dossiers are not here: their numbers name a person at the
 * insurer or the shop, and are masked (recognizers/reference.ts, decision 0019).
 */
export const NON_PERSONAL_NUMBER_CUE = new RegExp(
  [
    // en
    '\\border', 'invoice', 'inv\\.?\\s*(?:no|#)', '\\bref(?:erence)?\\b', '\\bticket', 'tracking', 'shipment', 'parcel',
    '\\bsku', '\\bean\\b', '\\bupc\\b', '\\bisbn', '\\bproduct', '\\bitem', '\\barticle', '\\bserial', '\\bversion',
    // A closing boundary: "the building manager" is not a build number.
    '\\bbuild(?:s|no|nr|number|nummer)?\\b', '\\brelease', '\\bbatch',
    '\\blot\\b', '\\bcase\\s*(?:no|number|#)', '\\bbooking', 'reservation', 'confirmation', 'transaction', '\\breceipt',
    '\\bamount', '\\btotal', '\\bprice', '\\bbalance', '\\bquote', '\\bpo\\s*(?:no|number|#)',
    '\\bpart\\s*(?:no|number)', '\\bmodel', 'account\\s*id', '\\bsession', 'request\\s*id', '\\berror', '\\bcode',
    // nl
    'bestel', 'factuur', 'facturen', 'kenmerk', 'referentie', 'zending', 'pakket', 'artikel', 'versie',
    'bedrag', 'totaal', 'prijs', 'saldo', 'offerte', 'zaaknummer', 'boeking',
    'volgnummer', 'betalingskenmerk', 'transactie', '\\bbon\\b', 'foutcode',
    // de
    'bestell', 'rechnung', 'auftrag', 'vorgang', 'sendung', 'paket', 'artikel', 'produkt',
    'betrag', 'summe', 'preis', 'angebot', 'buchung', 'beleg', 'quittung',
    'seriennummer', 'fehlercode', 'ticketnummer', 'lieferschein', 'kassenbon',
    // fr
    'commande', 'facture', 'référence', 'reference', 'colis', 'envoi', 'produit', 'montant', 'prix', 'solde',
    'devis', 'réservation', 'reçu', 'ticket', 'suivi', '\\blot\\b',
    // company identifiers
    '\\bkvk', 'handelsregister', '\\bsiret', '\\bsiren', '\\btva\\b', '\\bvat\\b', 'transaktion',
    // Dutch "btw" (VAT) only as VAT is written — a label, a rate, "incl. btw" — since chat writes
    // "btw" for "by the way" ("btw mijn nummer is 06…"), which must not cancel the phone after it.
    '\\bbtw(?:[-\\s]?(?:nummer|nr|no|id|identificatienummer|tarief|bedrag)\\b|[\\s:]*(?:nl)?\\d)',
    '\\b(?:incl|excl|inclusief|exclusief)\\.?\\s*btw\\b', '%\\s*btw\\b',
    // German "USt" (VAT), "USt-IdNr": closed, so that Spanish "ustedes" is no VAT label.
    '\\bust(?:-?id(?:nr)?)?\\b',
    '\\bpatch', 'hotfix',
    // symbols and currencies
    '€', '\\$', '£', '\\beur\\b', '\\busd\\b', '\\bgbp\\b', '#',
  ].join('|'),
  'i',
);

// ---------------------------------------------------------------------------------------------
// Questions and their answers in call and chat transcripts: "Wat is uw geboortedatum?" on one line,
// "14 maart 1968" or "[10:43] Klant: PV-4471-2209" on the next. The question names the kind of value
// (a cue, as a label would) for the answer right after it, and for nothing further: the answer is
// the first line after the question that is not blank and not the asker's, at most
// ANSWER_LINES_MAX lines down; a line longer than QA_LINE_MAX characters is neither.

const QA_LINE_MAX = 200;
const ANSWER_LINES_MAX = 3;
// A transcript's turn: a time ("[10:43]", "10:43:05") and a speaker with a colon ("Klant:", "Agent
// Smith:"), each optional. Group 1: the speaker.
const TURN = /^[ \t]*(?:\[[0-9:.]{3,12}\][ \t]*|[0-9]{1,2}:[0-9]{2}(?::[0-9]{2})?[ \t]+)?(?:(\p{L}[\p{L} .'’-]{0,30}?)[ \t]*:(?=[ \t]|$))?[ \t]*/u;

/** A line of a transcript: its bounds and what follows its turn's time and speaker. */
export interface TurnLine {
  start: number;
  end: number;
  /** Where the words said start, after the time and the speaker. */
  said: number;
  speaker: string | null;
}

function turnLine(text: string, start: number, end: number): TurnLine {
  const m = TURN.exec(text.slice(start, Math.min(end, start + 48)));
  return { start, end, said: start + (m === null ? 0 : m[0].length), speaker: m?.[1]?.toLowerCase() ?? null };
}

function isBlankLine(text: string, start: number, end: number): boolean {
  for (let i = start; i < end; i++) {
    const c = text.charCodeAt(i);
    if (c !== 32 && c !== 9 && c !== 13) return false;
  }
  return true;
}

/** Whether the line [start, end) asks a question: it ends with "?" (blanks after it aside). */
function asks(text: string, start: number, end: number): boolean {
  let i = end;
  while (i > start && (text.charCodeAt(i - 1) === 32 || text.charCodeAt(i - 1) === 9 || text.charCodeAt(i - 1) === 13)) i--;
  return i > start && text.charCodeAt(i - 1) === 63;
}

/** The end of the line that starts at `start` (its "\n" or the text's end), or -1 past QA_LINE_MAX characters. */
function lineEndFrom(text: string, start: number): number {
  const stop = Math.min(text.length, start + QA_LINE_MAX + 1);
  for (let i = start; i < stop; i++) if (text.charCodeAt(i) === 10) return i;
  return stop === text.length ? stop : -1;
}

/** The "\n" before `at` within QA_LINE_MAX characters (-1 for the text's start), or -2 when there is none so near. */
function newlineBefore(text: string, at: number): number {
  const stop = Math.max(0, at - QA_LINE_MAX - 1);
  for (let i = at - 1; i >= stop; i--) if (text.charCodeAt(i) === 10) return i;
  return stop === 0 ? -1 : -2;
}

/**
 * The answer to the question on the line [start, end), or null when the line asks none: the first
 * line after it that is not blank and, when the question has a speaker, not the asker's (the asker
 * may go on for a line or two: "Mag ik uw polisnummer?" / "Die staat op uw polisblad." / "Klant: …").
 */
export function answerTo(text: string, start: number, end: number): TurnLine | null {
  if (end - start > QA_LINE_MAX || !asks(text, start, end)) return null;
  const asker = turnLine(text, start, end).speaker;
  let at = end + 1;
  for (let k = 0; k < ANSWER_LINES_MAX && at < text.length; k++) {
    const lineEnd = lineEndFrom(text, at);
    if (lineEnd < 0) return null;
    if (!isBlankLine(text, at, lineEnd)) {
      const line = turnLine(text, at, lineEnd);
      if (asker === null || line.speaker !== asker) return line;
      if (asks(text, at, lineEnd)) return null; // the asker asks something else
    }
    at = lineEnd + 1;
  }
  return null;
}

/**
 * The question line whose answer (see `answerTo`) is the line holding `at`, as [start, end), with
 * the answer's line; or null.
 */
export function questionBefore(text: string, at: number): { question: { start: number; end: number }; answer: TurnLine } | null {
  const nl = newlineBefore(text, at);
  if (nl < 0) return null;
  let end = nl;
  for (let k = 0; k < ANSWER_LINES_MAX && end > 0; k++) {
    const before = newlineBefore(text, end);
    if (before === -2) return null;
    const start = before + 1;
    if (asks(text, start, end)) {
      const answer = answerTo(text, start, end);
      return answer !== null && answer.start === nl + 1 ? { question: { start, end }, answer } : null;
    }
    end = start - 1;
  }
  return null;
}
