// Belgian national number (rijksregisternummer / numéro de registre national, also the INSZ/NISS):
// 11 digits YY.MM.DD-SSS.CC; check = 97 − (YYMMDDSSS mod 97), with a "2" prefixed for people
// born from 2000. Written compact or as "85.07.30-033.28".
import { beNationalNumberValid, digitsOnly } from '../checksums.js';
import { numericIdRecognizer } from './numeric-id.js';

export const beNationalNumberRecognizer = numericIdRecognizer({
  type: 'BE_NATIONAL_NUMBER',
  candidate:
    /(?<![\p{L}\p{N}.,/+-])\d{2}([. ]?)\d{2}\1\d{2}[ .-]?\d{3}[ .-]?\d{2}(?![\p{L}\p{N}]|[.,/-]\d)/gu,
  compact: digitsOnly,
  valid: beNationalNumberValid,
  minDigits: 11,
  cue: /rijksregister|\brrn\b|\bnn\b|national(?:e)? (?:number|nummer)|num[ée]ro national|registre national|\binsz\b|\bniss\b|identificatienummer|nationalregister/i,
});
