// Line breaks as the recognizers read them. Browser textareas submit "\r\n", and so do Windows
// clients and pasted e-mails; every rule that reads lines (an address over two lines, a key-value
// block, a table, a sign-off above a name, a slice's end) was written for "\n". Rather than teach
// each of them "\r\n" and a lone "\r" (old Mac text), the detector reads a view of the text in which
// "\r\n" is "\n" and a lone "\r" is "\n", and moves what it finds back to the text's own offsets:
// what is masked and restored is always the text as written, its "\r" included.
// See docs/decisions/0018-one-kind-of-line-break.md.
//
// The same view leaves out the invisible format characters that a paste, a word processor or a
// chat client puts inside words and numbers: zero-width space, non-joiner and joiner (U+200B–D),
// direction marks (U+200E, U+200F, U+202A–E, U+2066–9), word joiner and invisible operators
// (U+2060–4), the byte-order mark (U+FEFF) and the soft hyphen (U+00AD). "jan\u200b@example.nl",
// "Jan\u00adsen" and "NL91\u200bABNA…" are read as what they show; the detection, moved back, spans
// them, so what is masked and restored is the text as written, invisible characters included.
import type { Detection } from './types.js';
import { normalizeValue } from './vault.js';

export interface LineBreakView {
  /** The text with "\r\n" and lone "\r" as "\n", and without invisible format characters. */
  readonly text: string;
  /**
   * For each character left out (the "\r" of a "\r\n", an invisible character), the offset in the
   * view of the character that followed it, ascending; the view's offset `v` is the text's `v` plus
   * the number of these at or before `v`.
   */
  readonly dropped: Int32Array;
  /** Whether invisible characters were left out (not only the "\r" of "\r\n"). */
  readonly invisible: boolean;
}

const LF = 10;
const CR = 13;

// The characters left out of the view, besides "\r" (see the module comment), and the no-break
// spaces, which the view reads as spaces: French puts them inside phone numbers and before ":"
// ("06\u00a012\u00a034\u00a056\u00a078" went out in clear), and few rules name them.
const SPECIAL = /[\r\u00a0\u00ad\u200b-\u200f\u202a-\u202e\u202f\u2060-\u2064\u2066-\u2069\ufeff]/g;
const HAS_INVISIBLE = /[\u00a0\u00ad\u200b-\u200f\u202a-\u202e\u202f\u2060-\u2064\u2066-\u2069\ufeff]/;
const NBSP = 0xa0;
const NARROW_NBSP = 0x202f;

/**
 * The view of `text` the recognizers read, or null when it is the text itself: no "\r" and no
 * invisible character (most texts; one indexOf and one character-class search).
 */
export function lineBreakView(text: string): LineBreakView | null {
  if (text.indexOf('\r') < 0 && !HAS_INVISIBLE.test(text)) return null;
  const parts: string[] = [];
  const dropped: number[] = [];
  let last = 0;
  let removed = 0;
  let invisible = false;
  SPECIAL.lastIndex = 0;
  for (let m = SPECIAL.exec(text); m !== null; m = SPECIAL.exec(text)) {
    const at = m.index;
    parts.push(text.slice(last, at));
    const c = text.charCodeAt(at);
    if (c === NBSP || c === NARROW_NBSP) {
      parts.push(' ');
    } else if (c !== CR) {
      invisible = true;
      dropped.push(at - removed);
      removed++;
    } else if (text.charCodeAt(at + 1) === LF) {
      // "\r\n": the "\n" stays, at its offset in the view.
      dropped.push(at - removed);
      removed++;
    } else {
      parts.push('\n');
    }
    last = at + 1;
  }
  parts.push(text.slice(last));
  return { text: parts.join(''), dropped: Int32Array.from(dropped), invisible };
}

/** How many dropped "\r" lie before the character at view offset `v` (those at or before `v`). */
function droppedUpTo(dropped: Int32Array, v: number): number {
  let lo = 0;
  let hi = dropped.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (dropped[mid]! <= v) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/** The text's offset of the character at view offset `v`. */
export function startInText(view: LineBreakView, v: number): number {
  return v + droppedUpTo(view.dropped, v);
}

/** The text's offset just after the character before view offset `v` (an exclusive end). */
export function endInText(view: LineBreakView, v: number): number {
  return v === 0 ? 0 : startInText(view, v - 1) + 1;
}

/** Moves detections made on the view to the offsets and spelling of `text`, in place. */
export function toTextOffsets(text: string, view: LineBreakView, detections: Detection[]): Detection[] {
  for (const d of detections) {
    // "Jan\u00adsen" shares the placeholder of "Jansen": the normal form is the one of what it shows.
    if (view.invisible && d.normalized === undefined) d.normalized = normalizeValue(d.type, d.text);
    const start = startInText(view, d.start);
    const end = endInText(view, d.end);
    d.start = start;
    d.end = end;
    // The vault compares values in a normal form in which white space is one space, so
    // "Kastanjelaan 31\r\n3531 KG" and "Kastanjelaan 31\n3531 KG" share a placeholder.
    d.text = text.slice(start, end);
  }
  return detections;
}
