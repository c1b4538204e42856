// Runs every recognizer over a text and resolves overlaps: a detection that passed a checksum
// beats one that did not, then the longer one wins, then the earlier one, then recognizer order.
import type { WorkBudget } from './budget.js';
import { RECOGNIZERS } from './recognizers/index.js';
import { composedView, fromComposedView } from './composed.js';
import { fromMarkupView, markupView } from './html-entities.js';
import { lineBreakView, toTextOffsets } from './line-breaks.js';
import { phoneRegionMatters } from './recognizers/phone.js';
import { firstNameStandsAlone, nameIsAlsoAWord, surnameAloneIsName } from './recognizers/person.js';
import { isLetterCode, isSpaceCode, scanOf, scanText, type TextScan } from './scan.js';
import { findStructured, literalsAsProse } from './structure.js';
import { escapesView, fromEscapesView, withQuoteEscapesRead } from './string-escapes.js';
import { decodeTokenRepeatedly, encodedDetections, encodedTokens } from './url-encoded.js';
import { urlPathNames } from './url-paths.js';
import { xmlElementValues } from './xml-elements.js';
import type { Detection, Language, Recognizer } from './types.js';
import { isNonNameWord } from './words.js';

const ranks = new WeakMap<readonly Recognizer[], Map<string, number>>();

export function resolveOverlaps(detections: Detection[], order: readonly Recognizer[] = RECOGNIZERS): Detection[] {
  if (detections.length < 2) return detections.slice();
  let rank = ranks.get(order);
  if (!rank) {
    rank = new Map(order.map((r, i) => [r.type, i] as const));
    ranks.set(order, rank);
  }
  const ranked = detections.slice().sort(
    (a, b) =>
      Number(b.checksum) - Number(a.checksum) ||
      b.end - b.start - (a.end - a.start) ||
      a.start - b.start ||
      (rank!.get(a.type) ?? 99) - (rank!.get(b.type) ?? 99),
  );
  const kept: Detection[] = [];
  if (ranked.length <= FEW) {
    for (const d of ranked) {
      if (kept.some((k) => d.start < k.end && k.start < d.end)) continue;
      kept.push(d);
    }
  } else {
    // Comparing each detection with every kept one is quadratic: 10,000 names in a text took
    // seconds. One byte per character marks what is kept; each recognizer's own detections do not
    // overlap, so the bytes visited stay within a few times the text length.
    let length = 0;
    for (const d of ranked) if (d.end > length) length = d.end;
    const taken = new Uint8Array(length);
    for (const d of ranked) {
      let free = true;
      for (let i = d.start; i < d.end && free; i++) free = taken[i] === 0;
      if (!free) continue;
      taken.fill(1, d.start, d.end);
      kept.push(d);
    }
  }
  return kept.sort((a, b) => a.start - b.start);
}

/** Up to this many detections, comparing each with each kept one is cheapest. */
const FEW = 16;

const FRENCH_TITLE = /(?<![\p{L}\p{N}])M\.[ \u00a0]+\p{Lu}/uy;

function hasFrenchTitle(text: string): boolean {
  // Tried only where "M." occurs, instead of walking the text with the regex.
  for (let at = text.indexOf('M.'); at >= 0; at = text.indexOf('M.', at + 2)) {
    FRENCH_TITLE.lastIndex = at;
    if (FRENCH_TITLE.test(text)) return true;
  }
  return false;
}

/**
 * Whether the language of `text` can change what `detectEntities` finds. It does only through the
 * default phone region (a number that is not in international "+CC" form, see
 * `phoneRegionMatters`) and the French title "M." — so a caller with language 'auto' can skip
 * language detection for other texts. `scan` may pass the text's pre-scan when there is one.
 */
export function languageMatters(text: string, scan?: TextScan): boolean {
  return hasFrenchTitle(text) || phoneRegionMatters(text, scan);
}

/**
 * Runs the recognizers over `text`. One pre-scan of the text (scan.ts) is shared by all of them;
 * recognizers that need a digit are skipped for digit-free text. `budget` bounds their costly steps
 * (budget.ts): the request's when the caller has one, else the scan's own, which is unbounded.
 */
export function detectEntities(
  text: string,
  language: Language,
  recognizers: readonly Recognizer[] = RECOGNIZERS,
  scan?: TextScan,
  budget?: WorkBudget,
): Detection[] {
  if (text.length === 0) return [];
  // "\n" and "\u00e9" written as escapes are read as what they stand for (string-escapes.ts).
  const escapes = escapesView(text);
  const found =
    escapes !== null
      ? fromEscapesView(text, escapes, detectMarkup(escapes.text, language, recognizers, undefined, budget))
      : detectMarkup(text, language, recognizers, scan, budget);
  return withQuoteEscapesRead(text, found);
}

/** `detectEntities` of a text without escapes. */
function detectMarkup(text: string, language: Language, recognizers: readonly Recognizer[], scan: TextScan | undefined, budget: WorkBudget | undefined): Detection[] {
  // "&ccedil;", "&nbsp;" and "&#233;" are read as what they stand for, "<br>" and "</p>" as line
  // breaks (html-entities.ts); an entity can stand for a combining mark, read composed next.
  const view = markupView(text);
  if (view !== null) return fromMarkupView(text, view, detectComposed(view.text, language, recognizers, undefined, budget));
  return detectComposed(text, language, recognizers, scan, budget);
}

/** `detectEntities` of a text without escapes or markup. */
function detectComposed(text: string, language: Language, recognizers: readonly Recognizer[], scan: TextScan | undefined, budget: WorkBudget | undefined): Detection[] {
  // "e\u0301" (decomposed, as macOS and PDFs paste it) is read as "é" (composed.ts).
  const view = composedView(text);
  if (view !== null) return fromComposedView(text, view, detectLines(view.text, language, recognizers, undefined, budget));
  return detectLines(text, language, recognizers, scan, budget);
}

/** `detectEntities` of a text without escapes, markup or decomposed letters. */
function detectLines(text: string, language: Language, recognizers: readonly Recognizer[], scan: TextScan | undefined, budget: WorkBudget | undefined): Detection[] {
  // "\r\n" and a lone "\r" are read as "\n" (line-breaks.ts); what is found is moved back.
  const view = lineBreakView(text);
  if (view !== null) return toTextOffsets(text, view, detectUnified(view.text, language, recognizers, scan, budget));
  return detectUnified(text, language, recognizers, scan, budget);
}

/** `detectEntities` of a text whose only line break is "\n". */
function detectUnified(
  text: string,
  language: Language,
  recognizers: readonly Recognizer[],
  scan: TextScan | undefined,
  budget: WorkBudget | undefined,
  decoded = false,
): Detection[] {
  const s = scan === undefined ? scanText(text) : scanOf(text, scan);
  if (budget !== undefined) s.budget = budget;
  // A decoded URL token is read within its text's share of the budget.
  if (!decoded) s.budget.startText();
  const digits = s.digitRuns.length > 0;
  // Checksum detections let later recognizers skip candidates inside them (see isClaimed); only in
  // the default order, where every checksum recognizer comes first.
  const claim = recognizers === RECOGNIZERS;
  s.claimed.length = 0;
  const all: Detection[] = [];
  for (const r of recognizers) {
    if (r.needsDigit && !digits) continue;
    for (const d of r.detect(text, language, s)) {
      all.push(d);
      if (claim && d.checksum) s.claimed.push(d.start, d.end);
    }
  }
  // A decoded URL token's query was read as written already, its values decoded (structure.ts).
  const found = withStructure(s, language, all, recognizers, !decoded);
  // Names in URL paths ("linkedin.com/in/sanne-vermeulen-4a21b3"): url-paths.ts.
  if (!decoded) for (const d of urlPathNames(text, found, recognizers)) found.push(d);
  // "<FirstName>Dorothea</FirstName>" read as a key and its value: xml-elements.ts.
  if (!decoded) for (const d of xmlElementValues(text, recognizers)) found.push(d);
  // Percent-encoded data in URLs ("?email=jan%40example.nl", or encoded twice: "jan%2540example.nl"):
  // tokens read decoded (url-encoded.ts), and the decoded text is not searched for tokens again.
  if (!decoded && text.indexOf('%') >= 0) {
    const tokens = encodedTokens(text);
    for (let t = 0; t < tokens.length; t += 2) {
      const token = decodeTokenRepeatedly(text.slice(tokens[t], tokens[t + 1]));
      const inner = detectUnified(token.text, language, recognizers, undefined, s.budget, true);
      for (const d of encodedDetections(text, tokens[t]!, token, inner)) found.push(d);
    }
  }
  const kept = resolveOverlaps(found, recognizers);
  return decoded ? kept : withRepeats(text, kept);
}

/** At most this many values start with one word; more are not looked for again (see withRepeats). */
const VALUES_PER_WORD = 8;
const MIN_REPEATED = 3;
const MIN_REPEATED_DIGITS = 5;

function isWordCode(c: number): boolean {
  return (c >= 48 && c <= 57) || isLetterCode(c);
}

/**
 * `kept` with every other occurrence in the text of a value it holds: what a cue, label, key or
 * column gave once is masked wherever the same characters stand as whole words. Without this the
 * occurrence without a cue went out in clear beside the placeholder ("for [PERSON_1] in range(10):
 * print(william)"; "Polisnummer [CUSTOMER_REF_1] … belt over IV-2024-889123"), and the model could
 * tie the two.
 */
function withRepeats(text: string, kept: Detection[]): Detection[] {
  const index = repeatIndex(kept);
  if (index === null) return kept;
  const added = findRepeats(text, index, kept);
  if (added.length === 0) return kept;
  return [...kept, ...added].sort((a, b) => a.start - b.start);
}

/** Values to look for again in a text, by their first word (see `repeatIndex`). */
export interface RepeatIndex {
  byFirstWord: Map<string, Detection[]>;
  /** The parts of names looked for alone (see namePartsOf). */
  nameParts: Set<Detection> | null;
  /**
   * Most words of a text start no value: the first character and the length of each value's first
   * word tell them without slicing each word out to look it up (the pass runs over every text).
   */
  firstCodes: Set<number>;
  firstLengths: Set<number>;
}

/**
 * What to look for again of `values` (a text's detections, or a request's vault: firewall.ts):
 * each value as written, and a value of several words in lower case too ("Xavi Oyelaran", then
 * "xavi oyelaran here again"), looked up by their first word, at most VALUES_PER_WORD values a word,
 * so that the cost of `findRepeats` stays linear in the text (decision 0002). Not a one-word name
 * that is also a word ("Hi Mark. Mark the date"), nor a value shorter than three characters. The
 * capitalised last word of a name of several words is looked for on its own as well (see
 * namePartsOf), unless `nameParts` is false. Null when there is nothing to look for.
 */
export function repeatIndex(values: Iterable<Detection>, { nameParts: lookForParts = true } = {}): RepeatIndex | null {
  let byFirstWord: Map<string, Detection[]> | null = null;
  const seen = new Set<string>();
  let nameParts: Set<Detection> | null = null;
  const lookFor = (firstWord: string, d: Detection) => {
    byFirstWord ??= new Map();
    const list = byFirstWord.get(firstWord);
    if (list === undefined) byFirstWord.set(firstWord, [d]);
    else if (list.length < VALUES_PER_WORD) list.push(d);
  };
  for (const d of values) {
    const value = d.text;
    // A value percent-encoded in a URL is looked for as written elsewhere only in its URL form.
    if (d.urlDecoded !== undefined || value.length < MIN_REPEATED || seen.has(value) || !isWordCode(value.charCodeAt(0)) || !isWordCode(value.charCodeAt(value.length - 1))) continue;
    // A short number recurs by chance ("Kundennummer: 123" … "Seite 123", "100 units").
    if (value.length < MIN_REPEATED_DIGITS && /^[0-9]+$/.test(value)) continue;
    seen.add(value);
    let w = 1;
    while (w < value.length && isWordCode(value.charCodeAt(w))) w++;
    if (d.type === 'PERSON' && w === value.length && nameIsAlsoAWord(value)) continue;
    lookFor(value.slice(0, w), d);
    if (w < value.length) {
      const lower = value.toLowerCase();
      if (lower !== value && !seen.has(lower)) {
        seen.add(lower);
        lookFor(lower.slice(0, w), { ...d, text: lower });
      }
    }
    // The surname of a full name recurs alone ("Mijn naam is Wouter Jansen. Jansen wil …"): it is
    // looked for too, as a value of its own, so it gets its own placeholder and restores as written.
    // Within one text only (`nameParts`): in the other texts of a request a surname alone is as often
    // the word it also is ("Koch", "Young", "Vogel").
    for (const part of lookForParts && d.type === 'PERSON' && w < value.length ? namePartsOf(value) : []) {
      if (seen.has(part)) continue;
      seen.add(part);
      const { normalized: _fullName, ...rest } = d;
      const alone: Detection = { ...rest, text: part };
      (nameParts ??= new Set()).add(alone);
      let pw = 1;
      while (pw < part.length && isWordCode(part.charCodeAt(pw))) pw++;
      lookFor(part.slice(0, pw), alone);
    }
  }
  if (byFirstWord === null) return null;
  const firstCodes = new Set<number>();
  const firstLengths = new Set<number>();
  for (const word of (byFirstWord as Map<string, Detection[]>).keys()) {
    firstCodes.add(word.charCodeAt(0));
    firstLengths.add(word.length);
  }
  return { byFirstWord, nameParts, firstCodes, firstLengths };
}

/**
 * The occurrences, as whole words, of the index's values in the text that start in [from, to) and
 * are not, nor overlap, a detection of `kept` (in text order), in one pass over the text's words.
 */
export function findRepeats(text: string, index: RepeatIndex, kept: readonly Detection[], from = 0, to = text.length): Detection[] {
  const { byFirstWord, nameParts, firstCodes, firstLengths } = index;
  const added: Detection[] = [];
  // `kept` is in text order: `next` is the first detection that does not end before the word.
  let next = 0;
  const n = text.length;
  // A range starts at a word's start, not inside the word before it.
  let i = from;
  while (i > 0 && i < n && isWordCode(text.charCodeAt(i - 1)) && isWordCode(text.charCodeAt(i))) i++;
  while (i < to) {
    if (!isWordCode(text.charCodeAt(i))) {
      i++;
      continue;
    }
    let e = i + 1;
    while (e < n && isWordCode(text.charCodeAt(e))) e++;
    if (!firstCodes.has(text.charCodeAt(i)) || !firstLengths.has(e - i)) {
      i = e;
      continue;
    }
    const values = byFirstWord.get(text.slice(i, e));
    let end = e;
    if (values !== undefined) {
      while (next < kept.length && kept[next]!.end <= i) next++;
      for (const d of values) {
        const stop = i + d.text.length;
        if (stop > n || (stop < n && isWordCode(text.charCodeAt(stop))) || !text.startsWith(d.text, i)) continue;
        // A part of a name that opens a longer capitalised name is a firm's, a street's or another
        // person's ("p/a Jansen Installatietechniek B.V.", "Jansen Road", "Sieb Visser"), not the person alone.
        // So is a one-word name found alone ("Bakker belde" … "Bakker Logistiek levert morgen").
        if ((nameParts?.has(d) || (d.type === 'PERSON' && d.text.indexOf(' ') < 0)) && capitalisedWordFollows(text, stop)) continue;
        // "Groen is ook de kleur van de hoop", "Koch und Kellner": a surname that is also a word is
        // the person alone only where the text uses it as a name.
        if (nameParts?.has(d) && !surnameAloneIsName(text, i, stop)) continue;
        if (next < kept.length && kept[next]!.start < stop) break; // it is, or overlaps, a detection already
        added.push({ ...d, start: i, end: stop });
        end = stop;
        break;
      }
    }
    i = end;
  }
  return added;
}

function capitalisedWordFollows(text: string, at: number): boolean {
  if (at >= text.length || text.charCodeAt(at) !== 32) return false;
  const next = text.charAt(at + 1);
  return next !== next.toLowerCase() && next === next.toUpperCase();
}

/**
 * The parts of a name of several words that can stand alone as the name: the last word (a double
 * surname with its hyphen, "Mensah-Bonsu"), capitalised, of letters and digits, at least
 * MIN_REPEATED characters, and not a common word or a title ("Jan de Wit", "Peter Will", "Mr Smith");
 * and the first word when it is a first name that is no word, town, language or surname
 * (`firstNameStandsAlone`): meeting notes give the full name once and then the first name alone
 * ("Joost Vermeulen … - Joost: offerte opvragen"), which went out in clear beside the placeholder.
 * "Julia", "Pascal", "Jack", "Florence" alone are as often a language, a part or a town.
 */
function namePartsOf(name: string): string[] {
  const parts = lastNamePartOf(name);
  const comma = name.indexOf(', ');
  // "Hoekstra, Marieke": the first name stands after the comma.
  const first = comma > 0 ? name.slice(comma + 2) : name.slice(0, name.search(/[ \u00a0]/));
  if (first.length > 0 && /^\p{L}+(?:-\p{L}+)?$/u.test(first) && firstNameStandsAlone(first)) parts.push(first);
  return parts;
}

function lastNamePartOf(name: string): string[] {
  // "Hoekstra, Marieke", as mail headers and forms write a name: the surname stands before the
  // comma, and it is what recurs alone ("Hoekstra schreef …"), not the first name after it.
  const comma = name.indexOf(', ');
  const surname = comma > 0 ? name.slice(0, comma) : name;
  let start = surname.length;
  for (;;) {
    while (start > 0 && isWordCode(surname.charCodeAt(start - 1))) start--;
    if (start > 1 && surname.charCodeAt(start - 1) === 45 /* - */ && isWordCode(surname.charCodeAt(start - 2))) start--;
    else break;
  }
  const part = surname.slice(start);
  const alone = start > 0 ? isSpaceCode(surname.charCodeAt(start - 1)) : comma > 0;
  return alone && isNamePart(part) ? [part] : [];
}

function isNamePart(word: string): boolean {
  const first = word.charAt(0);
  return word.length >= MIN_REPEATED && first !== first.toLowerCase() && first === first.toUpperCase() && !nameIsAlsoAWord(word) && !isNonNameWord(word);
}

/**
 * Adds what the text's structure says (structure.ts): values typed by their key or column, and
 * names in code literals read as prose; drops gazetteer names from cells that hold things.
 */
function withStructure(scan: TextScan, language: Language, found: Detection[], recognizers: readonly Recognizer[], queries = true): Detection[] {
  const { text } = scan;
  // Only the types the caller's recognizers stand for: a caller that picks its recognizers gets
  // what they would find.
  const person = recognizers.find((r) => r.type === 'PERSON');
  const prose = person === undefined ? null : literalsAsProse(text);
  if (prose !== null) {
    for (const d of person!.detect(prose, language, scanOf(prose, scan))) found.push({ ...d, text: text.slice(d.start, d.end) });
  }
  const structure = findStructured(text, queries);
  const quiet = person === undefined ? [] : structure.quiet;
  let typed = structure.found;
  if (typed.length > 0 && recognizers !== RECOGNIZERS) {
    const types = new Set(recognizers.map((r) => r.type));
    typed = typed.filter((d) => types.has(d.type));
  }
  if (typed.length === 0 && quiet.length === 0) return found;
  let kept = found;
  if (quiet.length > 0) {
    kept = found.filter((d) => {
      if (d.type !== 'PERSON') return true;
      for (let q = 0; q < quiet.length; q += 2) if (d.start >= quiet[q]! && d.end <= quiet[q + 1]!) return false;
      return true;
    });
  }
  for (const d of typed) kept.push(d);
  return kept;
}
