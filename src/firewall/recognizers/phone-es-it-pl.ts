// Spanish, Italian and Polish phone numbers in national form ("Mi número es 612 345 678", "Il mio
// numero è 333 482 1956", "Mój numer to 605 123 456", "al fijo 91 555 12 34"). The firewall's
// languages are nl/en/fr/de, whose number plans (phone.ts) read none of these: nine digits from 6
// are no Dutch, British, French or German number, and an Italian mobile written with dots reads as
// a version. These numbers have no trunk prefix or other mark of a phone number, and nine digits
// are as often an order number; so one is read under Spain's, Italy's or Poland's plan only where a
// phone word of those languages or of English stands near it (the window and the nearest-cue rule
// of phone.ts, with the order, invoice and amount words of the three languages as negative cues),
// or in a table's column headed as a phone number ("Móvil", "cellulare", "komórka"). The words'
// language tries its country's plan first: "605 123 456" is a Spanish mobile and a Polish one.
//
// Shapes, on the digits of a run of digits and single spaces, dots or hyphens: Spain nine digits
// from 6–9; Italy a mobile of nine or ten digits from 3, a landline of six to eleven digits from 0
// (after an Italian word only: a number with a trunk 0 is read by phone.ts's own regions first);
// Poland nine digits from 1–9. libphonenumber must accept the number under the plan.
//
// Cost: the words that can begin a cue are registered with the pre-scan, so a run with none of them
// within its window is decided in constant time; the cue regexes run only where one is.
import type { CountryCode } from 'libphonenumber-js/max';
import { digitsOnly } from '../checksums.js';
import { cellHolding, cellsUnderHeaders, type ColumnCell } from '../columns.js';
import { NON_PERSONAL_NUMBER_CUE, windowAfter, windowBefore, type CueWindows } from '../context.js';
import { cuePositions, registerCue, type TextScan } from '../scan.js';

const ES_CUE = [
  'teléfono',
  'm[oó]vil(?:es)?\\b',
  '\\bfijo\\b',
  '\\bcelular',
  '\\bll[aá]m(?:a|ame|adme|enme|eme|ar|arme|anos|enos)\\b',
  '\\b(?:tfno|tlfno?|telf)\\b',
  '\\b(?:mi|tu|su|nuestro|vuestro)\\s+n[uú]mero\\b',
].join('|');
const IT_CUE = [
  'telefono',
  'cellulare',
  '\\bcell\\.',
  '\\bfisso\\b',
  '\\bchiam(?:ami|atemi|aci|are|a)\\b',
  '\\b(?:mio|tuo|suo|nostro|vostro|loro)\\s+numero\\b',
  '\\brecapito',
].join('|');
const PL_CUE = [
  // "telefon", "telefonu", "telefonem", "telefoniczny"; not the Portuguese "telefone(s)".
  '\\btelefon(?![oó]|es?\\b)',
  'kom[oó]rk',
  '\\b(?:za)?dzwo[nń]',
  '\\b(?:m[oó]j|tw[oó]j|jego|jej|nasz|wasz|ich)\\s+numer\\b',
  '\\bnr\\.?\\s*tel',
  '\\btel\\.?\\s*kom',
].join('|');
// Portuguese and Brazilian ("meu número é 912 345 678", "Tlm: 912 345 678", "meu zap é (11)
// 91234-5678"): Portugal's nine digits from 2 or 9, Brazil's area code and eight or nine digits.
const PT_CUE = [
  'telefone',
  'telem[oó]vel',
  '\\b(?:tlm|tlf|tel\\.?\\s*m[oó]vel)\\b',
  '\\bzap\\b',
  '\\bwhats\\b',
  '\\b(?:liga|ligue|telefona)-me\\b',
  '\\bme\\s+liga\\b',
  '\\b(?:meu|teu|seu|nosso|vosso)\\s+n[uú]mero\\b',
  '\\b(?:minha|tua|sua)\\s+linha\\b',
].join('|');

// One regex for the three, a group each, read over the short windows around a number: "telefono"
// is Italian here, and Spanish written without its accent; the shapes tell the two apart.
const REGION_CUE = new RegExp(`(${ES_CUE})|(${IT_CUE})|(${PL_CUE})|(${PT_CUE})`, 'gi');
/** The Italian phone words alone ("cellulare", "cell.", "chiamami"): nhs-number.ts defers to them. */
export const IT_PHONE_CUE = new RegExp(IT_CUE, 'i');
const GROUP_REGION: readonly CountryCode[] = ['ES', 'IT', 'PL', 'PT'];

// Words before a number that make it another thing's in the three languages: orders, invoices,
// amounts, shipments, serial, account, customer and case numbers, company tax ids. A customer's
// number only as that noun phrase: "Móvil del cliente: 612 345 678" is the customer's mobile.
const ES_IT_PL_NEGATIVE = [
  'n[uú]mero\\s+(?:de\\s+|del\\s+|di\\s+)?client[ei]', 'codice\\s+cliente', 'numer\\s+klienta',
  'pedido', 'factura', 'albar[aá]n', 'importe', 'precio', 'referencia', 'env[ií]o', 'seguimiento', 'expediente',
  'c[oó]digo', '\\bserie', '\\blote\\b', '\\bcuenta', '\\b(?:nif|cif)\\b',
  'ordine', 'fattura', 'importo', 'prezzo', 'riferimento', 'spedizione', 'codice', 'seriale', '\\blotto\\b', 'pratica', '\\bconto\\b',
  '\\biva\\b', 'matricola',
  'zam[oó]wieni', 'faktur', '\\bkwot', '\\bcen[aey]\\b', 'przesy[lł]k', 'paczk', 'seryjn', '\\bkont[oa]\\b', 'rachun',
  '\\b(?:nip|regon|krs)\\b', 'sprawy',
  'encomenda', 'fatura', '\\bnota\\s+fiscal', '\\bvalor\\b', 'pre[cç]o', 'refer[eê]ncia', '\\bconta\\b', '\\bprotocolo', '\\brastreio',
].join('|');

const NEGATIVE_CUE = new RegExp(`${NON_PERSONAL_NUMBER_CUE.source}|${ES_IT_PL_NEGATIVE}`, 'i');
const NEGATIVE_BEFORE = new RegExp(NEGATIVE_CUE.source, 'gi');

// Someone's number told by name, the number right after the verb: "el número de Lucía es 655 123
// 456", "il numero di Marco è 347 123 4567", "numer Ani to 501 234 567". The owner must be one or
// two capitalised words (case-sensitive, so "el número de socio es …" is no cue) and the verb the
// last word before the number; the verb names the country. An order's or invoice's number read the
// same way ("numer Zamówienia to …") is left to the negative cues. Anchored at the window's end and
// without nested quantifiers: a few steps per 'n' of the 40-character window.
const OWNER_NUMBER_BEFORE =
  /\b(?:[Nn][uú]mero\s+d[ei]|[Nn]umer)\s+\p{Lu}\p{Ll}+(?:[ -]\p{Lu}\p{Ll}+)?\s+(?:(es)|(è|e')|(to))\s*:?\s*$/u;

// Where a cue of the three languages may begin, and so a header of a phone column (the pre-scan's
// cue positions): a cue matches within the window, so one of these word starts lies there too.
// "numer"/"número" too, which can begin OWNER_NUMBER_BEFORE.
const CUE_WORD_BIT = registerCue(`(?:${ES_CUE}|${IT_CUE}|${PL_CUE}|${PT_CUE}|n[uú]mer)`);

// A table's header that names a phone column, normalised (columns.ts), with the country it names.
const PHONE_HEADERS = new Map<string, CountryCode>([
  ...['numerodetelefono', 'telefonomovil', 'telefonofijo', 'movil', 'fijo', 'celular', 'tfno', 'tlf', 'telf'].map((h) => [h, 'ES'] as const),
  // "Teléfono" too, accents off: nine digits from 6 are read as Spain's first all the same.
  ...['telefono', 'cellulare', 'fisso', 'numeroditelefono', 'numerotelefono', 'telefonocellulare', 'recapito', 'recapitotelefonico', 'cell'].map((h) => [h, 'IT'] as const),
  ...['telefon', 'komorka', 'telkom', 'nrtel', 'numertelefonu', 'nrtelefonu', 'telefonkomorkowy'].map((h) => [h, 'PL'] as const),
  ...['telefone', 'telemovel', 'tlm', 'numerodetelefone'].map((h) => [h, 'PT'] as const),
]);

export interface EsItPlReading {
  /** The plans to read the run under, in order. */
  regions: CountryCode[];
  /** A word of the three languages (or a column) named them: read before the language's own plan. */
  named: boolean;
}

interface ScanCues {
  words: number[];
  /** Index of the first word not yet behind the runs asked about (runs are asked in text order). */
  next: number;
  cells: ColumnCell<CountryCode>[] | null;
}
const cuesOfScan = new WeakMap<TextScan, ScanCues>();

function cuesOf(s: TextScan): ScanCues {
  let c = cuesOfScan.get(s);
  if (c === undefined) {
    c = { words: cuePositions(s, [CUE_WORD_BIT])[0]!, next: 0, cells: null };
    cuesOfScan.set(s, c);
  }
  return c;
}

/**
 * The plans whose national shape the digits have, in the order Spain, Italy, Poland, Portugal,
 * Brazil. `bracketedArea`: the run opens with an area code in brackets ("(11) 91234-5678"), as
 * Brazil writes it.
 */
function shapeRegions(digits: string, italianLandline: boolean, bracketedArea = false): CountryCode[] {
  const n = digits.length;
  const first = digits.charCodeAt(0) - 48;
  const out: CountryCode[] = [];
  if (bracketedArea) {
    if ((n === 10 || n === 11) && first >= 1) out.push('BR');
    return out;
  }
  if (n === 9 && first >= 6) out.push('ES');
  if ((first === 3 && (n === 9 || n === 10)) || (italianLandline && first === 0 && n >= 6 && n <= 11)) out.push('IT');
  if (n === 9 && first >= 1) out.push('PL');
  if (n === 9 && (first === 2 || first === 9)) out.push('PT');
  // Brazil's area code (11–99) and a mobile's nine digits from 9: "11 91234-5678".
  if (n === 11 && first >= 1 && digits.charCodeAt(2) === 57) out.push('BR');
  return out;
}

const GROUPED = /^(?:\(\d{2}\) ?)?\d+(?:[ .\u00a0-]\d+)*$/;

/**
 * How to read the run at `start` as a Spanish, Italian or Polish number, or null when it has none
 * of their shapes or nothing names it a phone number. `phoneCued`: whether one of phone.ts's own
 * phone cues is nearer than a negative one ("tel", "phone"), which names no country. Runs must be
 * asked about in text order.
 */
export function esItPlReading(s: TextScan, run: string, start: number, phoneCued: () => boolean, windows: CueWindows): EsItPlReading | null {
  if (!GROUPED.test(run)) return null;
  const digits = digitsOnly(run);
  const bracketed = run.charCodeAt(0) === 40;
  if (shapeRegions(digits, true, bracketed).length === 0) return null;
  const end = start + run.length;
  const sc = cuesOf(s);
  const { words } = sc;
  while (sc.next < words.length && words[sc.next]! < start - windows.before) sc.next++;
  if (sc.next < words.length && words[sc.next]! <= end + windows.after) {
    const named = namedRegions(s.text, start, end, windows);
    if (named === 'negative') return null;
    if (named !== null) return ordered(shapeRegions(digits, named.includes('IT'), bracketed), named);
  }
  if (digits.charCodeAt(0) !== 48 && phoneCued()) {
    // "tel", "phone": no country named, so after the language's own plans (phone.ts).
    const regions = shapeRegions(digits, false, bracketed);
    return regions.length > 0 ? { regions, named: false } : null;
  }
  if (words.length === 0) return null;
  // Under a phone column: the header says what the cell holds.
  sc.cells ??= cellsUnderHeaders(s.text, words, (header) => PHONE_HEADERS.get(header) ?? null);
  const cell = cellHolding(sc.cells, start, end);
  return cell === undefined ? null : ordered(shapeRegions(digits, cell.kind === 'IT', bracketed), cell.kind === 'PT' ? ['PT', 'BR'] : [cell.kind]);
}

/**
 * The countries whose phone words stand in the windows around [start, end) (same line), or null
 * when none does; 'negative' when an order, invoice or amount word of its sentence stands nearer to
 * the number than the nearest of them ("Mi número de pedido es 612345678"): before it, or after it
 * too when no phone word comes before. Negatives are looked for only that near, and the windows
 * are short strings read with plain regexes: a number in a run of such words costs a few regex
 * steps, not a walk of every cue (phone.ts's nearestCue) over both windows.
 */
function namedRegions(text: string, start: number, end: number, windows: CueWindows): CountryCode[] | 'negative' | null {
  const before = windowBefore(text, start, windows.before);
  const after = windowAfter(text, end, windows.after);
  const named = new Set<CountryCode>();
  let nearestBefore = Infinity;
  let nearestBeforeStart = 0;
  let nearestAfter = Infinity;
  REGION_CUE.lastIndex = 0;
  for (let m = REGION_CUE.exec(before); m !== null; m = REGION_CUE.exec(before)) {
    addRegion(named, regionOf(m));
    nearestBefore = before.length - REGION_CUE.lastIndex;
    nearestBeforeStart = m.index;
  }
  const owner = OWNER_NUMBER_BEFORE.exec(before);
  if (owner !== null && !NEGATIVE_CUE.test(owner[0])) {
    // The number follows the verb: nothing can stand nearer to it, and the owner's words were
    // just checked for an order's or invoice's.
    named.add(owner[1] !== undefined ? 'ES' : owner[2] !== undefined ? 'IT' : 'PL');
    return [...named];
  }
  REGION_CUE.lastIndex = 0;
  const first = REGION_CUE.exec(after);
  if (first !== null) {
    addRegion(named, regionOf(first));
    nearestAfter = first.index;
  }
  if (named.size === 0) return null;
  const reach = Math.min(nearestBefore, nearestAfter);
  // From the phone word on (a negative may hold it: "número de cliente"), or the last `reach` characters.
  const from = Math.max(sentenceStart(before), nearestBefore === reach ? nearestBeforeStart : before.length - reach);
  NEGATIVE_BEFORE.lastIndex = from;
  let negative = Infinity;
  for (let m = NEGATIVE_BEFORE.exec(before); m !== null; m = NEGATIVE_BEFORE.exec(before)) negative = before.length - NEGATIVE_BEFORE.lastIndex;
  if (negative < reach) return 'negative';
  if (nearestBefore === Infinity) {
    const m = NEGATIVE_CUE.exec(after.slice(0, sentenceEnd(after)));
    if (m !== null && m.index < reach) return 'negative';
  }
  return [...named];
}

function regionOf(m: RegExpExecArray): CountryCode {
  return GROUP_REGION[m[1] !== undefined ? 0 : m[2] !== undefined ? 1 : m[3] !== undefined ? 2 : 3]!;
}

/** A Portuguese word names Brazil's plan too: the digits' shape tells the two apart. */
function addRegion(named: Set<CountryCode>, region: CountryCode): void {
  named.add(region);
  if (region === 'PT') named.add('BR');
}

// A full stop (or ! or ?), then blanks and a capital: a sentence ends there ("tel. 06…" does not).
const SENTENCE_END = /[.!?]["'’)\]]?[ \t]+(?=\p{Lu})/gu;

function sentenceStart(before: string): number {
  let from = 0;
  SENTENCE_END.lastIndex = 0;
  for (let m = SENTENCE_END.exec(before); m !== null; m = SENTENCE_END.exec(before)) from = m.index + m[0].length;
  return from;
}

function sentenceEnd(after: string): number {
  SENTENCE_END.lastIndex = 0;
  const m = SENTENCE_END.exec(after);
  return m === null ? after.length : m.index;
}
/** The shapes' plans, those named first; null when none is left. */
function ordered(regions: CountryCode[], named: CountryCode[]): EsItPlReading | null {
  if (regions.length === 0) return null;
  return { regions: [...regions.filter((r) => named.includes(r)), ...regions.filter((r) => !named.includes(r))], named: true };
}
