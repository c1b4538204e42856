// Check-digit algorithms used by the recognizers. Each takes the compact form (digits only unless
// stated) and returns whether the check digits are right. The tests cross-check them against the
// independent implementations in the `stdnum` package.

const ZERO = 48;

function isDigits(s: string): boolean {
  if (s.length === 0) return false;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i) - ZERO;
    if (c < 0 || c > 9) return false;
  }
  return true;
}

/** Keeps the ASCII digits of `s`. */
export function digitsOnly(s: string): string {
  let out = '';
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c >= 48 && c <= 57) out += s[i];
  }
  return out;
}

/** How many ASCII digits `s` holds. */
export function digitCount(s: string): number {
  let n = 0;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c >= 48 && c <= 57) n++;
  }
  return n;
}

/** Luhn (mod 10), as used by payment cards. */
export function luhnValid(digits: string): boolean {
  if (!isDigits(digits) || digits.length < 2) return false;
  let sum = 0;
  let double = false;
  for (let i = digits.length - 1; i >= 0; i--) {
    let d = digits.charCodeAt(i) - ZERO;
    if (double) {
      d *= 2;
      if (d > 9) d -= 9;
    }
    sum += d;
    double = !double;
  }
  return sum % 10 === 0;
}

/** `value mod 97` for a decimal string of any length, without BigInt. */
export function mod97(digits: string): number {
  let r = 0;
  for (let i = 0; i < digits.length; i++) r = (r * 10 + (digits.charCodeAt(i) - ZERO)) % 97;
  return r;
}

/**
 * Dutch BSN "elfproef": 9 digits d1..d9 with 9·d1 + 8·d2 + … + 2·d8 − 1·d9 ≡ 0 (mod 11).
 * All-zero numbers are refused.
 */
export function bsnValid(digits: string): boolean {
  if (digits.length !== 9 || !isDigits(digits) || digits === '000000000') return false;
  let sum = 0;
  for (let i = 0; i < 8; i++) sum += (9 - i) * (digits.charCodeAt(i) - ZERO);
  sum -= digits.charCodeAt(8) - ZERO;
  return sum % 11 === 0;
}

/**
 * NHS number (England, Wales, Isle of Man) and CHI number (Scotland): 10 digits, the last a modulus
 * 11 check over the first nine weighted 10 down to 2; a check of 10 makes no valid number.
 */
export function nhsNumberValid(digits: string): boolean {
  if (digits.length !== 10 || !isDigits(digits) || /^(\d)\1{9}$/.test(digits)) return false;
  let sum = 0;
  for (let i = 0; i < 9; i++) sum += (10 - i) * (digits.charCodeAt(i) - ZERO);
  const check = (11 - (sum % 11)) % 11;
  return check !== 10 && check === digits.charCodeAt(9) - ZERO;
}

/** ISO 7064 MOD 11,10 check digit over `digits` (the German Steuer-ID uses it). */
export function iso7064Mod11_10CheckDigit(digits: string): number {
  let product = 10;
  for (let i = 0; i < digits.length; i++) {
    let sum = (digits.charCodeAt(i) - ZERO + product) % 10;
    if (sum === 0) sum = 10;
    product = (sum * 2) % 11;
  }
  const check = 11 - product;
  return check === 10 ? 0 : check;
}

/**
 * German steuerliche Identifikationsnummer: 11 digits, no leading zero; among the first ten digits
 * exactly one digit occurs twice or three times (three times never in a row) and the others at most
 * once; the eleventh digit is the ISO 7064 MOD 11,10 check digit.
 */
export function steuerIdValid(digits: string): boolean {
  if (digits.length !== 11 || !isDigits(digits) || digits[0] === '0') return false;
  const counts = new Array<number>(10).fill(0);
  for (let i = 0; i < 10; i++) counts[digits.charCodeAt(i) - ZERO]!++;
  let repeated = 0;
  for (const c of counts) {
    if (c > 3) return false;
    if (c >= 2) repeated++;
  }
  if (repeated !== 1) return false;
  for (let i = 2; i < 10; i++) {
    if (digits[i] === digits[i - 1] && digits[i] === digits[i - 2]) return false;
  }
  return iso7064Mod11_10CheckDigit(digits.slice(0, 10)) === digits.charCodeAt(10) - ZERO;
}

/**
 * French NIR (numéro de sécurité sociale), 15 characters: sex, YY, MM, département (2 digits, or
 * 2A/2B for Corsica), commune (3), order (3), key (2). Key = 97 − (number mod 97), where for the
 * computation 2A is read as 19 and 2B as 18. `compact` is upper case without separators.
 */
export function nirValid(compact: string): boolean {
  if (compact.length !== 15) return false;
  const sex = compact[0]!;
  if (!'123478'.includes(sex)) return false;
  const month = compact.slice(3, 5);
  const dept = compact.slice(5, 7);
  const key = compact.slice(13, 15);
  if (!isDigits(compact.slice(0, 5)) || !isDigits(compact.slice(7, 15))) return false;
  const mm = Number(month);
  if (!((mm >= 1 && mm <= 12) || (mm >= 20 && mm <= 42) || (mm >= 50 && mm <= 99))) return false;
  let deptDigits: string;
  if (dept === '2A') deptDigits = '19';
  else if (dept === '2B') deptDigits = '18';
  else if (isDigits(dept) && dept !== '00') deptDigits = dept;
  else return false;
  const body = compact.slice(0, 5) + deptDigits + compact.slice(7, 13);
  const k = Number(key);
  return k >= 1 && k <= 97 && 97 - mod97(body) === k;
}

/**
 * Belgian national number (rijksregisternummer / numéro national), 11 digits YYMMDD SSS CC.
 * CC = 97 − (YYMMDDSSS mod 97) for people born before 2000, or with a 2 prefixed for those born
 * from 2000 (a year not yet reached is refused). Also accepts the BIS variant (month + 20 or + 40). Day 00 / month 00 occur when the
 * date of birth is unknown.
 */
export function beNationalNumberValid(digits: string): boolean {
  if (digits.length !== 11 || !isDigits(digits)) return false;
  let month = Number(digits.slice(2, 4));
  const day = Number(digits.slice(4, 6));
  if (month >= 40) month -= 40;
  else if (month >= 20) month -= 20;
  if (month > 12 || day > 31) return false;
  const serial = Number(digits.slice(6, 9));
  if (serial === 0 || serial === 999) return false;
  const check = Number(digits.slice(9, 11));
  const body = digits.slice(0, 9);
  if (97 - mod97(body) === check) return true;
  // Born from 2000: only for a year that has already begun.
  const yy = Number(digits.slice(0, 2));
  return 2000 + yy <= new Date().getUTCFullYear() && 97 - mod97('2' + body) === check;
}

const DNI_LETTERS = 'TRWAGMYFPDXBNJZSQVHLCKE';

/**
 * Spanish DNI (8 digits and a letter) or NIE (X, Y or Z, 7 digits and a letter): the letter is
 * DNI_LETTERS[number mod 23], the NIE's leading X/Y/Z read as 0/1/2. `compact`: upper case, no separators.
 */
export function dniValid(compact: string): boolean {
  if (compact.length !== 9) return false;
  const lead = 'XYZ'.indexOf(compact[0]!);
  const digits = lead >= 0 ? String(lead) + compact.slice(1, 8) : compact.slice(0, 8);
  if (!isDigits(digits)) return false;
  return DNI_LETTERS[Number(digits) % 23] === compact[8];
}

// The values of a codice fiscale's characters at odd places (1st, 3rd …), digits 0–9 then A–Z.
const CF_ODD = [1, 0, 5, 7, 9, 13, 15, 17, 19, 21, 1, 0, 5, 7, 9, 13, 15, 17, 19, 21, 2, 4, 18, 20, 11, 3, 6, 8, 12, 14, 16, 10, 22, 25, 24, 23];
// Where a codice fiscale holds a digit, or the letter that stands for it when two people would
// share one ("omocodia": L M N P Q R S T U V for 0–9).
const CF_DIGIT_PLACES = [6, 7, 9, 10, 12, 13, 14];
const CF_MONTHS = 'ABCDEHLMPRST';
const CF_OMOCODE = 'LMNPQRSTUV';

/**
 * Italian codice fiscale of a person: 16 characters, surname and name letters, year, month letter,
 * day (+40 for women), municipality, and a check letter from the odd and even places' values
 * mod 26. `compact`: upper case.
 */
export function codiceFiscaleValid(compact: string): boolean {
  if (compact.length !== 16) return false;
  let sum = 0;
  for (let i = 0; i < 15; i++) {
    const c = compact.charCodeAt(i);
    const v = c >= 48 && c <= 57 ? c - 48 : c >= 65 && c <= 90 ? c - 65 + 10 : -1;
    if (v < 0) return false;
    const isDigit = v < 10;
    if (CF_DIGIT_PLACES.includes(i) ? !isDigit && !CF_OMOCODE.includes(compact[i]!) : isDigit) return false;
    sum += i % 2 === 0 ? CF_ODD[v]! : isDigit ? v : v - 10;
  }
  if (!CF_MONTHS.includes(compact[8]!)) return false;
  const digit = (i: number) => {
    const c = compact[i]!;
    const o = CF_OMOCODE.indexOf(c);
    return o >= 0 ? o : Number(c);
  };
  const day = digit(9) * 10 + digit(10);
  if (!((day >= 1 && day <= 31) || (day >= 41 && day <= 71))) return false;
  return String.fromCharCode(65 + (sum % 26)) === compact[15];
}

/**
 * Polish PESEL: 11 digits YYMMDD ZZZZ C; the month carries the century (+80 1800s, +0 1900s, +20
 * 2000s, +40, +60), the date must exist and not lie ahead, and C = (10 − Σ wᵢ·dᵢ mod 10) mod 10
 * with weights 1 3 7 9 1 3 7 9 1 3.
 */
export function peselValid(digits: string): boolean {
  if (digits.length !== 11 || !isDigits(digits)) return false;
  const weights = [1, 3, 7, 9, 1, 3, 7, 9, 1, 3];
  let sum = 0;
  for (let i = 0; i < 10; i++) sum += weights[i]! * (digits.charCodeAt(i) - ZERO);
  if ((10 - (sum % 10)) % 10 !== digits.charCodeAt(10) - ZERO) return false;
  const yy = Number(digits.slice(0, 2));
  let month = Number(digits.slice(2, 4));
  const day = Number(digits.slice(4, 6));
  const century = [1900, 2000, 2100, 2200, 1800][Math.floor(month / 20)]!;
  month %= 20;
  if (month < 1 || month > 12 || day < 1) return false;
  const year = century + yy;
  const date = new Date(Date.UTC(year, month - 1, day));
  return date.getUTCDate() === day && date.getTime() <= Date.now();
}

/**
 * Portuguese NIF (número de identificação fiscal) of a person: nine digits, the first 1, 2 or 3, or
 * 45 (a non-resident); check digit = 11 − (Σ dᵢ·(9−i) over the first eight mod 11), 0 when that is
 * 10 or 11. Companies' NIFs (from 5) are not a person's, and are refused.
 */
export function nifValid(digits: string): boolean {
  if (digits.length !== 9 || !isDigits(digits)) return false;
  const first = digits.charCodeAt(0) - ZERO;
  if (!(first >= 1 && first <= 3) && !digits.startsWith('45')) return false;
  let sum = 0;
  for (let i = 0; i < 8; i++) sum += (digits.charCodeAt(i) - ZERO) * (9 - i);
  const r = sum % 11;
  return (r < 2 ? 0 : 11 - r) === digits.charCodeAt(8) - ZERO;
}
