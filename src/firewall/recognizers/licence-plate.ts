// Vehicle licence plates after their label or under a plate column ("Kenteken: 12-ABC-3",
// "Kennzeichen: M-AB 1234", "immatriculation : AB-123-CD", "registration: AB12 CDE", "matrícula
// 1234 BCD", "targa AB 123 CD", "| Kenteken |"): the register ties a plate to its keeper. A plate's
// form is a short mix of capitals and digits, as product codes, flight numbers and postcodes are,
// so it is read only after such a label, never alone; and written in capitals, as plates are.
//
// Shapes, roughly: the Dutch side codes (three groups of letters or digits joined by hyphens, six
// characters, e.g. 12-ABC-3, AB-12-CD), German (district, letters, digits: M-AB 1234, B XY 123E),
// French SIV and Italian (AB-123-CD, AB 123 CD), British (AB12 CDE), Spanish (1234 BCD, and the
// provincial M-1234-AB), Polish (WA 12345, KR 1234A). The English "registration" and "reg" name a
// company's or an event's registration as well: after them only the British form counts.
//
// Cost: the labels are a cue of the pre-scan (../scan.ts), so the regex is tried, sticky, only at
// word starts that may begin one; the value is at most a dozen characters (bounded repetitions).
import { cellsUnderHeaders, type ColumnCell } from '../columns.js';
import { Matcher, cuePositions, registerCue, scanOf, type TextScan } from '../scan.js';
import type { Detection, Language, Recognizer } from '../types.js';

// Labels that name a plate and nothing else, in the four languages and Spanish, Italian, Polish.
const PLATE_LABEL = [
  'kenteken(?:nummer|plaat)?',
  'nummerplaat',
  '(?:kfz[ -]?|auto)?kennzeichen',
  'nummernschild',
  "(?:plaque[ ]d['’])?immatriculation",
  // "la voiture immatriculée GH-482-KL": French says of the car that it is registered so.
  'immatricul[ée]e?s?',
  'plaque',
  '(?:vehicle[ _-]?)?registration[ _-]?(?:plate|mark)',
  'vehicle[ _-]?registration(?:[ _-]?(?:number|no\\.?))?',
  'number[ _-]?plate',
  'licen[cs]e[ _-]?plate(?:[ _-]?(?:number|no\\.?))?',
  'plate[ _-]?(?:number|no\\.?)',
  'matr[ií]cula',
  'targa',
  'tablic[aey][ ]rejestracyjn[aey]',
  '(?:numer|nr\\.?)[ ]rej(?:estracyjny|\\.)?',
].join('|');
// Labels that name other registrations too: only a British plate after them.
const UK_ONLY_LABEL = "(?:car[ ]|vehicle[ ])?reg(?:istration)?(?:[ _-]?(?:number|no\\.?|nr))?";

const PLATE_BIT = registerCue(`(?:${PLATE_LABEL}|${UK_ONLY_LABEL})`);

// A key's quote, a sign or a verb (of the seven languages) between the label and the plate. Before
// the colon, whose plate it is may stand ("Kenteken van de tegenpartij: 52-XLP-7", "Kennzeichen des
// Unfallgegners: …", "het kenteken van de tegenpartij is …"): one preposition and up to three
// words, twice at most ("kenteken van de auto van mijn vrouw is 12-ABC-3"), then the colon or the
// verb. Bounded: at most eight words are read between the label and the plate.
const QUALIFIER =
  "(?:(?:[ \\t\\u00a0]{1,4}(?:van|of|de|du|des|der|vom|von|del|della)(?:[ \\t\\u00a0]{1,4}\\p{L}{1,24}){1,3}){1,2}(?=[ \\t\\u00a0]{0,4}(?::|(?:is|ist|est|lautet|luidt)[ \\t\\u00a0])))?";
const CONNECTOR =
  QUALIFIER + "[\"']?[ \\t\\u00a0]{0,4}(?:[:=#][ \\t\\u00a0]{0,4})?[\"']?(?:(?:is|ist|est|es|è|to|jest|lautet|lautete|luidt|luidde|was|war|était|era)[ \\t\\u00a0]{1,4})?";
// Letters, digits, single spaces and hyphens, at most twelve: trimmed to a plate in code.
const VALUE = '[\\p{L}\\d](?:[\\p{L}\\d]|[ -](?=[\\p{L}\\d])){1,11}(?![\\p{L}\\p{N}])';
const LABELLED = new RegExp(`(?<![\\p{L}])(?:(${PLATE_LABEL})|${UK_ONLY_LABEL})(?![\\p{L}])${CONNECTOR}(${VALUE})`, 'giu');
const LABELLED_STICKY = new RegExp(`(?:(${PLATE_LABEL})|${UK_ONLY_LABEL})(?![\\p{L}])${CONNECTOR}(${VALUE})`, 'iuy');

const UK = '[A-Z]{2}\\d{2}[ ]?[A-Z]{3}';
// Dutch side codes: three groups of one kind each, letters or digits, six characters in all.
const DUTCH_SIDE_CODE = /^(?:[A-Z]{1,3}|\d{1,3})-(?:[A-Z]{1,3}|\d{1,3})-(?:[A-Z]{1,3}|\d{1,3})$/;
const OTHER_PLATE = new RegExp(
  '^(?:' +
    [
      // German: district, one or two letters, one to four digits, E (electric) or H (historic).
      '[A-ZÄÖÜ]{1,3}[- ][A-Z]{1,2}[ -]?\\d{1,4}[EH]?',
      // French SIV, Italian.
      '[A-Z]{2}[- ]?\\d{3}[- ]?[A-Z]{2}',
      UK,
      // Spanish, current and provincial.
      '\\d{4}[ -]?[B-DF-HJ-NP-TV-Z]{3}',
      '[A-Z]{1,2}-\\d{4}-[A-Z]{1,2}',
      // Polish: district, then four or five letters and digits.
      '[A-Z]{2,3}[ ]?[0-9A-Z]{4,5}',
    ].join('|') +
    ')$',
);
const UK_PLATE = new RegExp(`^${UK}$`);

/** Whether `value` has a plate's form: one of the shapes, or the British one only. */
export function isPlate(value: string, britishOnly: boolean): boolean {
  if (!/\d/.test(value) || !/[A-ZÄÖÜ]/.test(value)) return false;
  if (britishOnly) return UK_PLATE.test(value);
  return (value.length === 8 && DUTCH_SIDE_CODE.test(value)) || OTHER_PLATE.test(value);
}

/** The longest start of `raw`, cut at a space or hyphen, that is a plate; null when none is. */
function plateIn(raw: string, britishOnly: boolean): string | null {
  for (let end = raw.length; end > 0; end--) {
    if (end < raw.length && raw[end] !== ' ' && raw[end] !== '-') continue;
    const candidate = raw.slice(0, end);
    if (isPlate(candidate, britishOnly)) return candidate;
  }
  return null;
}

// A plate column's headers, normalised (columns.ts); true: the British form only.
const PLATE_HEADERS = new Map<string, boolean>([
  ...[
    'kenteken', 'kentekennummer', 'kentekenplaat', 'nummerplaat', 'kennzeichen', 'kfzkennzeichen', 'autokennzeichen', 'nummernschild',
    'immatriculation', 'plaque', 'plaquedimmatriculation', 'numberplate', 'licenceplate', 'licenseplate', 'platenumber', 'plate',
    'vehicleregistration', 'vehicleregistrationnumber', 'registrationplate', 'registrationmark', 'vrm', 'matricula', 'targa',
    'tablicarejestracyjna', 'numerrejestracyjny', 'nrrejestracyjny', 'nrrej',
  ].map((h) => [h, false] as const),
  ...['registration', 'registrationnumber', 'regno', 'reg', 'carreg'].map((h) => [h, true] as const),
]);

const cellsOfScan = new WeakMap<TextScan, ColumnCell<boolean>[]>();

export function findLicencePlates(text: string, scan?: TextScan): Detection[] {
  const s = scanOf(text, scan);
  if (s.digitRuns.length === 0) return [];
  const [labels] = cuePositions(s, [PLATE_BIT]);
  if (labels!.length === 0) return [];
  const out: Detection[] = [];
  const matches = new Matcher(LABELLED, s, labels!, { sparse: Infinity, sticky: LABELLED_STICKY });
  for (let m = matches.exec(); m; m = matches.exec()) {
    const raw = m[2]!;
    const plate = plateIn(raw, m[1] === undefined);
    if (plate === null) continue;
    const start = m.index + m[0].length - raw.length;
    out.push(plateDetection(plate, start));
    matches.lastIndex = start + plate.length;
  }
  // Under a plate column: the header is the label.
  let cells = cellsOfScan.get(s);
  if (cells === undefined) {
    cells = cellsUnderHeaders(text, labels!, (header) => PLATE_HEADERS.get(header) ?? null);
    cellsOfScan.set(s, cells);
  }
  for (const cell of cells) {
    const value = text.slice(cell.start, cell.end);
    if (isPlate(value, cell.kind)) out.push(plateDetection(value, cell.start));
  }
  return out.sort((a, b) => a.start - b.start);
}

function plateDetection(plate: string, start: number): Detection {
  return { type: 'LICENCE_PLATE', start, end: start + plate.length, text: plate, checksum: false, normalized: plate.replace(/[ -]/g, '') };
}

export const licencePlateRecognizer: Recognizer = {
  type: 'LICENCE_PLATE',
  needsDigit: true,
  detect(text: string, _language: Language, scan?: TextScan): Detection[] {
    return findLicencePlates(text, scan);
  },
};
