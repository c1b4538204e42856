// UK health service numbers: the NHS number (England, Wales, Isle of Man) and Scotland's CHI
// number, 10 digits with a modulus 11 check digit (checksums.ts). Written as the NHS displays it,
// in groups of three, three and four ("943 476 5919", "943-476-5919"), a number that passes its
// check is one, as a BSN is, unless it starts with 0, as a phone number with its trunk prefix does
// ("030 338 1760"); written compact ("9434765919"), it is also a phone number's or an
// account's form, and needs its label nearby ("NHS number", "NHS no", "CHI").
import { digitsOnly, nhsNumberValid } from '../checksums.js';
import { numericIdRecognizer } from './numeric-id.js';

const NHS_CUE = /\bnhs\b|\bchi\b(?: ?(?:no|number))?|health (?:and care|service) number/i;

export const nhsNumberRecognizer = numericIdRecognizer({
  type: 'NHS_NUMBER',
  candidate: /(?<![\p{L}\p{N}.,/+-])[1-9]\d{2}([ -])\d{3}\1\d{4}(?![\p{L}\p{N}]|[.,/-]\d)/gu,
  compact: digitsOnly,
  valid: nhsNumberValid,
  minDigits: 10,
  cue: NHS_CUE,
});

export const nhsNumberCompactRecognizer = numericIdRecognizer({
  type: 'NHS_NUMBER',
  candidate: /(?<![\p{L}\p{N}.,/+-])\d{10}(?![\p{L}\p{N}]|[.,/-]\d)/gu,
  compact: digitsOnly,
  valid: nhsNumberValid,
  minDigits: 10,
  cue: NHS_CUE,
  requireCue: true,
});
