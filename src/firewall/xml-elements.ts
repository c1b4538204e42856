// XML read as structure: "<FirstName>Dorothea</FirstName><LastName>Gruber</LastName>" went out in
// clear while "<Email>" and "<Phone>" of the same record were masked, because their values are
// recognised by their shape and a first name or surname alone is not (QA 2026-11-27). An element
// whose tag names a key structure.ts knows ("FirstName", "naam", "Geburtsdatum", "IBAN", "Strasse",
// a namespaced "ns:LastName") holds that key's value, as `"FirstName": "Dorothea"` does in JSON.
//
// The elements are not typed here: each record's simple elements are written as one JSON object
// (`{"FirstName": "Dorothea", "LastName": "Gruber"}`) and read by structure.ts, so that an element
// gets exactly the rules of a JSON key — its value checks, the organisations and placeholders it
// leaves, and a record about things ("<Product><Name>…</Name><Price>…") leaving its name alone.
// What it finds is moved back onto the XML. Attributes (`<Person firstName="Dorothea">`) are
// key="value" literals, which structure.ts reads in the text itself already.
//
// Only an element of simple text content is a value: the next tag after its start tag is its own
// end tag. Each "<" is looked at once and each tag read within MAX_TAG characters: linear in the
// text, and a text without "<" costs one indexOf.
import { findStructured, isThingContext, keyKind } from './structure.js';
import type { Detection, Recognizer } from './types.js';

/** A start tag longer than this (attributes included) is not read: real ones are far shorter. */
const MAX_TAG = 512;
/** Tag names are short; a longer run is no key structure.ts knows (it reads at most 48). */
const MAX_TAG_NAME = 64;
/** Longer content is prose, not a value (structure.ts reads cells of at most 200 characters). */
const MAX_VALUE = 200;
/**
 * Elements read as one object: a record's fields. Bounded because structure.ts reads the object's
 * keys again for each name under a bare "name" key: 12 keeps 1 MB of such elements under a second.
 */
const MAX_FIELDS = 12;

const LT = 60;
const GT = 62;
const SLASH = 47;

function isNameStart(c: number): boolean {
  return (c >= 65 && c <= 90) || (c >= 97 && c <= 122) || c === 95;
}

function isNameChar(c: number): boolean {
  return isNameStart(c) || (c >= 48 && c <= 57) || c === 45 || c === 46 || c === 58;
}

function isBlankCode(c: number): boolean {
  return c === 32 || c === 9 || c === 10 || c === 13;
}

/** One element's value, as written in the text and in the object written for structure.ts. */
interface Field {
  textStart: number;
  objectStart: number;
  length: number;
}

/** Collects a record's fields as a JSON object and types them with structure.ts. */
class Record {
  readonly #parts: string[] = [];
  readonly #fields: Field[] = [];
  #length = 1; // the "{"

  constructor(
    private readonly text: string,
    private readonly out: Detection[],
  ) {}

  add(key: string, start: number, end: number): void {
    const entry = `${this.#fields.length > 0 ? ', ' : ''}"${key}": "`;
    this.#parts.push(entry, this.text.slice(start, end), '"');
    this.#fields.push({ textStart: start, objectStart: this.#length + entry.length, length: end - start });
    this.#length += entry.length + (end - start) + 1;
    if (this.#fields.length >= MAX_FIELDS) this.flush();
  }

  flush(): void {
    if (this.#fields.length === 0) return;
    const object = `{${this.#parts.join('')}}`;
    const fields = this.#fields.slice();
    this.#parts.length = 0;
    this.#fields.length = 0;
    this.#length = 1;
    // Queries: none — the object holds no URL of its own, and the text's were read already.
    for (const d of findStructured(object, false).found) {
      const field = fields.find((f) => d.start >= f.objectStart && d.end <= f.objectStart + f.length);
      if (field === undefined) continue;
      const start = field.textStart + (d.start - field.objectStart);
      const end = start + (d.end - d.start);
      this.out.push({ ...d, start, end, text: this.text.slice(start, end) });
    }
  }
}

/** The trimmed [start, end) of an element's content, or null when it cannot be a value. */
function valueRange(text: string, start: number, end: number): [number, number] | null {
  while (start < end && isBlankCode(text.charCodeAt(start))) start++;
  while (end > start && isBlankCode(text.charCodeAt(end - 1))) end--;
  if (end === start || end - start > MAX_VALUE) return null;
  // Copied into a JSON literal as written: a quote, backslash or line break would end or change it.
  for (let i = start; i < end; i++) {
    const c = text.charCodeAt(i);
    if (c === 34 || c === 92 || c === 10 || c === 13) return null;
  }
  return [start, end];
}

/** The offset after the end tag `</name>` (blanks allowed before ">") at `at`, or -1. */
function endTagEnd(text: string, at: number, name: string): number {
  if (text.charCodeAt(at + 1) !== SLASH || !text.startsWith(name, at + 2)) return -1;
  let i = at + 2 + name.length;
  while (i < text.length && i - at < MAX_TAG && isBlankCode(text.charCodeAt(i))) i++;
  return text.charCodeAt(i) === GT ? i + 1 : -1;
}

/**
 * The values of the text's simple XML elements whose tag (without its namespace prefix) is a key
 * structure.ts knows, typed as that key's values are, in the text's offsets; only the types of
 * `recognizers`, as for the text's other structure (a caller that picks recognizers gets what they find).
 */
export function xmlElementValues(text: string, recognizers: readonly Recognizer[]): Detection[] {
  if (text.indexOf('<') < 0) return [];
  const found = elementValues(text);
  if (found.length === 0) return found;
  const types = new Set(recognizers.map((r) => r.type));
  return found.filter((d) => types.has(d.type));
}

function elementValues(text: string): Detection[] {
  let lt = text.indexOf('<');
  const out: Detection[] = [];
  const record = new Record(text, out);
  const n = text.length;
  while (lt >= 0) {
    const first = text.charCodeAt(lt + 1);
    if (first === SLASH) {
      // The end of an element that holds others ("</Customer>"): its record is complete.
      record.flush();
      lt = text.indexOf('<', lt + 2);
      continue;
    }
    if (!isNameStart(first)) {
      lt = text.indexOf('<', lt + 1);
      continue;
    }
    let nameEnd = lt + 2;
    while (nameEnd < n && nameEnd - lt <= MAX_TAG_NAME && isNameChar(text.charCodeAt(nameEnd))) nameEnd++;
    // To the start tag's ">", stopping at a "<" (no tag) or after MAX_TAG characters.
    let gt = nameEnd;
    while (gt < n && gt - lt < MAX_TAG && text.charCodeAt(gt) !== GT && text.charCodeAt(gt) !== LT) gt++;
    if (gt >= n || text.charCodeAt(gt) !== GT || nameEnd - lt > MAX_TAG_NAME) {
      lt = text.indexOf('<', Math.max(gt, lt + 1));
      continue;
    }
    const next = text.indexOf('<', gt + 1);
    if (next < 0) break;
    // A self-closing tag ("<br/>") holds nothing; a start tag whose next tag is another holds elements.
    const name = text.slice(lt + 1, nameEnd);
    const closed = text.charCodeAt(gt - 1) === SLASH ? -1 : endTagEnd(text, next, name);
    if (closed < 0) {
      lt = next;
      continue;
    }
    const key = name.slice(name.lastIndexOf(':') + 1);
    // A thing's key ("<version>", "<SKU>", "<artifactId>") goes into the record too: beside it, a
    // "<name>" is the thing's (a Maven pom's "<name>Billing Service</name>" was masked).
    const range = keyKind(key) === null && !isThingContext(key) ? null : valueRange(text, gt + 1, next);
    if (range !== null) record.add(key, range[0], range[1]);
    lt = text.indexOf('<', closed);
  }
  record.flush();
  return out;
}
