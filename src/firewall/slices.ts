// Long texts are read in slices, so that masking one can give the event loop back between them:
// a prompt of a megabyte holds the process for hundreds of milliseconds in one piece, and /healthz
// and every other request would wait that long.
//
// A slice is detected with CONTEXT characters of the text on either side, more than any recognizer
// looks around a candidate (cue windows of at most 48 characters, an address window of 100 and the
// line above). A detection belongs to the slice it starts in; the next slice starts where the last
// detection of this one ends, so that no value is masked twice or cut in two. Where the next
// window reads a detection across that start, its part in the new slice is masked too; one that
// runs into the end of the context window (only a token longer than the context can) is extended
// to the next white space: masking the rest of a word rather than letting it through.
//
// Masking runs as a generator that yields between slices: synchronous callers run it through
// (`runSteps`), asynchronous ones wait for the event loop at each yield (`runStepsAsync`). Both see
// the same slices and spend the same budget, so both give the same result.
import type { WorkBudget } from './budget.js';
import { detectEntities } from './detect.js';
import { RECOGNIZERS } from './recognizers/index.js';
import { isSpaceCode, type TextScan } from './scan.js';
import type { Detection, Language } from './types.js';

/** Characters read between two yields to the event loop: under 10 ms in the worst case. */
export const SLICE_CHARS = 16 * 1024;
/** Characters of the text read on either side of a slice. */
const CONTEXT = 512;
/** A slice ends after a line break within this many characters before its nominal end … */
const LINE_SEARCH = 1024;
/** … or else after a white space within this many. */
const SPACE_SEARCH = 256;

/** A step of work that yields (nothing) whenever it may pause. */
export type Steps<T> = Generator<void, T, void>;

/** Runs the steps through without pausing. */
export function runSteps<T>(steps: Steps<T>): T {
  for (;;) {
    const r = steps.next();
    if (r.done) return r.value;
  }
}

/** The event loop's turn: timers, I/O and other requests run before the next slice. */
export function giveWay(): Promise<void> {
  return new Promise((resolve) => setImmediate(resolve));
}

/** Runs the steps, letting the event loop run at each pause. */
export async function runStepsAsync<T>(steps: Steps<T>, pause: () => Promise<void> = giveWay): Promise<T> {
  for (;;) {
    const r = steps.next();
    if (r.done) return r.value;
    await pause();
  }
}

/** Where a slice that should end near `target` ends: after a line break, a space, or at `target`. */
export function sliceEnd(text: string, target: number): number {
  if (target >= text.length) return text.length;
  for (let i = target; i > target - LINE_SEARCH; i--) {
    // After "\n", or a lone "\r" (never between the two of "\r\n").
    const c = text.charCodeAt(i - 1);
    if (c === 10 || (c === 13 && text.charCodeAt(i) !== 10)) return i;
  }
  for (let i = target; i > target - SPACE_SEARCH; i--) if (isSpaceCode(text.charCodeAt(i - 1))) return i;
  // Never between the two halves of a surrogate pair.
  const c = text.charCodeAt(target - 1);
  return c >= 0xd800 && c <= 0xdbff ? target + 1 : target;
}

/**
 * A copy of `s` in a string of its own. A slice of a longer string is a view into it in V8, and
 * reading it code by code (the pre-scan, scan.ts) was 10-20% slower than reading a string of its
 * own; the copy costs far less.
 */
function flat(s: string): string {
  return Buffer.from(s, 'utf16le').toString('utf16le');
}

/** End of the word that `end` is inside of (the next white space, or the end of the text). */
function wordEnd(text: string, end: number): number {
  while (end < text.length && !isSpaceCode(text.charCodeAt(end))) end++;
  return end;
}

/**
 * The detections of `text`, in order, slice by slice: each is handed to `take` as its slice is
 * read (so that the caller's own work on them is sliced too), and the steps yield between slices.
 * A text of at most one slice is detected whole (with `scan`, its pre-scan, when the caller has one).
 */
export function* detectSliced(
  text: string,
  language: Language,
  budget: WorkBudget,
  take: (d: Detection) => void,
  scan?: TextScan,
): Steps<void> {
  const n = text.length;
  if (n <= SLICE_CHARS) {
    for (const d of detectEntities(text, language, RECOGNIZERS, scan, budget)) take(d);
    return;
  }
  let sliceStart = 0;
  while (sliceStart < n) {
    const sliceStop = sliceEnd(text, sliceStart + SLICE_CHARS);
    const from = Math.max(0, sliceStart - CONTEXT);
    const to = Math.min(n, sliceStop + CONTEXT);
    const window = flat(text.slice(from, to));
    let next = sliceStop;
    for (const d of detectEntities(window, language, RECOGNIZERS, undefined, budget)) {
      let start = from + d.start;
      let end = from + d.end;
      if (start >= sliceStop || end <= sliceStart) continue;
      // Read from another starting point, a pattern can pair up differently ("0612345678 0612345678"
      // is one run of two numbers): a detection that began in the previous slice, past what that
      // slice masked, has its rest masked here rather than let through.
      const clipped = start < sliceStart;
      if (clipped) start = sliceStart;
      const cut = d.end === window.length && to < n;
      if (cut) end = wordEnd(text, end);
      // The detection is the window's own: moved to the text's offsets in place.
      d.start = start;
      d.end = end;
      if (clipped || cut) {
        // A value clipped or cut by the window gets its normalized form from the vault.
        d.text = text.slice(start, end);
        delete d.normalized;
        // Written as the text has it, in plain brackets: restored as written.
        delete d.urlDecoded;
        delete d.escapedDecoded;
        delete d.escapedAsWritten;
      }
      take(d);
      next = Math.max(next, end);
    }
    sliceStart = next;
    if (sliceStart < n) yield;
  }
}
