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
