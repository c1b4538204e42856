// Shared types of the personal-data firewall. The firewall is a pure library: no HTTP, no DB.
import type { TextScan } from './scan.js';

export const ENTITY_TYPES = [
  'EMAIL',
  'PHONE',
  'IBAN',
  'CARD',
  'BSN',
  'NIR',
  'STEUER_ID',
  'BE_NATIONAL_NUMBER',
  'NINO',
  'NHS_NUMBER',
  'DNI',
  'CODICE_FISCALE',
  'PESEL',
  'CUSTOMER_REF',
  'ID_NUMBER',
  'LICENCE_PLATE',
  'IP',
  'DATE_OF_BIRTH',
  'ADDRESS',
  'PERSON',
] as const;

export type EntityType = (typeof ENTITY_TYPES)[number];

export const LANGUAGES = ['nl', 'en', 'fr', 'de'] as const;

export type Language = (typeof LANGUAGES)[number];

export function isLanguage(value: unknown): value is Language {
  return typeof value === 'string' && (LANGUAGES as readonly string[]).includes(value);
}

export function isEntityType(value: unknown): value is EntityType {
  return typeof value === 'string' && (ENTITY_TYPES as readonly string[]).includes(value);
}

/** One piece of personal data found in a text. `start`/`end` are UTF-16 offsets, `end` exclusive. */
export interface Detection {
  type: EntityType;
  start: number;
  end: number;
  /** Exactly `text.slice(start, end)` of the scanned text. */
  text: string;
  /** True when the value passed a real check-digit test (mod 97, Luhn, 11-proof, ISO 7064 …). */
  checksum: boolean;
  /**
   * Canonical form used to give the same value the same placeholder (e.g. E.164 for phones,
   * digits only for identifiers, lower case for e-mail). Optional; the vault derives one otherwise.
   */
  normalized?: string;
  /**
   * Set when the value is percent-encoded in a URL of the text (`jan%40example.nl`): the value
   * decoded. Its placeholder is written percent-encoded (`%5BEMAIL_1%5D`), so the URL stays one.
   */
  urlDecoded?: string;
  /**
   * Set when the value is written with a string literal's escapes (`Jos\\u00e9`, `Stra\\u00dfe 1\\n1234`):
   * the value as they read. Its placeholder replaces the escapes; the vault keeps this form. Also
   * set for a value written with HTML entities or tags (`Fran&ccedil;ois`, html-entities.ts), with
   * `escapedAsWritten` holding it as written.
   */
  escapedDecoded?: string;
  /**
   * With `escapedDecoded`, when the value held a line break or tab escape: the value with those as
   * written (`Straße 1\\n1234` → `Straße 1\\n1234`), the form a reply's text gets back.
   */
  escapedAsWritten?: string;
}

export interface Recognizer {
  readonly type: EntityType;
  /**
   * True when the recognizer can only match text that contains an ASCII digit; the detector then
   * skips it for digit-free text without calling it.
   */
  readonly needsDigit: boolean;
  /**
   * Finds the recognizer's entities in `text`. `scan` is the pre-scan of this same text
   * (`scanText`), computed once by the detector and shared by all recognizers; a recognizer that
   * does not get one makes its own when it needs it.
   */
  detect(text: string, language: Language, scan?: TextScan): Detection[];
}
