// Dutch burgerservicenummer: 9 digits, written compact or grouped (123456782, 1234.56.782,
// 123 456 782), validated by the 11-proof (elfproef). Groups may be up to three spaces or a tab
// apart, the same gap each time, as text copied out of a PDF has them ("1234  56  782").
import { bsnValid, digitsOnly } from '../checksums.js';
import { numericIdRecognizer } from './numeric-id.js';

export const bsnRecognizer = numericIdRecognizer({
  type: 'BSN',
  candidate:
    /(?<![\p{L}\p{N}.,/+-])(?:\d{9}|\d{4}( {1,3}|[.\t])\d{2}\1\d{3}|\d{3}( {1,3}|[.\t])\d{3}\2\d{3}|\d{2}\.\d{2}\.\d{2}\.\d{3})(?![\p{L}\p{N}]|[.,/-]\d)/gu,
  compact: digitsOnly,
  valid: bsnValid,
  minDigits: 9,
  gaps: 'wide',
  cue: /\bbsn\b|burger\s?service\s?nummer|sofi|citizen service number|persoonsnummer|persoonlijk nummer/i,
});
