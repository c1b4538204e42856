// The short fields of a chat message that leave beside its text — its `name`, a file part's file
// name, an image part's URL — are masked too: a name in them is as personal as one in the text.
// They are read as they are written and, since they are often written as identifiers
// ("noor_de_vries_cv.pdf", "…?name=noor-devries"), also with `_` and `-` as spaces and with their
// words capitalised; those readings keep the offsets of the field, so what is found in any of them
// is masked in the field itself.
import type { WorkBudget } from './budget.js';
import { resolveOverlaps } from './detect.js';
import { isKnownFirstName, isKnownLastName } from './gazetteer/index.js';
import { detectSliced, SLICE_CHARS, type Steps } from './slices.js';
import type { Detection, EntityType, Language } from './types.js';
import { normalizeValue, type Vault } from './vault.js';
import { isNonNameWord } from './words.js';

// Label characters read as spaces, so that "noor_de_vries" reads as the name it is.
const LABEL_SEPARATORS = /[_-]/g;
const PARTICLES = new Set(['van', 'de', 'der', 'den', 'von', 'vom', 'zu', 'ter', 'ten', 'te', 'le', 'la', 'du', 'des', 'di', 'da', 'del']);

/**
 * Words capitalised, particles not: labels and file names are often written in lower case
 * ("noor_de_vries"). The length stays (a letter whose capital is longer stays as it is), so that
 * offsets in the result are offsets in the text.
 */
function capitalised(text: string): string {
  return text.replace(/\p{L}+/gu, (w) => {
    if (PARTICLES.has(w)) return w;
    const first = w[0]!.toUpperCase();
    return first.length === 1 ? first + w.slice(1) : w;
  });
}

/**
 * Detections of `text` and of its spaced and capitalised readings, which keep its offsets. A long
 * text is read once, spaced: three readings would triple the work the size limit bounds.
 */
function* detectReadings(text: string, language: Language, budget: WorkBudget): Steps<Detection[]> {
  const spaced = text.replace(LABEL_SEPARATORS, ' ');
  const readings = text.length > SLICE_CHARS ? [spaced] : [...new Set([text, spaced, capitalised(spaced)])];
  const all: Detection[] = [];
  for (const reading of readings) yield* detectSliced(reading, language, budget, (d) => all.push(d));
  return readings.length === 1 ? all : resolveOverlaps(all);
}

/** Masks `text` in place from the detections of its readings (see `detectReadings`). */
export function* maskSeparated(text: string, language: Language, vault: Vault, budget: WorkBudget): Steps<string> {
  const found = yield* detectReadings(text, language, budget);
  if (found.length === 0) return text;
  const parts: string[] = [];
  let last = 0;
  for (const d of found) {
    // The vault keeps the value as written; the reading's normalized form lets "Noor_de_Vries"
    // share the placeholder of "Noor de Vries" in the messages.
    const value = text.slice(d.start, d.end);
    const normalized = d.normalized ?? normalizeValue(d.type, d.text);
    parts.push(text.slice(last, d.start), vault.placeholderFor({ type: d.type, text: value, normalized }));
    last = d.end;
  }
  parts.push(text.slice(last));
  return parts.join('');
}

/** Decodes a URL component; a malformed escape leaves it as it is (and it is masked as it is). */
function decoded(component: string, plusIsSpace: boolean): string {
  const text = plusIsSpace ? component.replace(/\+/g, ' ') : component;
  try {
    return decodeURIComponent(text);
  } catch {
    return text;
  }
}

type MaskSteps = (text: string) => Steps<string>;

/** Masks a component of a URL read decoded; an unchanged component keeps its exact spelling. */
function* maskComponent(component: string, plusIsSpace: boolean, mask: MaskSteps): Steps<string> {
  if (component === '') return component;
  const text = decoded(component, plusIsSpace);
  const masked = yield* mask(text);
  return masked === text ? component : encodeURIComponent(masked);
}

export function* maskUrlSteps(url: string, maskPart: MaskSteps): Steps<string> {
  // Components are short; a URL of many of them pauses after every slice's worth.
  let read = 0;
  const mask = function* (text: string): Steps<string> {
    const out = yield* maskPart(text);
    read += text.length;
    if (read >= SLICE_CHARS) {
      read = 0;
      yield;
    }
    return out;
  };
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return yield* mask(url);
  }
  if (parsed.protocol === 'data:') return url;
  const user = yield* maskComponent(parsed.username, false, mask);
  const password = yield* maskComponent(parsed.password, false, mask);
  const segments: string[] = [];
  for (const segment of parsed.pathname.split('/')) segments.push(yield* maskComponent(segment, false, mask));
  const path = segments.join('/');
  const pairs: string[] = [];
  for (const pair of parsed.search.slice(1).split('&')) {
    const eq = pair.indexOf('=');
    if (eq < 0) pairs.push(yield* maskComponent(pair, true, mask));
    else pairs.push(`${yield* maskComponent(pair.slice(0, eq), true, mask)}=${yield* maskComponent(pair.slice(eq + 1), true, mask)}`);
  }
  const query = pairs.join('&');
  const fragment = yield* maskComponent(parsed.hash.slice(1), false, mask);
  const unchanged =
    user === parsed.username &&
    password === parsed.password &&
    path === parsed.pathname &&
    query === parsed.search.slice(1) &&
    fragment === parsed.hash.slice(1);
  // Unchanged, the URL keeps its exact spelling (URL normalizes what it parses).
  if (unchanged) return url;
  const auth = user !== '' || password !== '' ? `${user}${password !== '' ? `:${password}` : ''}@` : '';
  return `${parsed.protocol}//${auth}${parsed.host}${path}${query !== '' ? `?${query}` : ''}${fragment !== '' ? `#${fragment}` : ''}`;
}

/**
 * What personal data a label holds, as one entity: what the recognizers find in it (read as
 * written, spaced and capitalised), or else a word that is a known first name or surname — a label
 * is mostly a participant's name, and a name alone in it has no sentence around it to tell.
 */
export function* labelEntity(label: string, language: Language, budget: WorkBudget): Steps<{ type: EntityType; normalized: string } | null> {
  const spaced = label.replace(LABEL_SEPARATORS, ' ');
  const d = (yield* detectReadings(label, language, budget))[0];
  if (d !== undefined) {
    // A label that is all one value joins that value's placeholder in the messages.
    const whole = d.start === 0 && d.end === label.length;
    return { type: d.type, normalized: whole ? (d.normalized ?? normalizeValue(d.type, d.text)) : normalizeValue(d.type, spaced) };
  }
  const words = capitalised(spaced).match(/\p{L}{2,}/gu) ?? [];
  if (words.some((w) => !isNonNameWord(w) && (isKnownFirstName(w) || isKnownLastName(w)))) {
    return { type: 'PERSON', normalized: normalizeValue('PERSON', spaced) };
  }
  return null;
}
