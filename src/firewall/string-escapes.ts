// Text written with a string literal's escapes, as a tool's result, a log or a pasted JSON record
// carries it: "Lieferadresse:\nKatharina Wagner\nLindenstraße 14" on one line, or Python's
// json.dumps (which escapes every character beyond ASCII by default) writing "Jos\u00e9 Garc\u00eda".
// Read as written, "\n" glued an "n" to the next line's first word (an e-mail address was masked
// with it, and came back as "nanna.smit@…"), every rule that reads lines saw one line, and an
// accented name was read in pieces ("Fran" masked, "\u00e7ois Dupont" sent in clear). The detector
// reads a view of the text in which escapes are the characters they stand for, and moves what it
// finds back to the text's offsets: the placeholder replaces the escapes as written, whole, so a
// JSON text stays valid. See docs/decisions/0031-the-firewall-reads-escapes-as-what-they-stand-for.md.
//
// - "\u" escapes of characters (beyond ASCII, and ASCII's punctuation that .NET, Go and Rails
//   escape: "\u003c" "<", "\u0026" "&", "\u002B" "+"), anywhere; a run of backslashes before one is
//   text escaped twice. An escaped quote reads as a typographic one ("\u0022Anna Smit\u0022"): a
//   straight one would end the literal around it.
// - "\n", "\t", "\r" and "\/" only inside a double-quoted string, after an odd run of backslashes:
//   "CORP\\tom" in JSON, and "\\fileserver\home\nina.jansen@…" in prose, are a backslash and a
//   letter (read as a tab, the placeholder took "om.devries@…").
// - "\"" and "\\" stay as written: a literal keeps its quotes and the key before it (structure.ts).
//   A value that holds an escaped quote ("Jan \"JJ\" de Vries") is valued as it reads all the same
//   (`withQuoteEscapesRead`): a JSON answer escaped it a second time ("Jan \\\"JJ\\\" de Vries").
//
// The vault keeps the value decoded, which tool-call arguments take back (escaped again for JSON),
// and, when the value held a line break or tab escape, its form with those as written, which a
// reply's text takes back: there the placeholder may stand in a JSON string the model repeats,
// which a raw line break made invalid.
import type { Detection } from './types.js';
import { hexValue } from './url-encoded.js';
import { normalizeValue } from './vault.js';

export interface EscapesView {
  /** The text with its escapes decoded. */
  readonly text: string;
  /** For each offset of the view (and its end), the offset in the text of what it was read from. */
  readonly at: Int32Array;
}

const BACKSLASH = 92;
const QUOTE = 34;
const LF = 10;
/** Backslashes before an escape's letter read as one escape ("\\u00e9": a text escaped twice). */
const MAX_BACKSLASHES = 4;

/** The character a "\u" escape of code `code` reads as in the view, or null for one that stays as written. */
function unicodeChar(code: number): string | null {
  if (code >= 0xa0) return String.fromCharCode(code);
  if (code === QUOTE) return '\u201d';
  // A backslash or a control character is syntax; a letter or digit is not escaped but by mistake.
  if (code < 0x20 || code > 0x7e || code === BACKSLASH) return null;
  const c = String.fromCharCode(code);
  return /[A-Za-z0-9]/.test(c) ? null : c;
}

interface Escape {
  char: string;
  /** From the first backslash to the end of the escape. */
  length: number;
  /** A line break or tab: what a reply's text gets back as written. */
  control: boolean;
}

/** The escape whose first backslash is at `at`, or null for a backslash read as written. */
function escapeAt(text: string, at: number, inString: boolean): Escape | null {
  let letter = at;
  while (letter < text.length && text.charCodeAt(letter) === BACKSLASH && letter - at < MAX_BACKSLASHES) letter++;
  const run = letter - at;
  const c = text.charCodeAt(letter);
  if (c === 117) {
    // u
    let code = 0;
    for (let k = 1; k <= 4; k++) {
      const h = hexValue(text.charCodeAt(letter + k));
      if (h < 0) return null;
      code = code * 16 + h;
    }
    const char = unicodeChar(code);
    return char === null ? null : { char, length: run + 5, control: false };
  }
  if (!inString || run % 2 === 0) return null;
  if (c === 110) return { char: '\n', length: run + 1, control: true };
  if (c === 116) return { char: '\t', length: run + 1, control: true };
  if (c === 114) return { char: '\r', length: run + 1, control: true };
  if (c === 47) return { char: '/', length: run + 1, control: false };
  return null;
}

/**
 * The view of `text` with its escapes decoded (see the module comment), or null when it has none:
 * most texts, at the cost of one indexOf. `controls`: line breaks and tabs too (false gives the
 * form a reply's text gets back).
 */
export function escapesView(text: string, controls = true): EscapesView | null {
  const first = text.indexOf('\\');
  if (first < 0) return null;
  const parts: string[] = [];
  const at: number[] = [];
  let last = 0;
  // Whether the position is inside a double-quoted string: quotes since the line's start, the
  // escaped ones not counted.
  let inString = false;
  for (let i = 0; i < first; i++) {
    const c = text.charCodeAt(i);
    if (c === QUOTE) inString = !inString;
    else if (c === LF) inString = false;
  }
  let i = first;
  while (i < text.length) {
    const c = text.charCodeAt(i);
    if (c === QUOTE) {
      inString = !inString;
      i++;
      continue;
    }
    if (c === LF) {
      inString = false;
      i++;
      continue;
    }
    if (c !== BACKSLASH) {
      i++;
      continue;
    }
    const e = escapeAt(text, i, inString);
    if (e === null || (e.control && !controls)) {
      // The run as written, and the character after an odd run ("\"" does not end the string;
      // after "\\" a quote does).
      let j = i;
      while (j < text.length && text.charCodeAt(j) === BACKSLASH) j++;
      i = (j - i) % 2 === 1 ? j + 1 : j;
      continue;
    }
    parts.push(text.slice(last, i), e.char);
    for (let k = last; k <= i; k++) at.push(k);
    i += e.length;
    last = i;
  }
  if (parts.length === 0) return null;
  parts.push(text.slice(last));
  for (let k = last; k < text.length; k++) at.push(k);
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
    if (d.text === value || d.urlDecoded !== undefined) continue;
    // A view read inside this one (html-entities.ts) may have decoded the value further.
    const decoded = d.escapedDecoded ?? value;
    d.escapedDecoded = decoded;
    d.normalized ??= normalizeValue(d.type, decoded);
    const written = escapesView(d.text, false)?.text ?? d.text;
    if (written !== decoded) d.escapedAsWritten = written;
  }
  return detections;
}

const ESCAPED_QUOTE = '\\"';

/**
 * Detections whose text holds an escaped quote (`Jan \"JJ\" de Vries`, only ever written inside a
 * string literal), in place: valued with "\"" and "\\" read, their form as written kept for a
 * reply's text. A JSON answer, and a tool call's arguments, escape the value once again, as they
 * do every other value; valued as written, it came back with its backslashes doubled.
 */
export function withQuoteEscapesRead(text: string, detections: Detection[]): Detection[] {
  if (text.indexOf(ESCAPED_QUOTE) < 0) return detections;
  for (const d of detections) {
    if (d.urlDecoded !== undefined || d.text.indexOf(ESCAPED_QUOTE) < 0) continue;
    const asWritten = d.escapedAsWritten ?? d.escapedDecoded ?? d.text;
    d.escapedDecoded = (d.escapedDecoded ?? d.text).replace(/\\(["\\])/g, '$1');
    d.escapedAsWritten = asWritten;
  }
  return detections;
}
