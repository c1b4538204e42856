// Restoring placeholders in the model's reply, in one piece or streamed.
//
// The model may alter a placeholder slightly; all of these restore `[EMAIL_1]`:
//   [EMAIL_1]  [email_1]  Email_1  EMAIL_1  [ EMAIL_1 ]  [EMAIL_1  EMAIL_1]  \[EMAIL\_1\]  [EMAIL-1]
// and, inside a URL the firewall masked, %5BEMAIL_1%5D (the brackets percent-encoded).
// A bracket-less placeholder must not be glued to a preceding letter or digit ("XEMAIL_1" is not
// one). A placeholder the vault does not know is left as written.
//
// Streams: `createStreamRestorer` emits everything at once except a tail that could still grow into
// a placeholder (`[EMA`, `EMAIL_`, `[PERSON_1`, `PERSON_1 `), which it holds until the next chunk
// decides it. The concatenated output equals `restoreText` of the concatenated input for every way
// of splitting it.
import { ENTITY_TYPES, type EntityType } from './types.js';
import type { Vault } from './vault.js';

const MAX_DIGITS = 6;
const MAX_PAD = 2;

type Scan = { kind: 'match'; end: number; key: string; encoded?: true } | { kind: 'partial' } | null;
const PARTIAL: Scan = { kind: 'partial' };

// Character codes: a placeholder is read code by code, never by one-character strings (a reply of
// a megabyte of placeholders took 300 ms to restore that way).
const OPEN = 91; // [
const CLOSE = 93; // ]
const BACKSLASH = 92;
const SPACE = 32;
const UNDERSCORE = 95;
const HYPHEN = 45;
const PERCENT = 37;
const FIVE = 53;
const LETTER_B = 66;
const LETTER_D = 68;

/**
 * Whether the percent-encoded bracket `%5B` (or `%5D`, by `letter`), in either case, is at `p`:
 * 1 when it is, 0 when not, -1 when the input ends inside it.
 */
function encodedBracketAt(s: string, p: number, letter: number, final: boolean): number {
  for (let k = 0; k < 3; k++) {
    if (p + k >= s.length) return final ? 0 : -1;
    const c = s.charCodeAt(p + k);
    if (k === 0 ? c !== PERCENT : k === 1 ? c !== FIVE : upperCode(c) !== letter) return 0;
  }
  return 1;
}

/**
 * The upper case of a code unit as `toUpperCase` gives it, where that is an ASCII letter; the two
 * non-ASCII letters whose capital is one (dotless ı → I, long ſ → S) included. -1 otherwise.
 */
function upperCode(c: number): number {
  if (c >= 97 && c <= 122) return c - 32;
  if (c < 128) return c;
  if (c === 0x131) return 73;
  if (c === 0x17f) return 83;
  return -1;
}

/** Type names split on '_', as codes: [[EMAIL], [STEUER, ID], …]. */
const TYPE_PARTS: ReadonlyArray<{ type: EntityType; first: number; parts: number[][] }> = ENTITY_TYPES.map((t) => ({
  type: t,
  first: t.charCodeAt(0),
  parts: t.split('_').map((p) => [...p].map((ch) => ch.charCodeAt(0))),
}));
const FIRST_LETTER = new Uint8Array(128);
for (const t of ENTITY_TYPES) FIRST_LETTER[t.charCodeAt(0)] = 1;

function isFirstLetter(c: number): boolean {
  const u = upperCode(c);
  return u >= 0 && u < 128 && FIRST_LETTER[u] === 1;
}

function isWordCode(x: number): boolean {
  return (x >= 48 && x <= 57) || (x >= 65 && x <= 90) || (x >= 97 && x <= 122) || x === 95 || x > 127;
}

/**
 * Length of a separator at `p` ('_', '\_' or '-', and a space where `space` allows it), 0 when
 * there is none, -1 when the input ends in the middle of one (a lone trailing backslash).
 */
function sepAt(s: string, p: number, final: boolean, space: boolean): number {
  const c = s.charCodeAt(p);
  if (c === UNDERSCORE || c === HYPHEN || (space && c === SPACE)) return 1;
  if (c === BACKSLASH) {
    if (p + 1 >= s.length) return final ? 0 : -1;
    return s.charCodeAt(p + 1) === UNDERSCORE ? 2 : 0;
  }
  return 0;
}

/**
 * Tries one type name with its number at `p` (after any opening bracket). `space`: a space may
 * stand for a separator (`[Person 1]`); `spaced` says whether one did.
 */
function scanType(s: string, p: number, parts: number[][], final: boolean, space: boolean): { end: number; n: string; spaced: boolean } | 'partial' | null {
  const len = s.length;
  let spaced = false;
  for (let k = 0; k < parts.length; k++) {
    const part = parts[k]!;
    for (let j = 0; j < part.length; j++) {
      if (p >= len) return final ? null : 'partial';
      if (upperCode(s.charCodeAt(p)) !== part[j]) return null;
      p++;
    }
    // After each part a separator: between parts of the name, and before the number.
    if (p >= len) return final ? null : 'partial';
    const sep = sepAt(s, p, final, space);
    if (sep < 0) return 'partial';
    if (sep === 0) return null;
    if (s.charCodeAt(p) === SPACE) spaced = true;
    p += sep;
  }
  const digitsStart = p;
  while (p < len && p - digitsStart < MAX_DIGITS + 1 && s.charCodeAt(p) >= 48 && s.charCodeAt(p) <= 57) p++;
  const nd = p - digitsStart;
  if (nd === 0) return p >= len && !final ? 'partial' : null;
  if (nd > MAX_DIGITS) return null;
  if (p >= len && !final) return 'partial'; // more digits may follow
  return { end: p, n: s.slice(digitsStart, p), spaced };
}

/**
 * Reads a placeholder starting at `i`. `final` says whether the input is complete; when it is
 * not, a placeholder that the rest of the input could still complete or extend gives 'partial'.
 */
export function scanPlaceholder(s: string, i: number, final: boolean): Scan {
  const len = s.length;
  let p = i;
  if (s.charCodeAt(p) === PERCENT) {
    const open = encodedBracketAt(s, i, LETTER_B, final);
    if (open <= 0) return open < 0 ? PARTIAL : null;
    p += 3;
    if (p >= len) return final ? null : PARTIAL;
    return scanNamed(s, p, final, 'encoded');
  }
  const escapedOpen = s.charCodeAt(p) === BACKSLASH;
  if (escapedOpen) {
    if (p + 1 >= len) return final ? null : PARTIAL;
    if (s.charCodeAt(p + 1) !== OPEN) return null;
    p++;
  }
  const bracketed = s.charCodeAt(p) === OPEN;
  if (bracketed) {
    p++;
    let pad = 0;
    while (p < len && s.charCodeAt(p) === SPACE && pad < MAX_PAD) {
      p++;
      pad++;
    }
    if (p >= len) return final ? null : PARTIAL;
  }
  if (p >= len) return null;
  return scanNamed(s, p, final, escapedOpen ? 'escaped' : bracketed ? 'bracketed' : 'plain');
}

/**
 * A type name and number at `p`, then its closing as the opening asks: after a plain or no
 * bracket, optional padding, an optional backslash and ']'; after '\[' (Markdown's escape), '\]';
 * after '%5B' (in a URL), '%5D'. Between a plain bracket's, a space may stand for the underscore
 * (`[Person 1]`, as models write it): only when the closing bracket is there too, since "Person 1"
 * alone is how transcripts and lists name people.
 */
function scanNamed(s: string, p: number, final: boolean, opening: 'plain' | 'bracketed' | 'escaped' | 'encoded'): Scan {
  const len = s.length;
  const c = upperCode(s.charCodeAt(p));
  if (c < 0 || c >= 128 || FIRST_LETTER[c] === 0) return null;
  let partial = false;
  for (const { type, first, parts } of TYPE_PARTS) {
    if (first !== c) continue;
    const r = scanType(s, p, parts, final, opening === 'bracketed');
    if (r === 'partial') {
      partial = true;
      continue;
    }
    if (!r) continue;
    const key = `${type}_${Number(r.n)}`;
    if (opening === 'encoded') {
      const close = encodedBracketAt(s, r.end, LETTER_D, final);
      if (close < 0) return PARTIAL;
      return close === 1 ? { kind: 'match', end: r.end + 3, key, encoded: true } : null;
    }
    let q = r.end;
    // A separator left after the number inside brackets ("[PERSON_1_]", as models write it): part
    // of the placeholder only when the closing bracket follows, so "[PERSON_1_2]" is read as before.
    let stray = 0;
    if (opening !== 'plain') {
      stray = sepAt(s, q, final, false);
      if (stray < 0) return PARTIAL;
      q += stray;
    }
    let pad = 0;
    while (q < len && s.charCodeAt(q) === SPACE && pad < MAX_PAD) {
      q++;
      pad++;
    }
    const escapedClose = q < len && s.charCodeAt(q) === BACKSLASH;
    if (escapedClose) q++;
    // Only padding (or a backslash) up to the end of the input: the closing bracket may follow.
    if (q >= len && !final) return PARTIAL;
    const closed = q < len && s.charCodeAt(q) === CLOSE;
    // A backslash before '[' is Markdown's escape only when ']' is escaped too (\[EMAIL\_1\]);
    // otherwise it is the text's own: a Windows path (C:\Users\[PERSON_1]) or a JSON escape
    // ("C:\\Users\\[PERSON_1]"), and it stays where it is (the scan starts again at '[').
    if (opening === 'escaped' && !(escapedClose && closed)) return null;
    if (r.spaced && !closed) return null;
    if (stray > 0 && !closed) return { kind: 'match', end: r.end, key };
    return { kind: 'match', end: closed ? q + 1 : r.end, key };
  }
  return partial && !final ? PARTIAL : null;
}

// ASCII codes that can start a placeholder: '[', '\\', '%' and the type names' first letters in either
// case. Most characters of a reply are none of these and cost one lookup.
const MAY_START = new Uint8Array(128);
MAY_START[OPEN] = 1;
MAY_START[BACKSLASH] = 1;
MAY_START[PERCENT] = 1;
for (let c = 0; c < 128; c++) if (isFirstLetter(c)) MAY_START[c] = 1;

/** Whether a placeholder may start at `i`, given the code unit before it (-1: none). */
function candidateStart(s: string, i: number, prev: number): boolean {
  const c = s.charCodeAt(i);
  if (c < 128 ? MAY_START[c] === 0 : c !== 0x131 && c !== 0x17f) return false;
  if (c === OPEN || c === BACKSLASH || c === PERCENT) return true;
  return !isWordCode(prev);
}

export interface RestoreOptions {
  /** Escape restored values for the inside of a JSON string (tool-call arguments). */
  json?: boolean;
}

function render(value: string, opts: RestoreOptions | undefined): string {
  return opts?.json ? JSON.stringify(value).slice(1, -1) : value;
}

interface Progress {
  out: string;
  /** Index where scanning stopped: the input length, or the start of a held-back tail. */
  stop: number;
  /** Whether a placeholder ends where scanning stopped (the next one may follow it directly). */
  afterPlaceholder: boolean;
}

/**
 * `afterPlaceholder`: a placeholder ended right before `s` (a stream's previous chunk). One may
 * follow another without a space ("PERSON_1PERSON_1"): the second starts after a digit, which
 * otherwise says a word goes on ("XEMAIL_1" is no placeholder).
 */
function run(s: string, prev: string | undefined, final: boolean, vault: Vault, opts: RestoreOptions | undefined, afterPlaceholder = false): Progress {
  const parts: string[] = [];
  let last = 0;
  let i = 0;
  let matchEnd = afterPlaceholder ? 0 : -1;
  const n = s.length;
  while (i < n) {
    const before = i === matchEnd ? -1 : i === 0 ? (prev === undefined ? -1 : prev.charCodeAt(0)) : s.charCodeAt(i - 1);
    if (!candidateStart(s, i, before)) {
      i++;
      continue;
    }
    const r = scanPlaceholder(s, i, final);
    if (r === null) {
      i++;
      continue;
    }
    if (r.kind === 'partial') {
      parts.push(s.slice(last, i));
      return { out: parts.join(''), stop: i, afterPlaceholder: i === matchEnd };
    }
    // In a URL, a value that was percent-encoded there comes back as it was written there; in a
    // reply's text, one written with line break escapes comes back with them (Vault.textValue).
    const value = r.encoded ? vault.urlValueOf(r.key) : opts?.json ? vault.valueOf(r.key) : vault.textValueOf(r.key);
    if (value !== undefined) {
      parts.push(s.slice(last, i), render(value, opts));
      last = r.end;
    }
    i = matchEnd = r.end;
  }
  if (last === 0) return { out: s, stop: n, afterPlaceholder: n === matchEnd };
  parts.push(s.slice(last));
  return { out: parts.join(''), stop: n, afterPlaceholder: n === matchEnd };
}

// A type name, its separators ('_', '-', Markdown's '\_') and a digit: text without one holds no
// placeholder, found at native speed (phones and dates have "-1" everywhere; type names rarely).
const DIGIT_AFTER_SEPARATOR = /[_ -]\d/;
const MAY_HOLD_PLACEHOLDER = new RegExp(`(?:${ENTITY_TYPES.map((t) => t.split('_').join('\\\\?[_ -]')).join('|')})\\\\?[_ -]\\d`, 'i');

/** The keys (`PERSON_3`) of the placeholders written in a text, in every form restoration reads. */
export function placeholderKeysIn(text: string): string[] {
  if (!DIGIT_AFTER_SEPARATOR.test(text) || !MAY_HOLD_PLACEHOLDER.test(text)) return [];
  const keys: string[] = [];
  let i = 0;
  let matchEnd = -1;
  while (i < text.length) {
    if (!candidateStart(text, i, i === 0 || i === matchEnd ? -1 : text.charCodeAt(i - 1))) {
      i++;
      continue;
    }
    const r = scanPlaceholder(text, i, true);
    if (r === null || r.kind === 'partial') {
      i++;
      continue;
    }
    keys.push(r.key);
    i = matchEnd = r.end;
  }
  return keys;
}

/** Puts the original values back in place of the placeholders the vault knows. */
export function restoreText(text: string, vault: Vault, opts?: RestoreOptions): string {
  if (vault.size === 0 || text.length === 0) return text;
  return run(text, undefined, true, vault, opts).out;
}

export interface StreamRestorer {
  /** Feeds the next chunk; returns the text that can be emitted now. */
  push(chunk: string): string;
  /** Ends the stream; returns whatever was held back, restored. */
  flush(): string;
  /** Characters currently held back (for tests and metrics). */
  readonly pending: number;
}

export function createStreamRestorer(vault: Vault, opts?: RestoreOptions): StreamRestorer {
  let held = '';
  let prev: string | undefined;
  let afterPlaceholder = false;
  return {
    push(chunk: string): string {
      if (chunk.length === 0) return '';
      const s = held + chunk;
      if (vault.size === 0) {
        held = '';
        prev = s[s.length - 1];
        return s;
      }
      const progress = run(s, prev, false, vault, opts, afterPlaceholder);
      if (progress.stop > 0) prev = s[progress.stop - 1];
      afterPlaceholder = progress.afterPlaceholder;
      held = s.slice(progress.stop);
      return progress.out;
    },
    flush(): string {
      if (held.length === 0) return '';
      const progress = run(held, prev, true, vault, opts, afterPlaceholder);
      prev = held[held.length - 1];
      afterPlaceholder = progress.afterPlaceholder;
      held = '';
      return progress.out;
    },
    get pending(): number {
      return held.length;
    },
  };
}

/** Restores placeholders inside tool-call arguments (a JSON text), escaping the values for JSON. */
export function restoreJsonArguments(json: string, vault: Vault): string {
  return restoreText(json, vault, { json: true });
}
