// German steuerliche Identifikationsnummer (Steuer-ID, IdNr): 11 digits, compact or grouped
// "12 345 678 901"; digit-distribution rule and ISO 7064 MOD 11,10 check digit.
import { digitsOnly, steuerIdValid } from '../checksums.js';
import { numericIdRecognizer } from './numeric-id.js';

export const steuerIdRecognizer = numericIdRecognizer({
  type: 'STEUER_ID',
  candidate: /(?<![\p{L}\p{N}.,/+-])(?:\d{11}|\d{2}([ /])\d{3}\1\d{3}\1\d{3})(?![\p{L}\p{N}]|[.,/-]\d)/gu,
  compact: digitsOnly,
  valid: steuerIdValid,
  minDigits: 11,
  cue: /steuer|\bidnr\b|\bid-nr|identifikationsnummer|\btin\b|tax\s?id|tax identification|numéro fiscal|fiscaal nummer/i,
});
