// Text written with a string literal's escapes, as a tool's result, a log or a pasted JSON record
// carries it: "Lieferadresse:\nKatharina Wagner\nLindenstraße 14" on one line, or Python's
// json.dumps (which escapes every character beyond ASCII by default) writing "Jos\u00e9 Garc\u00eda".
// Read as written, "\n" glued an "n" to the next line's first word (an e-mail address was masked
// with it, and came back as "nanna.smit@…"), every rule that reads lines saw one line, and an
// accented name was read in pieces ("Fran" masked, "\u00e7ois Dupont" sent in clear). The detector
// reads a view of the text in which "\n", "\t", "\r", "\/" and "\u" escapes of characters beyond
// ASCII are the characters they stand for (a run of backslashes before one: text escaped twice),
// and moves what it finds back to the text's offsets: the placeholder replaces the escapes as
// written, whole, so a JSON text stays valid, and the vault keeps the value decoded, the form an
// answer's prose (or its JSON, escaped again) takes it back in. "\"" and "\\" stay as written: a
// literal's quotes keep the key before it (structure.ts).
import type { Detection } from './types.js';
import { normalizeValue } from './vault.js';

export interface EscapesView {
  /** The text with its escapes decoded. */
  readonly text: string;
  /** For each offset of the view (and its end), the offset in the text of what it was read from. */
  readonly at: Int32Array;
}

const BACKSLASH = 92;

function hexValue(c: number): number {
  if (c >= 48 && c <= 57) return c - 48;
  const u = c | 32;
  return u >= 97 && u <= 102 ? u - 87 : -1;
}

/**
 * The character a "\" escape stands for when its letter is at `letter` (after the run of
 * backslashes), with the length of the letter and what follows it; null for one read as written.
 * A "\u" escape only for a character beyond ASCII: an escaped quote or control character is syntax.
 */
function escapedAt(text: string, letter: number): { char: string; length: number } | null {
  switch (text.charCodeAt(letter)) {
    case 110: // n
      return { char: '\n', length: 1 };
    case 116: // t
      return { char: '\t', length: 1 };
    case 114: // r
      return { char: '\r', length: 1 };
    case 47: // /
      return { char: '/', length: 1 };
    case 117: {
      // u
      let code = 0;
      for (let k = 1; k <= 4; k++) {
        const h = hexValue(text.charCodeAt(letter + k));
        if (h < 0) return null;
        code = code * 16 + h;
      }
      return code >= 0xa0 ? { char: String.fromCharCode(code), length: 5 } : null;
    }
    default:
      return null;
  }
}

/** Backslashes before an escape's letter read as one escape ("\\n": a text escaped twice). */
const MAX_BACKSLASHES = 4;

/**
 * The view of `text` with its escapes decoded (see the module comment), or null when it has none:
 * most texts, at the cost of one indexOf.
 */
export function escapesView(text: string): EscapesView | null {
  let p = text.indexOf('\\');
  if (p < 0) return null;
  const parts: string[] = [];
  const at: number[] = [];
  let last = 0;
  while (p >= 0) {
    let letter = p;
    while (letter < text.length && text.charCodeAt(letter) === BACKSLASH && letter - p < MAX_BACKSLASHES) letter++;
    const e = escapedAt(text, letter);
    if (e === null) {
      p = text.indexOf('\\', letter);
      continue;
    }
    // The characters before it, as written.
    parts.push(text.slice(last, p), e.char);
    for (let i = last; i < p; i++) at.push(i);
    at.push(p);
    last = letter + e.length;
    p = text.indexOf('\\', last);
  }
  if (parts.length === 0) return null;
  parts.push(text.slice(last));
  for (let i = last; i < text.length; i++) at.push(i);
  at.push(text.length);
  return { text: parts.join(''), at: Int32Array.from(at) };
}

/** Moves detections made on the view to the text's offsets, in place: spelled as written, valued as read. */
export function fromEscapesView(text: string, view: EscapesView, detections: Detection[]): Detection[] {
  for (const d of detections) {
    const value = d.text;
    d.start = view.at[d.start]!;
    // Where the character after it is written: just after the escape of its last one.
    d.end = view.at[d.end]!;
    d.text = text.slice(d.start, d.end);
    if (d.text !== value && d.urlDecoded === undefined) {
      d.escapedDecoded = value;
      d.normalized ??= normalizeValue(d.type, value);
    }
  }
  return detections;
}
