// Personal data percent-encoded in a URL or query string in the text: "…/contacts?email=jan%40example.nl",
// "mailto:jan.devries%40example.nl", "?naam=Jan+de+Vries". The recognizers read text as written, in
// which "%40" is no "@"; so a token of the text that holds a percent escape and is shaped like a URL
// (a scheme, "www.", a path or a query) is also read decoded — escapes decoded, "+" a space in the
// query — and what is found there that spans a decoded character is masked in the token as written,
// with the placeholder percent-encoded (`%5BEMAIL_1%5D`) so that the URL stays a URL. The vault keeps
// the value as written for restoring that form, and decoded for the placeholder in prose
// (vault.ts, restore.ts). Image URLs, a side door, are read component by component (fields.ts).
import type { Detection } from './types.js';
import { normalizeValue } from './vault.js';

/** Longer tokens are not read decoded: a URL is rarely longer, and the cost stays one slice's. */
const MAX_TOKEN = 4096;

const PERCENT = 37;
const PLUS = 43;

/** The value of a hexadecimal digit's character code, or -1. */
export function hexValue(c: number): number {
  if (c >= 48 && c <= 57) return c - 48;
  const u = c | 32;
  return u >= 97 && u <= 102 ? u - 87 : -1;
}

function isEscapeAt(text: string, i: number): boolean {
  return text.charCodeAt(i) === PERCENT && hexValue(text.charCodeAt(i + 1)) >= 0 && hexValue(text.charCodeAt(i + 2)) >= 0;
}

/** Characters that end a token: white space, and what quotes or brackets a URL in text. */
function endsToken(c: number): boolean {
  return c <= 32 || c === 34 || c === 39 || c === 60 || c === 62 || c === 96 || c === 0xa0 || c === 0x2028 || c === 0x2029;
}

/** Punctuation that ends a sentence after a URL rather than belonging to it. */
function trailingPunctuation(c: number): boolean {
  return c === 46 || c === 44 || c === 59 || c === 58 || c === 33 || c === 63 || c === 41 || c === 93 || c === 125;
}

const URL_SHAPED = /^(?:[a-z][a-z0-9+.-]{0,15}:|www\.)|[/?=&]/i;

export interface DecodedToken {
  /** The token decoded. */
  text: string;
  /** For each offset of the decoded text (and its end), the offset in the token as written. */
  at: Int32Array;
  /** Whether each decoded code unit was written otherwise (an escape, or "+" for a space). */
  changed: Uint8Array;
}

/**
 * `token` with its percent escapes decoded (runs of them as UTF-8; malformed runs left as written)
 * and, when `plus` allows it, "+" as a space after "?".
 */
export function decodeToken(token: string, plus = true): DecodedToken {
  const parts: string[] = [];
  const at: number[] = [];
  const changed: number[] = [];
  const query = plus ? token.indexOf('?') : -1;
  let i = 0;
  while (i < token.length) {
    if (isEscapeAt(token, i)) {
      let j = i;
      const bytes: number[] = [];
      while (isEscapeAt(token, j)) {
        bytes.push(hexValue(token.charCodeAt(j + 1)) * 16 + hexValue(token.charCodeAt(j + 2)));
        j += 3;
      }
      // Each character of the run decoded alone, so that a malformed byte spoils only itself.
      let k = 0;
      while (k < bytes.length) {
        const b = bytes[k]!;
        const len = b < 0x80 ? 1 : b >= 0xc2 && b < 0xe0 ? 2 : b >= 0xe0 && b < 0xf0 ? 3 : b >= 0xf0 && b < 0xf5 ? 4 : 0;
        let ch: string | null = null;
        if (len > 0 && k + len <= bytes.length) {
          try {
            ch = new TextDecoder('utf-8', { fatal: true }).decode(Uint8Array.from(bytes.slice(k, k + len)));
          } catch {
            ch = null;
          }
        }
        const from = i + 3 * k;
        if (ch === null) {
          parts.push(token.slice(from, from + 3));
          for (let m = 0; m < 3; m++) {
            at.push(from + m);
            changed.push(0);
          }
          k++;
        } else {
          parts.push(ch);
          for (let m = 0; m < ch.length; m++) {
            at.push(from);
            changed.push(1);
          }
          k += len;
        }
      }
      i = j;
    } else if (token.charCodeAt(i) === PLUS && query >= 0 && i > query) {
      parts.push(' ');
      at.push(i);
      changed.push(1);
      i++;
    } else {
      parts.push(token[i]!);
      at.push(i);
      changed.push(0);
      i++;
    }
  }
  at.push(token.length);
  return { text: parts.join(''), at: Int32Array.from(at), changed: Uint8Array.from(changed) };
}

/**
 * A value encoded twice ("jan%2540example.nl": a client escaped an already escaped URL, or a
 * redirect carries one in its query) decodes to another escape; read once, it stayed in clear. A
 * third round covers a URL nested in a redirect's redirect; more is not seen in practice, and the
 * bound keeps a token's cost at a few passes over it.
 */
const MAX_DECODINGS = 3;

/** Whether a decoded "%" opens an escape: decoding once more would change the text. */
function decodedEscape(d: DecodedToken): boolean {
  for (let i = d.text.indexOf('%'); i >= 0; i = d.text.indexOf('%', i + 1)) if (d.changed[i] === 1 && isEscapeAt(d.text, i)) return true;
  return false;
}

/**
 * `token` decoded until no decoded "%" opens an escape, at most MAX_DECODINGS times, with offsets
 * and changes relative to the token as written. "+" is a space in the first round only: in a later
 * one it was written "%2B", a plus ("?tel=%2B316…").
 */
export function decodeTokenRepeatedly(token: string): DecodedToken {
  let d = decodeToken(token);
  for (let round = 1; round < MAX_DECODINGS && decodedEscape(d); round++) {
    const next = decodeToken(d.text, false);
    const at = new Int32Array(next.at.length);
    const changed = new Uint8Array(next.changed.length);
    for (let i = 0; i < next.at.length; i++) at[i] = d.at[next.at[i]!]!;
    for (let i = 0; i < next.changed.length; i++) changed[i] = next.changed[i]! | d.changed[next.at[i]!]!;
    d = { text: next.text, at, changed };
  }
  return d;
}

/**
 * Where the text's URL-shaped tokens holding a percent escape are, as [start, end) pairs, in order.
 * Each character is visited at most twice (once to find the token, once to pass it).
 */
export function encodedTokens(text: string): number[] {
  const out: number[] = [];
  let from = 0;
  for (let p = text.indexOf('%', from); p >= 0; p = text.indexOf('%', from)) {
    if (!isEscapeAt(text, p)) {
      from = p + 1;
      continue;
    }
    let start = p;
    while (start > from && !endsToken(text.charCodeAt(start - 1))) start--;
    let end = p + 3;
    while (end < text.length && !endsToken(text.charCodeAt(end))) end++;
    from = end;
    while (end > p + 3 && trailingPunctuation(text.charCodeAt(end - 1))) end--;
    if (end - start > MAX_TOKEN || !URL_SHAPED.test(text.slice(start, Math.min(end, start + 64)))) continue;
    out.push(start, end);
  }
  return out;
}

/**
 * The detections made on a decoded token (`found`, offsets in `decoded.text`) that span a decoded
 * character, moved to the text's offsets (`offset`: the token's start); the rest the text as
 * written already gives.
 */
export function encodedDetections(text: string, offset: number, decoded: DecodedToken, found: readonly Detection[]): Detection[] {
  const out: Detection[] = [];
  for (const d of found) {
    let touches = false;
    for (let i = d.start; i < d.end && !touches; i++) touches = decoded.changed[i] === 1;
    if (!touches) continue;
    const start = offset + decoded.at[d.start]!;
    // Where the character after it is written: just after the spelling of its last one.
    const end = offset + decoded.at[d.end]!;
    const value = decoded.text.slice(d.start, d.end);
    out.push({
      type: d.type,
      start,
      end,
      text: text.slice(start, end),
      checksum: d.checksum,
      normalized: d.normalized ?? normalizeValue(d.type, value),
      urlDecoded: value,
    });
  }
  return out;
}
