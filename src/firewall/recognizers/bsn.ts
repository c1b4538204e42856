// Dutch burgerservicenummer: 9 digits, written compact or grouped (123456782, 1234.56.782,
// 123 456 782), validated by the 11-proof (elfproef). Groups may be up to three spaces or a tab
// apart, the same gap each time, as text copied out of a PDF has them ("1234  56  782").
import { bsnValid, digitsOnly } from '../checksums.js';
import { numericIdRecognizer } from './numeric-id.js';

const BSN_CUE = /\bbsn\b|burger\s?service\s?nummer|sofi|citizen service number|persoonsnummer|persoonlijk nummer/i;

export const bsnRecognizer = numericIdRecognizer({
  type: 'BSN',
  candidate:
    /(?<![\p{L}\p{N}.,/+-])(?:\d{9}|\d{4}( {1,3}|[.\t])\d{2}\1\d{3}|\d{3}( {1,3}|[.\t])\d{3}\2\d{3}|\d{2}\.\d{2}\.\d{2}\.\d{3})(?![\p{L}\p{N}]|[.,/-]\d)/gu,
  compact: digitsOnly,
  valid: bsnValid,
  minDigits: 9,
  gaps: 'wide',
  cue: BSN_CUE,
});

// Written 3-3-3 with hyphens ("bsn: 123-456-782", QA 2026-11-27): that is also how article numbers,
// SKUs and Polish phone numbers are written ("SKU 612-345-678", "Zadzwoń pod 798-456-123"), and one
// in eleven of them passes the 11-proof; so this form needs its BSN word nearby.
export const bsnHyphenatedRecognizer = numericIdRecognizer({
  type: 'BSN',
  candidate: /(?<![\p{L}\p{N}.,/+-])\d{3}-\d{3}-\d{3}(?![\p{L}\p{N}]|[.,/-]\d)/gu,
  compact: digitsOnly,
  valid: bsnValid,
  minDigits: 9,
  cue: BSN_CUE,
  requireCue: true,
});

// BSNs issued before 2007 (sofinummers) start with 0, and systems that store them as numbers drop it:
// "bsn van klant: 12345672" is 012345672. Eight digits are anything else far more often (a Dutch
// phone number without its 06, an order number, an amount), so only right after the BSN's own label
// with no other number in between; read as the nine-digit number, so both forms share a placeholder.
export const bsnEightDigitRecognizer = numericIdRecognizer({
  type: 'BSN',
  candidate: /(?<![\p{L}\p{N}.,/+-])\d{8}(?![\p{L}\p{N}]|[.,/-]\d)/gu,
  compact: (value) => `0${value}`,
  valid: bsnValid,
  minDigits: 8,
  cue: BSN_CUE,
  requireCue: true,
  labelBefore: /(?:\bbsn\b|burger\s?service\s?nummer|sofi-?nummer|citizen service number)[^\p{N}\n]{0,24}$/iu,
});
