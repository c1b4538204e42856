// The per-request vault: which placeholder stands for which original value. Held in memory only,
// created for one request and dropped with it; nothing here is ever persisted or logged.
import { digitsOnly } from './checksums.js';
import { placeholderKeysIn } from './restore.js';
import { ENTITY_TYPES, type Detection, type EntityType } from './types.js';

const NUMERIC: ReadonlySet<EntityType> = new Set(['PHONE', 'CARD', 'BSN', 'STEUER_ID', 'BE_NATIONAL_NUMBER', 'PESEL', 'NHS_NUMBER']);
const NUMBER_LIKE = /^[+\d\s().\/-]+$/;
/** Longer than any one value the firewall masks whole (an address with its town): not looked up. */
const KNOWN_VALUE_MAX_CHARS = 200;

/** A value as written, in lower case without spaces, dots, hyphens and slashes: "3511 AB" and "3511ab" are one. */
function looseText(text: string): string {
  return text.toLowerCase().replace(/[\s./-]+/g, '');
}

/** The canonical form of a value, so that "06-12345678" and "06 12345678" share a placeholder. */
export function normalizeValue(type: EntityType, value: string): string {
  if (type === 'EMAIL') return value.toLowerCase();
  if (NUMERIC.has(type)) return digitsOnly(value);
  if (type === 'IBAN' || type === 'NIR' || type === 'NINO' || type === 'DNI' || type === 'CODICE_FISCALE' || type === 'LICENCE_PLATE') return value.replace(/[\s.-]/g, '').toUpperCase();
  if (type === 'CUSTOMER_REF' || type === 'ID_NUMBER') return value.replace(/\s+/g, '').toUpperCase();
  return value.replace(/\s+/g, ' ').trim().toLowerCase();
}

export function placeholderKey(type: EntityType, n: number): string {
  return `${type}_${n}`;
}

export function formatPlaceholder(type: EntityType, n: number): string {
  return `[${placeholderKey(type, n)}]`;
}

export interface VaultEntry {
  type: EntityType;
  n: number;
  /** The value as first seen (in text, when it was seen there too); restoration puts this back. */
  value: string;
  /**
   * The value as written percent-encoded in a URL of the text (`jan.devries%40example.nl`), when it
   * was seen there: restored where the placeholder is written so (`%5BEMAIL_1%5D`). `value` is then
   * its decoded form, unless the value was seen in plain text first.
   */
  urlValue?: string;
  /**
   * The value with its line break and tab escapes as written (`…14\\n10115 Berlin`), when it was first
   * seen escaped so (string-escapes.ts): what a reply's text gets back, where the placeholder may
   * stand in a JSON string the model repeats (a raw line break made it invalid). Tool-call arguments,
   * escaped for JSON, get `value`.
   */
  textValue?: string;
  /** Seen only as a message's `name` so far ("noor_de_vries"): text that names them gives the form restored. */
  fromLabel?: boolean;
  /** The canonical form it is held by (normalizeValue, or the detector's). */
  norm: string;
}

export class Vault {
  readonly #byValue = new Map<string, VaultEntry>();
  readonly #byKey = new Map<string, VaultEntry>();
  /**
   * The values as written, loosely (knownPlaceholder): a detector's normal form ("1985-03-12") may
   * not be the text's. Filled when first asked, from the entries made since: masking never pays for it.
   */
  readonly #byLooseText = new Map<string, VaultEntry>();
  readonly #notLooselyIndexed: VaultEntry[] = [];
  readonly #next = new Map<EntityType, number>();
  readonly #distinct = new Map<EntityType, number>();
  readonly #occurrences = new Map<EntityType, number>();
  /** Placeholder keys the caller's own text holds (`[PERSON_3]` typed by hand): never given out. */
  readonly #written = new Set<string>();

  /**
   * Keeps the placeholders written in a text out of this vault's numbering, so that restoring the
   * answer leaves them as written. Were `[PERSON_3]` typed by an end-user given to a name in a
   * retrieved document, "repeat [PERSON_3]" would hand them that name.
   */
  reserveWritten(text: string): void {
    for (const key of placeholderKeysIn(text)) if (!this.#byKey.has(key)) this.#written.add(key);
  }

  /**
   * The placeholder text (`[EMAIL_1]`) for a detection; the same value always gets the same one. A
   * value percent-encoded in a URL gets it percent-encoded (`%5BEMAIL_1%5D`).
   */
  placeholderFor(d: Pick<Detection, 'type' | 'text' | 'normalized' | 'urlDecoded' | 'escapedDecoded' | 'escapedAsWritten'>, fromLabel = false): string {
    const encoded = d.urlDecoded !== undefined;
    const plain = encoded ? d.urlDecoded! : (d.escapedDecoded ?? d.text);
    const norm = d.normalized ?? normalizeValue(d.type, plain);
    const id = `${d.type}\u0000${norm}`;
    let entry = this.#byValue.get(id);
    if (entry?.fromLabel && !fromLabel) {
      entry.value = plain;
      entry.fromLabel = false;
    }
    // A name first typed in lower case ("ik ben sanne"), then with its capital ("Sanne komt morgen"):
    // a reply names the person as a name is written (QA: "Sanne" came back as "sanne").
    if (entry?.type === 'PERSON' && entry.textValue === undefined && !encoded && plain !== entry.value && entry.value === entry.value.toLowerCase() && plain.toLowerCase() === entry.value) {
      entry.value = plain;
    }
    if (!entry) {
      let n = (this.#next.get(d.type) ?? 0) + 1;
      while (this.#written.has(placeholderKey(d.type, n))) n++;
      this.#next.set(d.type, n);
      this.#distinct.set(d.type, (this.#distinct.get(d.type) ?? 0) + 1);
      entry = { type: d.type, n, value: plain, norm, ...(fromLabel ? { fromLabel } : {}), ...(d.escapedAsWritten !== undefined ? { textValue: d.escapedAsWritten } : {}) };
      this.#byValue.set(id, entry);
      this.#byKey.set(placeholderKey(d.type, n), entry);
      this.#notLooselyIndexed.push(entry);
    }
    this.#occurrences.set(d.type, (this.#occurrences.get(d.type) ?? 0) + 1);
    if (!encoded) return formatPlaceholder(entry.type, entry.n);
    entry.urlValue ??= d.text;
    return `%5B${placeholderKey(entry.type, entry.n)}%5D`;
  }

  /**
   * The placeholder of a value this vault already holds when `text` is that value whole, in any
   * form the vault counts as the same ("12-03-1985", "3511ab" for "3511 AB"); undefined otherwise.
   * A value can be known only from where it stood (under a `birth_date` key, in a table column):
   * alone, as a tool call's argument, it is still the same person's. A number-typed value matches
   * only a text of digits and separators, and a text longer than any such value is not looked at.
   */
  knownPlaceholder(text: string): string | undefined {
    if (this.#byValue.size === 0 || text.length === 0 || text.length > KNOWN_VALUE_MAX_CHARS) return undefined;
    for (const held of this.#notLooselyIndexed.splice(0)) {
      if (held.value.length > KNOWN_VALUE_MAX_CHARS) continue;
      const loose = looseText(held.value);
      // An initial ("J.") is too short to stand for its value wherever it is written alone.
      if (loose.length >= 3) this.#byLooseText.set(loose, held);
    }
    let entry = this.#byLooseText.get(looseText(text));
    const numberLike = NUMBER_LIKE.test(text);
    for (const type of this.#next.keys()) {
      if (entry !== undefined) break;
      if (NUMERIC.has(type) && !numberLike) continue;
      entry = this.#byValue.get(`${type}\u0000${normalizeValue(type, text)}`);
    }
    if (entry === undefined) return undefined;
    this.#occurrences.set(entry.type, (this.#occurrences.get(entry.type) ?? 0) + 1);
    return formatPlaceholder(entry.type, entry.n);
  }

  /**
   * The values held, as detections of the text they were first seen in (no offsets): what a
   * request's texts are read for again once all are masked (firewall.ts). Not a label's value
   * ("noor_de_vries"), which is an identifier's spelling, not a text's.
   */
  heldValues(): Detection[] {
    const held: Detection[] = [];
    for (const entry of this.#byKey.values()) {
      if (!entry.fromLabel) held.push({ type: entry.type, start: 0, end: 0, text: entry.value, checksum: false, normalized: entry.norm });
    }
    return held;
  }

  /** The original value for a placeholder key such as `EMAIL_1` (upper case), or undefined. */
  valueOf(key: string): string | undefined {
    return this.#byKey.get(key)?.value;
  }

  /** The value a reply's text gets back for a placeholder key: as written where it was escaped (`textValue`). */
  textValueOf(key: string): string | undefined {
    const entry = this.#byKey.get(key);
    return entry === undefined ? undefined : (entry.textValue ?? entry.value);
  }

  /**
   * The value for a placeholder written percent-encoded (`%5BEMAIL_1%5D`): as it was written in a
   * URL of the text, or else as it was written elsewhere (a side door's value, read decoded).
   */
  urlValueOf(key: string): string | undefined {
    const entry = this.#byKey.get(key);
    return entry === undefined ? undefined : (entry.urlValue ?? entry.value);
  }

  has(key: string): boolean {
    return this.#byKey.has(key);
  }

  /** Number of distinct values held. */
  get size(): number {
    return this.#byKey.size;
  }

  /** Masked occurrences per entity type (for traces: counts only, never values). */
  counts(): Partial<Record<EntityType, number>> {
    const out: Partial<Record<EntityType, number>> = {};
    for (const t of ENTITY_TYPES) {
      const c = this.#occurrences.get(t);
      if (c) out[t] = c;
    }
    return out;
  }

  /** Distinct values per entity type. */
  distinctCounts(): Partial<Record<EntityType, number>> {
    const out: Partial<Record<EntityType, number>> = {};
    for (const t of ENTITY_TYPES) {
      const c = this.#distinct.get(t);
      if (c) out[t] = c;
    }
    return out;
  }

  /** Never serialise the originals by accident (JSON.stringify, loggers). */
  toJSON(): { size: number; counts: Partial<Record<EntityType, number>> } {
    return { size: this.size, counts: this.counts() };
  }
}

export function createVault(): Vault {
  return new Vault();
}
