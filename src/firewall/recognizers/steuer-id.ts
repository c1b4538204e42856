// German steuerliche Identifikationsnummer (Steuer-ID, IdNr): 11 digits, compact or grouped
// "12 345 678 901"; digit-distribution rule and ISO 7064 MOD 11,10 check digit.
import { digitsOnly, steuerIdValid } from '../checksums.js';
import { numericIdRecognizer } from './numeric-id.js';

const IPV4 = /^(?:(?:25[0-5]|2[0-4]\d|1?\d?\d)\.){3}(?:25[0-5]|2[0-4]\d|1?\d?\d)$/;

export const steuerIdRecognizer = numericIdRecognizer({
  type: 'STEUER_ID',
  // Compact, grouped "12 345 678 901" / "12.345.678.901" / "12/345/678/901", or with single spaces,
  // dots or slashes anywhere, one kind at a time ("123 456 789 01", "654/7092/8410"); the 11 digits
  // stay checksum-validated. The four groups may also be up to three spaces or a tab apart, the same
  // gap each time ("54  268  209  123", pasted from a PDF); no further group may follow that gap.
  candidate: /(?<![\p{L}\p{N}.,/+-])(?<!\d[ .])(?:\d{2}( {1,3}|[./\t])\d{3}\1\d{3}\1\d{3}(?!\1\d)|\d(?: ?\d){10}|\d(?:\.?\d){10}|\d(?:\/?\d){10})(?![\p{L}\p{N}]|[.,/-]\d|[ .]\d)/gu,
  compact: digitsOnly,
  valid: steuerIdValid,
  // "62.157.140.133" is an IP address written like a dotted Steuer-ID.
  reject: (value) => IPV4.test(value),
  minDigits: 11,
  gaps: 'wide',
  cue: /steuer|\bidnr\b|\bid-nr|identifikationsnummer|\btin\b|tax\s?id|tax identification|numéro fiscal|fiscaal nummer/i,
});
