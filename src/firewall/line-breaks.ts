// Line breaks as the recognizers read them. Browser textareas submit "\r\n", and so do Windows
// clients and pasted e-mails; every rule that reads lines (an address over two lines, a key-value
// block, a table, a sign-off above a name, a slice's end) was written for "\n". Rather than teach
// each of them "\r\n" and a lone "\r" (old Mac text), the detector reads a view of the text in which
// "\r\n" is "\n" and a lone "\r" is "\n", and moves what it finds back to the text's own offsets:
// what is masked and restored is always the text as written, its "\r" included.
// See docs/decisions/0018-one-kind-of-line-break.md.
import type { Detection } from './types.js';

export interface LineBreakView {
  /** The text with "\r\n" and lone "\r" as "\n". */
  readonly text: string;
  /**
   * Offsets in the view of the "\n" of each "\r\n" whose "\r" was dropped, ascending; the view's
   * offset `v` is the text's `v` plus the number of these at or before `v`.
   */
  readonly dropped: Int32Array;
}

const LF = 10;

/** The view of `text` with one kind of line break, or null when it holds no "\r" (most texts). */
export function lineBreakView(text: string): LineBreakView | null {
  let at = text.indexOf('\r');
  if (at < 0) return null;
  const parts: string[] = [];
  const dropped: number[] = [];
  let last = 0;
  let removed = 0;
  while (at >= 0) {
    parts.push(text.slice(last, at));
    if (text.charCodeAt(at + 1) === LF) {
      // "\r\n": the "\n" stays, at its offset in the view.
      dropped.push(at - removed);
      removed++;
    } else {
      parts.push('\n');
    }
    last = at + 1;
    at = text.indexOf('\r', last);
  }
  parts.push(text.slice(last));
  return { text: parts.join(''), dropped: Int32Array.from(dropped) };
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
