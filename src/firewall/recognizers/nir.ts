// French NIR (numéro de sécurité sociale / INSEE), 15 characters, often written in groups:
// "1 85 05 78 006 084 36". Corsican départements are 2A/2B. Validated by the structure (sex,
// month, département) and the key = 97 − (number mod 97), with 2A → 19, 2B → 18.
import { nirValid } from '../checksums.js';
import { numericIdRecognizer } from './numeric-id.js';

const SEPARATORS = /[\s.-]/g;

export const nirRecognizer = numericIdRecognizer({
  type: 'NIR',
  candidate:
    /(?<![\p{L}\p{N}.,/+-])[1-478][ .]?\d{2}[ .]?\d{2}[ .]?(?:\d{2}|2[AaBb])[ .]?\d{3}[ .]?\d{3}[ .]?\d{2}(?![\p{L}\p{N}]|[.,/-]\d)/gu,
  compact: (v) => v.replace(SEPARATORS, '').toUpperCase(),
  valid: nirValid,
  // sex, year, month and at least the first digit of the département (2A/2B) come before a letter
  minDigits: 6,
  cue: /\bnir\b|s[ée]curit[ée] sociale|\bs[ée]cu\b|insee|carte vitale|social security|sozialversicherung/i,
});
