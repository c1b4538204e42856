// National ids of Spain, Italy and Poland. The firewall's languages are nl/en/fr/de, but a Spanish,
// Italian or Polish customer writes theirs into an English or Dutch message too, and a number with
// check digits is one whatever the language around it (before, all three were sent in clear). As
// for the BSN and the Steuer-ID, a candidate whose check fails is never reported, one that passes
// is reported with or without its label, and an order, invoice or amount word nearer to it than
// the label drops it (numeric-id.ts). The checks cut most other strings of the same shape: a DNI's
// letter leaves 1 in 23, a PESEL's check digit and birth date about 1 in 60.
import { codiceFiscaleValid, digitsOnly, dniValid, peselValid } from '../checksums.js';
import { numericIdRecognizer } from './numeric-id.js';

const SEPARATORS = /[\s.-]/g;

function isAsciiLetter(c: number): boolean {
  return (c >= 65 && c <= 90) || (c >= 97 && c <= 122);
}

// Spanish DNI "12345678Z", "12345678-Z", "12.345.678-Z", and NIE "X1234567L", "X-1234567-L". The
// letter in capitals: a lower-case one is as often a unit or a word ("12345678 m").
export const dniRecognizer = numericIdRecognizer({
  type: 'DNI',
  candidate: /(?<![\p{L}\p{N}.,/+-])(?:\d{8}|\d{2}\.\d{3}\.\d{3}|[XYZ]-?\d{7})[ -]?[A-HJ-NP-TV-Z](?![\p{L}\p{N}]|[.,/-]\d)/gu,
  compact: (v) => v.replace(SEPARATORS, ''),
  valid: dniValid,
  // A NIE's letter and a hyphen lead the first digit.
  back: 2,
  minDigits: 7,
  cue: /\bdni\b|\bnie\b|\bnif\b|documento nacional|n[úu]mero de identidad|identidad de extranjero|spanish id/i,
});

// Italian codice fiscale of a person: "RSSMRA85T10A562S", in capitals or all in lower case, maybe in
// groups of the form ("RSS MRA 85T10 A562S"). Digit-anchored: a code whose every digit two
// namesakes replaced by letters (omocodia) is missed.
export const codiceFiscaleRecognizer = numericIdRecognizer({
  type: 'CODICE_FISCALE',
  candidate:
    /(?<![\p{L}\p{N}])(?:[A-Z]{3} ?[A-Z]{3} ?\d[\dLMNPQRSTUV][ABCDEHLMPRST][\dLMNPQRSTUV]{2} ?[A-Z][\dLMNPQRSTUV]{3}[A-Z]|[a-z]{3} ?[a-z]{3} ?\d[\dlmnpqrstuv][abcdehlmprst][\dlmnpqrstuv]{2} ?[a-z][\dlmnpqrstuv]{3}[a-z])(?![\p{L}\p{N}])/gu,
  compact: (v) => v.replace(/ /g, '').toUpperCase(),
  valid: codiceFiscaleValid,
  // Six letters and two spaces lead the first digit.
  back: 8,
  minDigits: 1,
  // Every digit run of a text would be tried: only one right after three ASCII letters (or three
  // and a space) can be a code's year. Chat prompts were masked 5 % slower without this.
  leadsTo: (text, p) => {
    const q = text.charCodeAt(p - 1) === 32 ? p - 1 : p;
    return q >= 3 && isAsciiLetter(text.charCodeAt(q - 1)) && isAsciiLetter(text.charCodeAt(q - 2)) && isAsciiLetter(text.charCodeAt(q - 3));
  },
  // Written whole: "Italian tax code" read as "Italian tax" left "code", an order word, nearer.
  cue: /codice fiscale|\bc\.?f\.?\b|(?:italian )?(?:tax|fiscal) code|italian tax/i,
});

// Polish PESEL: 11 digits, compact or as forms group them ("920305 67893").
export const peselRecognizer = numericIdRecognizer({
  type: 'PESEL',
  candidate: /(?<![\p{L}\p{N}.,/+-])(?:\d{11}|\d{6} \d{5})(?![\p{L}\p{N}]|[.,/-]\d)/gu,
  compact: digitsOnly,
  valid: peselValid,
  minDigits: 11,
  cue: /\bpesel\b|polish id|numer identyfikacyjny/i,
});
