// Text in decomposed form (NFD), as macOS, a PDF's text layer or some mail clients paste it: "é" is
// "e" followed by the combining acute accent U+0301. The recognizers read words as runs of letters,
// and a combining mark is not one: "Jose\u0301 Garci\u0301a" was read as "Jose" (masked) and the
// rest ("\u0301 García") sent in clear; "Mu\u0308nchen" ended an address at "Mu". Gazetteers and cue
// words are composed (NFC), so "Bjo\u0308rn Sa\u0308ger" was not known as a name at all.
//
// The detector reads a view of the text in which each letter with its combining marks is the
// composed letter ("e\u0301" is "é"), and marks that compose with nothing are left out, so a word
// reads whole; what it finds is moved back over the text as written. A detection's span always takes
// a letter together with all its marks (never a mark alone, never a letter without its mark), so the
// placeholder replaces the decomposed letters whole and restores them byte for byte. The value's
// normal form is that of its composed spelling: "José" written composed and decomposed share one
// placeholder. See docs/decisions/0033-the-firewall-reads-decomposed-letters-and-html-entities.md.
import type { Detection } from './types.js';
import { normalizeValue } from './vault.js';

export interface ComposedView {
  /** The text with its letters composed and the marks that compose with nothing left out. */
  readonly text: string;
  /** For each offset of the view (and its end), the offset in the text of what it was read from. */
  readonly at: Int32Array;
}

// The combining marks of Latin, Greek and Cyrillic letters: the block U+0300–U+036F, its extension
// and its supplement. Not the marks for symbols (U+20D0–U+20FF: a keycap "1\ufe0f\u20e3") nor the
// half marks: those do not make letters.
const MARK = /[\u0300-\u036f\u1ab0-\u1aff\u1dc0-\u1dff]/;
const MARKS = /[\u0300-\u036f\u1ab0-\u1aff\u1dc0-\u1dff]+/g;
const LEFT_OVER = /[\u0300-\u036f\u1ab0-\u1aff\u1dc0-\u1dff]/g;
/**
 * Marks on one letter composed at most: a real letter has one or two (Vietnamese "ệ" three). The
 * canonical reordering of a longer run can cost more than its length; past this the marks are
 * left out of the view without composing them ("Zalgo" text reads as its letters).
 */
const MAX_MARKS = 8;

/**
 * The composed view of `text` (see the module comment), or null when the text holds no combining
 * mark: most texts, at the cost of one character-class search.
 */
export function composedView(text: string): ComposedView | null {
  if (!MARK.test(text)) return null;
  const n = text.length;
  const parts: string[] = [];
  const at = new Int32Array(n + 1);
  let v = 0;
  let last = 0;
  MARKS.lastIndex = 0;
  for (let m = MARKS.exec(text); m !== null; m = MARKS.exec(text)) {
    const marksAt = m.index;
    const marksEnd = marksAt + m[0].length;
    // The letter the marks belong to: the character before them, both halves of a surrogate pair.
    let base = marksAt > last ? marksAt - 1 : marksAt;
    if (base > last && isLowSurrogate(text.charCodeAt(base)) && isHighSurrogate(text.charCodeAt(base - 1))) base--;
    for (let k = last; k < base; k++) at[v++] = k;
    parts.push(text.slice(last, base));
    const written = text.slice(base, marksEnd);
    const composed = (m[0].length <= MAX_MARKS ? written.normalize('NFC') : written).replace(LEFT_OVER, '');
    if (written.startsWith(composed)) {
      // Nothing composed: the letter as written, its marks left out.
      for (let k = 0; k < composed.length; k++) at[v++] = base + k;
    } else if (composed.length > 0) {
      // The composed letter is read from the letter; anything after it in the view, from past the
      // marks, so that no span can end or start between the letter and its marks.
      at[v++] = base;
      for (let k = 1; k < composed.length; k++) at[v++] = marksEnd;
    }
    parts.push(composed);
    last = marksEnd;
  }
  for (let k = last; k < n; k++) at[v++] = k;
  at[v] = n;
  parts.push(text.slice(last));
  return { text: parts.join(''), at: at.subarray(0, v + 1) };
}

function isHighSurrogate(c: number): boolean {
  return c >= 0xd800 && c <= 0xdbff;
}

function isLowSurrogate(c: number): boolean {
  return c >= 0xdc00 && c <= 0xdfff;
}

/** Moves detections made on the view to the text's offsets, in place: spelled as written, valued as composed. */
export function fromComposedView(text: string, view: ComposedView, detections: Detection[]): Detection[] {
  for (const d of detections) {
    d.start = view.at[d.start]!;
    d.end = view.at[d.end]!;
    const value = d.text;
    d.text = text.slice(d.start, d.end);
    if (d.text === value || d.urlDecoded !== undefined) continue;
    // The vault holds the value as written (restored byte for byte), by the normal form of its
    // composed spelling, which the same value written composed has too.
    d.normalized ??= normalizeValue(d.type, d.text.normalize('NFC'));
  }
  return detections;
}
