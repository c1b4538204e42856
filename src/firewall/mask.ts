// Masking: replaces each detection with its typed, numbered placeholder from the request's vault.
// Long texts are read in slices (slices.ts); the generator forms (`*Steps`) yield between them, for
// callers that give the event loop its turn.
import { WorkBudget } from './budget.js';
import { detectEntities, findRepeats, type RepeatIndex } from './detect.js';
import { detectLanguage } from './language.js';
import { RECOGNIZERS } from './recognizers/index.js';
import type { TextScan } from './scan.js';
import { detectSliced, runSteps, SLICE_CHARS, type Steps } from './slices.js';
import type { Detection, Language } from './types.js';
import type { Vault } from './vault.js';

export interface MaskResult {
  text: string;
  detections: Detection[];
}

/** `text` with each detection (in order, none overlapping) replaced by its placeholder. */
export function withPlaceholders(
  text: string,
  detections: readonly Detection[],
  vault: Vault,
  written: (placeholder: string, d: Detection) => string = (placeholder) => placeholder,
): string {
  if (detections.length === 0) return text;
  const parts: string[] = [];
  let last = 0;
  for (const d of detections) {
    parts.push(text.slice(last, d.start), written(vault.placeholderFor(d), d));
    last = d.end;
  }
  parts.push(text.slice(last));
  return parts.join('');
}

/**
 * `text`, already masked, with every occurrence of the index's values (a request's vault: firewall.ts)
 * replaced by its placeholder, reading the text slice by slice.
 */
export function* maskRepeatsSteps(text: string, index: RepeatIndex, vault: Vault): Steps<string> {
  const found: Detection[] = [];
  for (let from = 0; from < text.length; from += SLICE_CHARS) {
    // A value found across the slice's end is not read again from inside it.
    const start = Math.max(from, found.length > 0 ? found[found.length - 1]!.end : 0);
    for (const d of findRepeats(text, index, [], start, from + SLICE_CHARS)) found.push(d);
    if (from + SLICE_CHARS < text.length) yield;
  }
  // In JSON (tool-call arguments, a tool's result) a number found again is a number literal
  // (`{"customer_id":4471882}`): its placeholder goes in quotes, or the JSON would not parse.
  if (!/^\s*[[{]/.test(text)) return withPlaceholders(text, found, vault);
  return withPlaceholders(text, found, vault, (placeholder, d) => (isNumberLiteralAt(text, d.start, d.end) ? `"${placeholder}"` : placeholder));
}

/** Whether [start, end) is a JSON number literal: digits between a `:`, `[` or `,` and a `,`, `]` or `}`. */
function isNumberLiteralAt(text: string, start: number, end: number): boolean {
  if (!/^-?[0-9]+(?:\.[0-9]+)?$/.test(text.slice(start, end))) return false;
  let before = start - 1;
  while (before >= 0 && /\s/.test(text[before]!)) before--;
  let after = end;
  while (after < text.length && /\s/.test(text[after]!)) after++;
  return before >= 0 && ':[,'.includes(text[before]!) && after < text.length && ',]}'.includes(text[after]!);
}

/**
 * `maskTextDetailed` as steps that yield between the slices of a long text. A text of one slice
 * takes no step: a generator costs more than the masking of a short prompt, which is most texts.
 */
export function* maskSteps(text: string, language: Language, vault: Vault, budget: WorkBudget, scan?: TextScan): Steps<MaskResult> {
  if (text.length <= SLICE_CHARS) return maskShort(text, language, vault, budget, scan);
  const detections: Detection[] = [];
  const parts: string[] = [];
  let last = 0;
  // Placeholders are handed out as each slice is read: for a text of a hundred thousand names,
  // doing it all at the end held the event loop as long as a dozen slices.
  yield* detectSliced(text, language, budget, (d) => {
    detections.push(d);
    parts.push(text.slice(last, d.start), vault.placeholderFor(d));
    last = d.end;
  });
  if (detections.length === 0) return { text, detections };
  parts.push(text.slice(last));
  return { text: parts.join(''), detections };
}

/** Masks a text of at most one slice, in one go. */
export function maskShort(text: string, language: Language, vault: Vault, budget: WorkBudget, scan?: TextScan): MaskResult {
  const detections = detectEntities(text, language, RECOGNIZERS, scan, budget);
  return { text: withPlaceholders(text, detections, vault), detections };
}

/**
 * Masks `text`, returning the masked text and what was found (offsets refer to the input). `scan`
 * may pass the text's pre-scan when the caller already made one; `budget` is the request's work
 * budget (budget.ts), unbounded when none is given.
 */
export function maskTextDetailed(text: string, language: Language, vault: Vault, scan?: TextScan, budget = WorkBudget.unbounded()): MaskResult {
  if (text.length <= SLICE_CHARS) return maskShort(text, language, vault, budget, scan);
  return runSteps(maskSteps(text, language, vault, budget, scan));
}

export function maskText(text: string, language: Language, vault: Vault): string {
  return maskTextDetailed(text, language, vault).text;
}

interface Literal {
  /** Offsets of the string literal in the JSON text, quotes included. */
  start: number;
  end: number;
  key: boolean;
}

function isJsonSpace(c: number): boolean {
  return c === 32 || c === 10 || c === 13 || c === 9;
}

/**
 * The string literals of a valid JSON text, keys and values, in document order. One loop over the
 * characters and no recursion, so that no depth of nesting can exhaust the stack.
 */
function stringLiterals(json: string): Literal[] {
  const out: Literal[] = [];
  const n = json.length;
  for (let i = 0; i < n; i++) {
    if (json.charCodeAt(i) !== 34) continue;
    let j = i + 1;
    while (j < n) {
      const c = json.charCodeAt(j);
      if (c === 92) j += 2;
      else if (c === 34) break;
      else j++;
    }
    const end = j + 1;
    let k = end;
    while (k < n && isJsonSpace(json.charCodeAt(k))) k++;
    out.push({ start: i, end, key: json.charCodeAt(k) === 58 });
    i = end - 1;
  }
  return out;
}

/** Characters of string values read to detect the language of the arguments (as guessLanguage reads). */
const LANGUAGE_SAMPLE = 1000;

/**
 * `maskJsonArguments` as steps that yield after every slice's worth of text. The language is
 * detected over the string values when `language` is 'auto'.
 */
export function* maskJsonSteps(
  json: string,
  language: Language | 'auto',
  vault: Vault,
  budget: WorkBudget,
  fallback: Language = 'en',
): Steps<string> {
  try {
    // Only to know that it is JSON: V8 parses any depth without recursion.
    JSON.parse(json);
  } catch {
    const lang = language === 'auto' ? detectLanguage(json, fallback) : language;
    return (yield* maskSteps(json, lang, vault, budget)).text;
  }
  const literals = stringLiterals(json);
  const decoded = literals.map((l) => JSON.parse(json.slice(l.start, l.end)) as string);
  let lang: Language;
  if (language === 'auto') {
    const sample: string[] = [];
    let length = 0;
    for (let k = 0; k < literals.length && length < LANGUAGE_SAMPLE; k++) {
      if (literals[k]!.key) continue;
      sample.push(decoded[k]!);
      length += decoded[k]!.length + 1;
    }
    lang = detectLanguage(sample.join('\n'), fallback);
  } else {
    lang = language;
  }
  const parts: string[] = [];
  let last = 0;
  let read = 0;
  for (let k = 0; k < literals.length; k++) {
    const value = decoded[k]!;
    // Keys are masked too: a key can carry a name or an address as well as a value can. A value
    // the request masked elsewhere by where it stood (a `birth_date`, a postcode column) is the
    // same value here, where nothing around it says so: an agent sends back the call it was given.
    let masked = (yield* maskSteps(value, lang, vault, budget)).text;
    if (masked === value && !literals[k]!.key) masked = vault.knownPlaceholder(value) ?? value;
    if (masked !== value) {
      parts.push(json.slice(last, literals[k]!.start), JSON.stringify(masked));
      last = literals[k]!.end;
    }
    read += value.length;
    if (read >= SLICE_CHARS) {
      read = 0;
      yield;
    }
  }
  // Unchanged arguments keep their exact original formatting; changed ones keep it around the
  // masked strings.
  if (parts.length === 0) return json;
  parts.push(json.slice(last));
  return parts.join('');
}

/**
 * Masks the strings of a JSON document (tool-call arguments), leaving numbers, literals, structure
 * and formatting alone. The language is detected over all string values together when `language`
 * is 'auto'. Text that is not valid JSON is masked as plain text.
 */
export function maskJsonArguments(
  json: string,
  language: Language | 'auto',
  vault: Vault,
  fallback: Language = 'en',
  budget = WorkBudget.unbounded(),
): string {
  return runSteps(maskJsonSteps(json, language, vault, budget, fallback));
}
