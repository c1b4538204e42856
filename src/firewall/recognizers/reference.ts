// Reference numbers that identify a person at an organisation: policy, claim, customer, contract,
// dossier and account numbers ("polisnummer IV-2024-889123", "Mijn klantnummer is 8812345",
// "Kundennummer: K-44512", "numéro de contrat AB123456", "claim number CLM-2024-0098"). They have
// no check digits and no form of their own, so only a label right before the value makes one: the
// label (in the four languages), then ":", "#", "is", "ist", "est", "lautet" or nothing, then a
// value of letters, digits and . / - holding at least one digit, at most 30 characters, in at most
// four groups separated by single spaces ("Aktenzeichen 3 O 123/24"). Under such a key or column
// (structure.ts) a value is typed the same way. See docs/decisions/0019.
//
// The same reading serves two more label sets further down: identity document and social
// insurance numbers (ID_NUMBER) and a postcode said alone (ADDRESS).
//
// Cost: the labels are a cue registered with the pre-scan (../scan.ts), so the regex is tried,
// sticky, only at word starts whose first characters can begin a label; its repetitions are
// bounded and its alternatives start with distinct characters: linear.
import { answerTo } from '../context.js';
import { Matcher, cuePositions, registerCue, scanOf, type TextScan } from '../scan.js';
import type { Detection, EntityType, Language, Recognizer } from '../types.js';

// Labels, case-insensitive. A bare word ("polis", "Police", "Aktenzeichen") names the number by
// itself; the others need their number word ("klantnummer", "customer no.", "numéro de contrat").
// "_" joins them as a log line's or a code's key does ("customer_id=C-99120", "policy_number=…").
const NUMBER_WORD = '(?:[ _-]?(?:nummer|nr\\.?|no\\.?|n°|nº|number|#))';
const LABEL =
  '(?:' +
  [
    // nl
    `(?:polis|schade|klant|dossier|contract|relatie|lid|cli[eë]nt|verzekerings|schadedossier|personeels|werknemers)${NUMBER_WORD}`,
    'polis',
    // A letter's file reference, a claim's report (QA 2026-11-27: "Uw kenmerk: SCH-2024-118734",
    // "Schademelding 2024-118734" were sent in clear). "kenmerk" alone is a payment's reference.
    '(?:uw|ons|onze)[ ]kenmerk',
    'schademelding',
    // en
    `(?:policy|claim|customer|client|account|contract|membership|member|case file|employee|staff)${NUMBER_WORD}`,
    'customer[ _-]?id',
    'employee[ _-]?id',
    '(?:your|our)[ ]ref(?:erence)?\\.?',
    'claim[ ]ref(?:erence)?\\.?',
    // "claim CLM-7781-22": a code only (CODED below)
    'claim',
    // de
    `(?:police|policen|polizzen|versicherungs|versicherungsschein|vertrags|schaden|kunden|mitglieds)${NUMBER_WORD}`,
    // Not "personal number", English for a phone's.
    'personal(?:nummer|-?nr\\.?)',
    'aktenzeichen',
    'kunden[ _-]?id',
    '(?:ihr|unser)e?[ ]zeichen',
    // fr
    `(?:num[ée]ro|n°|nº|no\\.?)[ ]?(?:de[ ]|d['’])?(?:police|contrat|client|dossier|sinistre|adh[ée]rent|soci[ée]taire|assur[ée])`,
    `r[ée]f[ée]rence[ ]client`,
    '(?:vos|nos|votre|notre)[ ]r[ée]f[ée]rences?',
    // "contrat n° RC-884120", "adhérente n° 883312", "contrat no 884120": the noun first, as forms
    // and letters write it
    `(?:contrat|police|dossier|client|sinistre|adh[ée]rente?|soci[ée]taire|assur[ée]e?)[ ]?(?:n°|nº|no\\.?|num[ée]ro)`,
    // "le contrat MRH-441298": a code only (CODED below)
    'contrat',
  ].join('|') +
  ')';
// Between the label and the value: a sign, a verb, or only blanks ("polisnummer IV-…", "Polisnummer: …",
// "Mijn polisnummer is …", "Unsere Kundennummer ist …", "Votre numéro de dossier est …").
const CONNECTOR = "[ \\t\\u00a0]{0,4}(?:[:#=][ \\t\\u00a0]{0,4})?(?:(?:is|was|ist|lautet|est|:)[ \\t\\u00a0]{1,4})?";
/** The value: groups of letters, digits and . / - joined by single spaces; checked further in code. */
export const REFERENCE_VALUE_SRC = '[A-Za-z0-9](?:[A-Za-z0-9]|[./-](?=[A-Za-z0-9])|[ ](?=[A-Z0-9])){0,29}(?![\\p{L}\\p{N}])';

// The label is a word of its own: glued to letters it is the start of another word, and what
// follows is no value ("collection polissen-2" is a slug, not "polis" and a number "sen-2"). A label
// that ends in a sign may be glued to its value ("polisnr.IV-2024-1").
const LABEL_END = '(?:(?<![\\p{L}])|(?![\\p{L}]))';

// A label that ends right before a position (for the national-id recognizers: a number labelled
// as a policy or customer number is that, whatever check digits it passes).
const LABEL_BEFORE = new RegExp(`(?<![\\p{L}])${LABEL}${LABEL_END}${CONNECTOR}$`, 'iu');

const LOWER_WORD = /[a-z]{4}/;

/**
 * The part of a matched value that is a reference, or null. Read group by group from the left: the
 * first group, then each group that holds a digit, or one to three capitals between two digit
 * groups ("3 O 123/24"); it stops at a word ("12345 en …", "IV-2024-1 NL"). Null when it holds no
 * digit, holds a word (four lower-case letters in a row: "Jaarcontract 2024"), or is too short.
 */
export function referenceValue(value: string, bare: boolean, coded = false): string | null {
  const groups = value.split(' ');
  // "claim", "contrat" alone are words of prose ("I claim 2 points", "le contrat 2024-2025"): after
  // them only a code is a reference, capitals and at least four digits in one group, not a year.
  if (coded) {
    const code = groups[0]!;
    return /[A-Z]/.test(code) && (code.match(/\d/g)?.length ?? 0) >= 4 && !/^[A-Z]{1,4}[-/]?(?:19|20)\d\d$/.test(code) ? code : null;
  }
  // A date is no reference: "Ingangsdatum polis 01-04-1998" was masked as a policy number (QA
  // 2026-11-27). A two-digit year only after a bare label ("Aktenzeichen 12-05-20" may be a file's).
  if (isDate(groups[0]!, bare)) return null;
  // A word after the label is no reference ("An SSN has 9 digits", "passport number: max 9"):
  // the first group holds a digit, or is a prefix in capitals ("AB 123456"). Nor is a version
  // ("passport 0.7.0", the library).
  if (!DIGIT.test(groups[0]!) && !CAPITALS.test(groups[0]!)) return null;
  if (/^[0-9]{1,3}(?:\.[0-9]{1,3}){2,3}$/.test(groups[0]!)) return null;
  const taken = [groups[0]!];
  for (let i = 1; i < groups.length && taken.length < 4; i++) {
    const g = groups[i]!;
    if (DIGIT.test(g) && !LOWER_WORD.test(g)) taken.push(g);
    else if (CAPITALS.test(g) && i + 1 < groups.length && DIGIT.test(groups[i + 1]!) && taken.length < 3) taken.push(g);
    else break;
  }
  if (!DIGIT.test(taken[taken.length - 1]!)) taken.pop();
  const v = taken.join(' ');
  if (!DIGIT.test(v) || LOWER_WORD.test(v)) return null;
  // A bare label ("polis", "Police") needs more than a year or a count after it.
  if (v.length < (bare ? 5 : 3)) return null;
  return v;
}

const DIGIT = /\d/;
const CAPITALS = /^[A-Z]{1,3}$/;
const DAY_MONTH_YEAR = /^(\d{1,2})([./-])(\d{1,2})\2(\d{4}|\d{2})$/;
const YEAR_MONTH_DAY = /^(?:19|20)\d\d([./-])(\d{1,2})\1(\d{1,2})$/;

/** Whether a value is a calendar date (day and month either way round), with a four-digit year unless `twoDigitYear`. */
function isDate(value: string, twoDigitYear: boolean): boolean {
  const ymd = YEAR_MONTH_DAY.exec(value);
  if (ymd !== null) return dayMonth(Number(ymd[3]), Number(ymd[2]));
  const dmy = DAY_MONTH_YEAR.exec(value);
  if (dmy === null || (dmy[4]!.length === 2 && !twoDigitYear)) return false;
  return dayMonth(Number(dmy[1]), Number(dmy[3])) || dayMonth(Number(dmy[3]), Number(dmy[1]));
}

function dayMonth(day: number, month: number): boolean {
  return day >= 1 && day <= 31 && month >= 1 && month <= 12;
}

/** What a label is followed by: the value's pattern, and its part that is the value (or null). */
interface LabelledValue {
  src: string;
  /** `bare`: the label is one of those that name the value by themselves; `coded`: one after which only a code is the value. */
  valueOf(raw: string, bare: boolean, coded: boolean): string | null;
}

const REFERENCE: LabelledValue = { src: REFERENCE_VALUE_SRC, valueOf: referenceValue };

// The labels that name the value by themselves (needing more than a year or a count after them),
// and those after which only a code is one (see referenceValue).
const BARE_REFERENCE =
  /^(?:polis|police|schademelding|(?:uw|ons|onze)[ ]kenmerk|(?:your|our|claim)[ ]ref(?:erence)?\.?|(?:ihr|unser)e?[ ]zeichen|(?:vos|nos|votre|notre)[ ]r[ée]f[ée]rences?)$/i;
const CODED_REFERENCE = /^(?:claim|contrat)$/i;

interface LabelSet {
  label: string;
  type: EntityType;
  /** The labels that name the value by themselves ("polis", "passport"), which need more than a year or a count after them. */
  bare: RegExp;
  /** The labels that are words of prose as often ("claim", "contrat"), after which only a code is the value. */
  coded?: RegExp;
  value: LabelledValue;
}

/**
 * Finders of the values after each set of labels. The sets share one cue of the pre-scan (there are
 * sixteen at most, scan.ts), so each finder tries its regex at the word starts that may begin any of them.
 */
function labelledValueFinders(sets: readonly LabelSet[]): Array<(text: string, scan?: TextScan) => Detection[]> {
  const bit = registerCue(`(?:${sets.map((set) => set.label).join('|')})`);
  return sets.map((set) => labelledValues(set, bit));
}

function labelledValues({ label, type, bare, coded, value }: LabelSet, bit: number): (text: string, scan?: TextScan) => Detection[] {
  const labelled = new RegExp(`(?<![\\p{L}])${label}${LABEL_END}${CONNECTOR}(${value.src})`, 'giu');
  const sticky = new RegExp(`${label}${LABEL_END}${CONNECTOR}(${value.src})`, 'iuy');
  const labelOnly = new RegExp(`${label}${LABEL_END}`, 'iuy');
  const valueOnly = new RegExp(`(${value.src})`, 'uy');
  return (text, scan) => {
    const s = scanOf(text, scan);
    if (s.digitRuns.length === 0) return [];
    const [positions] = cuePositions(s, [bit]);
    if (positions!.length === 0) return [];
    const out: Detection[] = [];
    const matches = new Matcher(labelled, s, positions!, { sparse: Infinity, sticky });
    for (let m = matches.exec(); m; m = matches.exec()) {
      const raw = m[1]!;
      const valueStart = m.index + m[0].length - raw.length;
      const labelText = m[0].slice(0, m[0].length - raw.length).replace(/[\s:#=]+$/u, '').replace(/\s+(?:is|was|ist|lautet|est)$/iu, '');
      const found = value.valueOf(raw, bare.test(labelText), coded?.test(labelText) ?? false);
      if (found === null) continue;
      out.push({ type, start: valueStart, end: valueStart + found.length, text: found, checksum: false, normalized: found.toUpperCase() });
      matches.lastIndex = valueStart + found.length;
    }
    const answers = answersTo(text, positions!, labelOnly, valueOnly, value, bare, coded);
    if (answers.length === 0) return out;
    // Both in text order: an answer that a label's value covers already is left out.
    const merged: Detection[] = [];
    let k = 0;
    for (const a of answers) {
      while (k < out.length && out[k]!.start < a.start) merged.push(out[k++]!);
      const previous = merged[merged.length - 1];
      if ((previous !== undefined && previous.end > a.start) || (k < out.length && out[k]!.start < a.end)) continue;
      merged.push({ type, start: a.start, end: a.end, text: a.value, checksum: false, normalized: a.value.toUpperCase() });
    }
    while (k < out.length) merged.push(out[k++]!);
    return merged;
  };
}

// The first word of an answer that holds a digit lies within this many characters of what is said.
const ANSWER_VALUE_WITHIN = 64;

/**
 * The values that answer a question asking for one by its label, on the line after it ("Mag ik uw
 * polisnummer?" / "[10:43] Klant: PV-4471-2209"; see questionBefore in ../context.ts): the first
 * word of the answer that holds a digit, read as the label's value. One answer a question, one
 * question a line; each label position costs a bounded look at its line and the next few.
 */
function answersTo(
  text: string,
  positions: readonly number[],
  labelOnly: RegExp,
  valueOnly: RegExp,
  value: LabelledValue,
  bare: RegExp,
  coded: RegExp | undefined,
): Array<{ start: number; end: number; value: string }> {
  const out: Array<{ start: number; end: number; value: string }> = [];
  let lineDone = -1;
  for (const at of positions) {
    if (at <= lineDone) continue;
    labelOnly.lastIndex = at;
    const label = labelOnly.exec(text);
    if (label === null) continue;
    const line = questionLineAt(text, at);
    // Its other labels are not looked at again, on a line too long for a question too.
    lineDone = line.end;
    if (line.tooLong) continue;
    const answer = answerTo(text, line.start, line.end);
    if (answer === null) continue;
    let d = answer.said;
    const stop = Math.min(answer.end, answer.said + ANSWER_VALUE_WITHIN);
    while (d < stop && !(text.charCodeAt(d) >= 48 && text.charCodeAt(d) <= 57)) d++;
    if (d >= stop) continue;
    // Back to the start of the word that holds the digit ("PV-4471-2209").
    let w = d;
    while (w > answer.said && /[A-Za-z0-9./-]/.test(text.charAt(w - 1))) w--;
    while (w < d && !/[A-Za-z0-9]/.test(text.charAt(w))) w++;
    valueOnly.lastIndex = w;
    const m = valueOnly.exec(text);
    if (m === null) continue;
    const name = label[0].replace(/[\s:#=]+$/u, '');
    const found = value.valueOf(m[1]!, bare.test(name), coded?.test(name) ?? false);
    if (found !== null) out.push({ start: w, end: w + found.length, value: found });
  }
  return out;
}

/**
 * The line holding `at`, read at most QUESTION_LINE_MAX characters either side of `at`; `tooLong`
 * when it goes on further (then `end` is as far as it was read).
 */
function questionLineAt(text: string, at: number): { start: number; end: number; tooLong: boolean } {
  let end = at;
  const to = Math.min(text.length, at + QUESTION_LINE_MAX);
  while (end < to && text.charCodeAt(end) !== 10) end++;
  if (end === to && end < text.length && text.charCodeAt(end) !== 10) return { start: at, end, tooLong: true };
  let start = at;
  const from = Math.max(0, at - QUESTION_LINE_MAX);
  while (start > from && text.charCodeAt(start - 1) !== 10) start--;
  return { start, end, tooLong: start === from && start > 0 && text.charCodeAt(start - 1) !== 10 };
}
const QUESTION_LINE_MAX = 200;


// Identity documents and social insurance numbers without check digits of their own, after their
// label: a US social security number, a passport's, an identity card's or a driving licence's
// number, a German social insurance number ("SSN 536-22-4187", "Passport number NW1234567",
// "Sozialversicherungsnummer 65 170839 J 003", "paspoortnummer NX12AB345"). Those with check digits
// (BSN, NIR, the Belgian national number …) have recognizers of their own, whose checksum wins an
// overlap.
// The number word may stand apart from the document's name, as short labels write it ("Paspoort nr.
// NXC3F8K21", "Ausweis-Nr.: L01X00T47", "Pasaporte n.º PAA123456": QA 2026-11-27, sent in clear
// while "paspoortnummer" and "Personalausweisnummer:" were masked).
const DOCUMENT_NUMBER = '(?:[ _-]?(?:nummer|nr\\.?|no\\.?|n°|nº|n\\.[º°]?|n[úu]m\\.|n[úu]mero|number|#))';
const ID_LABEL =
  '(?:' +
  [
    // en
    'ssn',
    `social[ _-]security${DOCUMENT_NUMBER}?`,
    `passport${DOCUMENT_NUMBER}?`,
    `(?:national[ _-])?id(?:entity)?[ _-]card${DOCUMENT_NUMBER}`,
    `driv(?:er'?s|ing)[ _-]licen[cs]e${DOCUMENT_NUMBER}`,
    // nl
    `paspoort${DOCUMENT_NUMBER}?`,
    '(?:identiteitskaart|id-kaart|rijbewijs|document)(?:nummer|nr\\.?)',
    // de
    '(?:reise)?pass(?:nummer|nr\\.?)',
    `reisepass${DOCUMENT_NUMBER}?`,
    `(?:personal)?ausweis${DOCUMENT_NUMBER}`,
    '(?:sozialversicherungs|rentenversicherungs|sv|führerschein)[ -]?(?:nummer|nr\\.?)',
    // fr
    `num[ée]ro[ ]d[e']?[ ]?(?:passeport|carte[ ]d['’]identit[ée]|permis(?:[ ]de[ ]conduire)?|s[ée]curit[ée][ ]sociale)`,
    'passeport',
    // es, it, pl: the passport alone names its number, as in the four languages.
    `pasaporte${DOCUMENT_NUMBER}?`,
    `passaporto${DOCUMENT_NUMBER}?`,
    `paszport${DOCUMENT_NUMBER}?`,
  ].join('|') +
  ')';

// A full UK or Dutch postcode after its label, alone: "caller verified DOB and postcode SW1A 2AA",
// "postcode 3511 AB". Such a postcode names a street's side, a few dozen households; asked for to
// verify someone, it is theirs. The numeric ones of Germany, France or Belgium ("Die Postleitzahl
// 80331 gehört zu München") name a district of thousands, and stay. An address with a street
// carries its postcode already (address.ts). Typed ADDRESS, as a postcode under a postcode key is.
const POSTCODE_LABEL = '(?:post(?:al)?[ _-]?code)';
const POSTCODE: LabelledValue = {
  src: '(?:[A-Za-z]{1,2}\\d[A-Za-z\\d]?[ ]?\\d[A-Za-z]{2}|\\d{4}[ ]?[A-Za-z]{2})(?![\\p{L}\\p{N}])',
  valueOf: (raw) => raw,
};

// A British bank account after its sort code: "Sort code 20-00-00  Account 55779911", "sort code
// 20-00-00, a/c no. 55779911" (QA 2026-11-27: sent in clear, while "Account number: …" was masked).
// "Account" alone before a number is any account's (a login's, a ledger's), so the sort code before
// it is what makes it a bank's; the sort code itself names a branch and stays. Typed IBAN, as an
// account number under an account key is (structure.ts).
const SORT_CODE_ACCOUNT_LABEL =
  '(?:sort[ _-]?code[ \\t]{0,4}:?[ \\t]{0,4}\\d{2}[- ]?\\d{2}[- ]?\\d{2}[ \\t]{0,4}[,;/|]?[ \\t]{0,4}(?:and[ ])?(?:a/c|acc(?:oun)?t\\.?)(?:[ _-]?(?:no\\.?|number|nr\\.?|#))?)';
const ACCOUNT: LabelledValue = { src: '\\d{6,10}(?![\\p{L}\\p{N}]|[.,-]\\d)', valueOf: (raw) => raw };

export const [findReferences, findIdNumbers, findPostcodes, findSortCodeAccounts] = labelledValueFinders([
  { label: LABEL, type: 'CUSTOMER_REF', bare: BARE_REFERENCE, coded: CODED_REFERENCE, value: REFERENCE },
  { label: ID_LABEL, type: 'ID_NUMBER', bare: /^(?:ssn|passport|paspoort|reisepass|passeport|pasaporte|passaporto|paszport)$/i, value: REFERENCE },
  { label: POSTCODE_LABEL, type: 'ADDRESS', bare: /^$/, value: POSTCODE },
  { label: SORT_CODE_ACCOUNT_LABEL, type: 'IBAN', bare: /^$/, value: ACCOUNT },
]) as [Finder, Finder, Finder, Finder];

type Finder = (text: string, scan?: TextScan) => Detection[];

/** Whether a reference label (with its connector) ends right at `start`, on the same line. */
export function labelledAsReference(text: string, start: number): boolean {
  const from = Math.max(0, start - 48);
  let before = text.slice(from, start);
  const nl = before.lastIndexOf('\n');
  if (nl >= 0) before = before.slice(nl + 1);
  return LABEL_BEFORE.test(before);
}

export const referenceRecognizer: Recognizer = {
  type: 'CUSTOMER_REF',
  needsDigit: true,
  detect(text: string, _language: Language, scan?: TextScan): Detection[] {
    return findReferences(text, scan);
  },
};

export const idNumberRecognizer: Recognizer = {
  type: 'ID_NUMBER',
  needsDigit: true,
  detect(text: string, _language: Language, scan?: TextScan): Detection[] {
    return findIdNumbers(text, scan);
  },
};

export const postcodeRecognizer: Recognizer = {
  type: 'ADDRESS',
  needsDigit: true,
  detect(text: string, _language: Language, scan?: TextScan): Detection[] {
    return findPostcodes(text, scan);
  },
};

export const sortCodeAccountRecognizer: Recognizer = {
  type: 'IBAN',
  needsDigit: true,
  detect(text: string, _language: Language, scan?: TextScan): Detection[] {
    return findSortCodeAccounts(text, scan);
  },
};
