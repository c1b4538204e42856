// Identity documents whose number has a form of its own.
//
// A British driving licence number ("licence no. PEARC853051RJ9AB"): the first five letters of the
// surname (padded with 9s), the decade, month (plus 50 for a woman), day and year of birth, two
// initials (or 9), a digit and two check characters. The birth date inside makes the form strict
// enough to be read alone: sixteen capitals and digits in exactly this order, with a real month and
// day, are rarely anything else. A "not about a person" word nearer than a licence word drops it.
//
// A Dutch identity card or passport number after its label ("ID-kaart: IR57K8LN3", "paspoort
// NX12AB345"): two letters, six letters or digits, a digit, nine in all, never the letter O. Nine
// capitals and digits are any product code's form, so only right after the label. The labels with
// "nummer" are read by reference.ts too; an exact tie is one value.
//
// Cost: the licence number is tried only at digit runs of six or more (numeric-id.ts); the label is
// a cue of the pre-scan (../scan.ts), its regex tried, sticky, only at word starts that may begin one.
import { Matcher, cuePositions, registerCue, scanOf, type TextScan } from '../scan.js';
import type { Detection, Language, Recognizer } from '../types.js';
import { numericIdRecognizer } from './numeric-id.js';

/** Whether the six digits of a UK licence number hold a real month (01–12, 51–62) and day. */
function ukLicenceDateOk(compact: string): boolean {
  const month = Number(compact.slice(6, 8));
  const day = Number(compact.slice(8, 10));
  const m = month > 50 ? month - 50 : month;
  return m >= 1 && m <= 12 && day >= 1 && day <= 31;
}

/** The surname's five characters: letters, then only 9s as padding ("LEE99"). */
const UK_SURNAME = /^[A-Z]+9*$/;

export const ukDrivingLicenceRecognizer = numericIdRecognizer({
  type: 'ID_NUMBER',
  candidate: /(?<![\p{L}\p{N}])[A-Z9]{5} ?\d{6} ?[A-Z9]{2}\d[A-Z]{2}(?![\p{L}\p{N}])/gu,
  compact: (value) => value.replace(/ /g, ''),
  valid: (compact) => UK_SURNAME.test(compact.slice(0, 5)) && /^[A-Z]/.test(compact) && /^[A-Z][A-Z9]$/.test(compact.slice(11, 13)) && ukLicenceDateOk(compact),
  checksum: false,
  back: 6,
  minDigits: 6,
  cue: /driv(?:ing|er'?s)|licen[cs]e|dvla|rijbewijs|führerschein|permis/i,
});

// The number word glued to the name or apart from it ("ID-kaart nummer SPECI2014": QA 2026-11-27c,
// sent in clear while "ID-kaart: …" was masked).
const DOCUMENT_LABEL = '(?:id[ -]?kaart|identiteitskaart|identiteitsbewijs|legitimatiebewijs|paspoort|reisdocument)(?:[ -]?(?:nummer|nr\\.?))?';
const DOCUMENT_BIT = registerCue(DOCUMENT_LABEL);
// The label, a colon or "is", then the number; not glued to more letters or digits.
const DOCUMENT_AFTER = `${DOCUMENT_LABEL}(?![\\p{L}])[ \\t\\u00a0]{0,4}(?::[ \\t\\u00a0]{0,4}|is[ \\t\\u00a0]{1,4}|#[ \\t\\u00a0]{0,2})?([A-NP-Z]{2}[A-NP-Z0-9]{6}[0-9])(?![\\p{L}\\p{N}])`;
const DOCUMENT_G = new RegExp(`(?<![\\p{L}])${DOCUMENT_AFTER}`, 'giu');
const DOCUMENT_Y = new RegExp(DOCUMENT_AFTER, 'iuy');

export function findDutchDocumentNumbers(text: string, scan?: TextScan): Detection[] {
  // The label is read without regard to case, the number is written in capitals.
  return documentNumbersAfter(text, scan, { cue: DOCUMENT_BIT, global: DOCUMENT_G, sticky: DOCUMENT_Y }, (value) => value === value.toUpperCase() && /\d/.test(value));
}

/** The numbers a document's label leads to (group 1 of its patterns) that `accept` takes, as ID_NUMBERs. */
function documentNumbersAfter(
  text: string,
  scan: TextScan | undefined,
  label: { cue: number; global: RegExp; sticky: RegExp },
  accept: (value: string) => boolean,
): Detection[] {
  const s = scanOf(text, scan);
  if (s.digitRuns.length === 0) return [];
  const [labels] = cuePositions(s, [label.cue]);
  if (labels!.length === 0) return [];
  const out: Detection[] = [];
  const matches = new Matcher(label.global, s, labels!, { sparse: Infinity, sticky: label.sticky });
  for (let m = matches.exec(); m; m = matches.exec()) {
    const value = m[1]!;
    if (!accept(value)) continue;
    const start = m.index + m[0].length - value.length;
    out.push({ type: 'ID_NUMBER', start, end: start + value.length, text: value, checksum: false, normalized: value.replace(/ /g, '') });
  }
  return out;
}

export const dutchDocumentNumberRecognizer: Recognizer = {
  type: 'ID_NUMBER',
  needsDigit: true,
  detect(text: string, _language: Language, scan?: TextScan): Detection[] {
    return findDutchDocumentNumbers(text, scan);
  },
};

// An identity card's or a driving licence's number after the document's name in Dutch, German, Spanish,
// Italian, Polish or Portuguese ("dowód osobisty ABA300000", "carta d'identità CA00000AA",
// "Führerschein B072RRE2I55", "Cartão de Cidadão 12345678 9 ZZ1"): QA 2026-11-27c, sent in clear,
// while "Personalausweisnummer L01X00T47" was masked (reference.ts reads the labels that end in a
// number word). The document's name alone labels the number, maybe followed by its number word, a
// colon or a verb; the value is six to twelve capitals and digits with a digit among them, or a
// Cartão de Cidadão's 8 + 1 digits, two letters and a digit in its groups. A word, a year or a count
// after the name is no number ("Führerschein Klasse B", "dowód osobisty 2020", "carta d'identità
// scaduta").
const FOREIGN_DOCUMENT_LABEL =
  "(?:f(?:ü|ue)hrerschein|rijbewijs|(?:personal)?ausweis|dow[oó]d(?:[ ]osobisty)?|dowodu(?:[ ]osobistego)?|prawo[ ]jazdy|prawa[ ]jazdy|carta[ ]d(?:['’]|i[ ])identit[àa]|patente[ ]di[ ]guida|documento[ ]d[ei][ ]identi(?:dad|t[àa])|permiso[ ]de[ ]conducir|carn[eé][ ]de[ ]conducir|cart[ãa]o[ ]de[ ]cidad[ãa]o|carta[ ]de[ ]condu[çc][ãa]o|bilhete[ ]de[ ]identidade)";
const FOREIGN_DOCUMENT_BIT = registerCue(FOREIGN_DOCUMENT_LABEL);
const FOREIGN_NUMBER_WORD = '(?:[ -]?(?:nr\\.?|numer|nummer|n\\.?[º°]|n[uú]mero|no\\.?|number|#))?';
const FOREIGN_CONNECTOR = '[ \\t\\u00a0]{0,4}(?::[ \\t\\u00a0]{0,4}|(?:is|ist|lautet|to|es|è|é)[ \\t\\u00a0]{1,4})?';
const FOREIGN_VALUE = '(\\d{8}[ ]?\\d[ ]?[A-Z]{2}\\d|[A-Z0-9]{6,12})(?![\\p{L}\\p{N}])';
const FOREIGN_AFTER = `${FOREIGN_DOCUMENT_LABEL}(?![\\p{L}])${FOREIGN_NUMBER_WORD}${FOREIGN_CONNECTOR}${FOREIGN_VALUE}`;
const FOREIGN_G = new RegExp(`(?<![\\p{L}])${FOREIGN_AFTER}`, 'giu');
const FOREIGN_Y = new RegExp(FOREIGN_AFTER, 'iuy');

export function findForeignDocumentNumbers(text: string, scan?: TextScan): Detection[] {
  // Written in capitals, with a digit, and not a year or a count alone.
  return documentNumbersAfter(
    text,
    scan,
    { cue: FOREIGN_DOCUMENT_BIT, global: FOREIGN_G, sticky: FOREIGN_Y },
    (value) => value === value.toUpperCase() && /\d/.test(value) && !/^\d{1,6}$/.test(value),
  );
}

export const foreignDocumentNumberRecognizer: Recognizer = {
  type: 'ID_NUMBER',
  needsDigit: true,
  detect(text: string, _language: Language, scan?: TextScan): Detection[] {
    return findForeignDocumentNumbers(text, scan);
  },
};
