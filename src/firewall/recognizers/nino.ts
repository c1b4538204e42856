// UK National Insurance number (NINO): two prefix letters, six digits, a suffix letter A–D, written
// "QQ 12 34 56 C" or compact "QQ123456C". There is no check digit: the prefix rules (HMRC's: no D,
// F, I, Q, U or V first; no D, F, I, O, Q, U or V second; never BG, GB, KN, NK, NT, TN or ZZ) and
// the suffix make the form, and a "not about a person" cue nearby (order, invoice, serial…) drops it.
// The example prefix QQ that HMRC uses in its own documents is refused by the rules, as it should be.
import { numericIdRecognizer } from './numeric-id.js';

const PREFIX_FIRST = 'A-CEGHJ-PR-TW-Z';
const PREFIX_SECOND = 'A-CEGHJ-NPR-TW-Z';

const NINO_CUE = /national insurance|\bni\b(?: ?(?:no|number|nr))?|\bnino\b|\bnic\b|hmrc/i;

export const ninoRecognizer = numericIdRecognizer({
  type: 'NINO',
  candidate: new RegExp(
    `(?<![\\p{L}\\p{N}])(?!BG|GB|KN|NK|NT|TN|ZZ)[${PREFIX_FIRST}][${PREFIX_SECOND}] ?\\d{2}( ?)\\d{2}\\1\\d{2}\\1 ?[A-D](?![\\p{L}\\p{N}])`,
    'gu',
  ),
  compact: (value) => value.replace(/ /g, ''),
  valid: () => true,
  checksum: false,
  // Two letters and a space lead the first digit.
  back: 3,
  minDigits: 6,
  cue: NINO_CUE,
});

// In lower case ("my nino is jk482917b", as chat writes it) the form is a common enough shape of
// codes that only its label makes it one.
export const ninoLowerCaseRecognizer = numericIdRecognizer({
  type: 'NINO',
  candidate: new RegExp(
    `(?<![\\p{L}\\p{N}])(?!bg|gb|kn|nk|nt|tn|zz)[${PREFIX_FIRST.toLowerCase()}][${PREFIX_SECOND.toLowerCase()}] ?\\d{2}( ?)\\d{2}\\1\\d{2}\\1 ?[a-d](?![\\p{L}\\p{N}])`,
    'gu',
  ),
  compact: (value) => value.replace(/ /g, '').toUpperCase(),
  valid: () => true,
  checksum: false,
  back: 3,
  minDigits: 6,
  cue: NINO_CUE,
  requireCue: true,
});
