// UK health service numbers: the NHS number (England, Wales, Isle of Man) and Scotland's CHI
// number, 10 digits with a modulus 11 check digit (checksums.ts). Written as the NHS displays it,
// in groups of three, three and four ("943 476 5919", "943-476-5919"), a number that passes its
// check is one, as a BSN is, unless it starts with 0, as a phone number with its trunk prefix does
// ("030 338 1760"); written compact ("9434765919"), it is also a phone number's or an
// account's form, and needs its label nearby ("NHS number", "NHS no", "CHI").
//
// An Italian mobile number is ten digits from 3, written 3-3-4 too ("cell. 333 123 4567"), and one
// in eleven passes the check: with a phone word nearer to it than an NHS word, and valid under
// Italy's plan, it is left to the phone recognizer (QA 2026-11-27 found one masked as an NHS
// number). Not other plans' numbers: phone.ts reads no North American ones, which would then leak.
import { parsePhoneNumberFromString } from 'libphonenumber-js/max';
import { digitsOnly, nhsNumberValid } from '../checksums.js';
import { numericIdRecognizer } from './numeric-id.js';
import { PHONE_CUE } from './phone.js';
import { IT_PHONE_CUE } from './phone-es-it-pl.js';

const NHS_CUE = /\bnhs\b|\bchi\b(?: ?(?:no|number))?|health (?:and care|service) number/i;

const ITALIAN_MOBILE = {
  cue: new RegExp(`${PHONE_CUE.source}|${IT_PHONE_CUE.source}`, 'i'),
  reads: (digits: string) => digits.charCodeAt(0) === 51 /* 3 */ && parsePhoneNumberFromString(digits, 'IT')?.isValid() === true,
};

export const nhsNumberRecognizer = numericIdRecognizer({
  type: 'NHS_NUMBER',
  candidate: /(?<![\p{L}\p{N}.,/+-])[1-9]\d{2}([ -])\d{3}\1\d{4}(?![\p{L}\p{N}]|[.,/-]\d)/gu,
  compact: digitsOnly,
  valid: nhsNumberValid,
  minDigits: 10,
  cue: NHS_CUE,
  yieldsTo: ITALIAN_MOBILE,
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
