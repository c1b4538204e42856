// Cells under a table's column whose header names what they hold, for recognizers whose values have
// no form of their own outside their label: a Spanish mobile under "Móvil", a plate under
// "Kenteken". structure.ts types a table's cells by its own list of keys, which holds neither; this
// reader finds only the columns its caller names, from header words the pre-scan already located.
//
// A header is a line of at most MAX_HEADER_LINE characters, cut by "|" (Markdown), a tab, ";" or ","
// (in that order of preference), into at least two cells of at most MAX_HEADER_CELL characters. Its
// rows are the lines below it with as many cells (a Markdown rule line is passed over); a line with
// another count ends the table. A CSV cell in double quotes may hold the separator.
//
// Cost: each line is split at most once, as a header or as a row (a header line inside rows already
// read is not read again), so the work is linear in the text.

const MAX_HEADER_LINE = 200;
const MAX_HEADER_CELL = 40;

export interface ColumnCell<K> {
  start: number;
  end: number;
  kind: K;
}

/**
 * The cells, in text order, under each column whose header `kindOf` knows (given the header cell
 * normalised: lower case, accents off, letters only). `headerWords`: ascending positions of words
 * that may begin such a header (the pre-scan's cue positions); only their lines are read as headers.
 */
export function cellsUnderHeaders<K>(text: string, headerWords: readonly number[], kindOf: (header: string) => K | null): ColumnCell<K>[] {
  const out: ColumnCell<K>[] = [];
  let readUpTo = -1;
  for (let w = 0; w < headerWords.length; w++) {
    const word = headerWords[w]!;
    if (word <= readUpTo) continue;
    const lineStart = text.lastIndexOf('\n', word - 1) + 1;
    const lineEnd = endOfLine(text, word);
    readUpTo = lineEnd;
    if (lineEnd - lineStart > MAX_HEADER_LINE) continue;
    const sep = separatorOf(text, lineStart, lineEnd);
    if (sep < 0) continue;
    // Most such words stand in prose: their cell, read around them, is no short header that names
    // a column, and the line is not split.
    const named: Array<{ at: number; kind: K }> = [];
    for (let v = w; v < headerWords.length && headerWords[v]! < lineEnd; v++) {
      let cellStart = headerWords[v]!;
      while (cellStart > lineStart && text.charCodeAt(cellStart - 1) !== sep) cellStart--;
      let cellEnd = headerWords[v]!;
      while (cellEnd < lineEnd && text.charCodeAt(cellEnd) !== sep) cellEnd++;
      if (cellEnd - cellStart > MAX_HEADER_CELL + 2) continue;
      const kind = kindOf(normalisedHeader(text.slice(cellStart, cellEnd)));
      if (kind !== null) named.push({ at: headerWords[v]!, kind });
    }
    if (named.length === 0) continue;
    const header = cellsOf(text, lineStart, lineEnd, sep);
    if (header.length < 4 || header.some((_, i) => i % 2 === 0 && header[i + 1]! - header[i]! > MAX_HEADER_CELL)) continue;
    const columns: Array<{ at: number; kind: K }> = [];
    for (const { at, kind } of named) {
      for (let c = 0; c < header.length; c += 2) if (header[c]! <= at && at < header[c + 1]!) columns.push({ at: c, kind });
    }
    let rowStart = lineEnd + 1;
    while (rowStart < text.length) {
      const rowEnd = endOfLine(text, rowStart);
      if (sep === PIPE && isRuleLine(text, rowStart, rowEnd)) {
        rowStart = rowEnd + 1;
        continue;
      }
      const row = cellsOf(text, rowStart, rowEnd, sep);
      if (row.length !== header.length) break;
      for (const { at, kind } of columns) if (row[at + 1]! > row[at]!) out.push({ start: row[at]!, end: row[at + 1]!, kind });
      readUpTo = rowEnd;
      rowStart = rowEnd + 1;
    }
  }
  return out;
}

/** The cell of `cells` (in text order) that holds [start, end), or undefined. */
export function cellHolding<K>(cells: readonly ColumnCell<K>[], start: number, end: number): ColumnCell<K> | undefined {
  let lo = 0;
  let hi = cells.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (cells[mid]!.start <= start) lo = mid + 1;
    else hi = mid;
  }
  const cell = cells[lo - 1];
  return cell !== undefined && end <= cell.end ? cell : undefined;
}

const PIPE = 124;
const SEPARATORS = [PIPE, 9, 59, 44];

function endOfLine(text: string, at: number): number {
  const nl = text.indexOf('\n', at);
  return nl < 0 ? text.length : nl;
}

function separatorOf(text: string, start: number, end: number): number {
  for (const sep of SEPARATORS) for (let i = start; i < end; i++) if (text.charCodeAt(i) === sep) return sep;
  return -1;
}

function isRuleLine(text: string, start: number, end: number): boolean {
  for (let i = start; i < end; i++) {
    const c = text.charCodeAt(i);
    if (c !== PIPE && c !== 45 && c !== 58 && c !== 32 && c !== 9 && c !== 13) return false;
  }
  return end > start;
}

/** The line's cells as [start, end) pairs without their blanks and quotes. */
function cellsOf(text: string, start: number, end: number, sep: number): number[] {
  const cells: number[] = [];
  let i = start;
  for (;;) {
    let cellStart = i;
    while (cellStart < end && isBlank(text.charCodeAt(cellStart))) cellStart++;
    let cellEnd: number;
    if (sep !== PIPE && text.charCodeAt(cellStart) === 34) {
      // A quoted CSV cell, "" inside it a quote: read to its closing quote.
      let j = cellStart + 1;
      while (j < end && !(text.charCodeAt(j) === 34 && text.charCodeAt(j + 1) !== 34)) j += text.charCodeAt(j) === 34 ? 2 : 1;
      cellEnd = Math.min(j, end);
      cellStart++;
      i = j + 1;
      while (i < end && text.charCodeAt(i) !== sep) i++;
    } else {
      i = cellStart;
      while (i < end && text.charCodeAt(i) !== sep) i++;
      cellEnd = i;
    }
    while (cellEnd > cellStart && isBlank(text.charCodeAt(cellEnd - 1))) cellEnd--;
    cells.push(cellStart, cellEnd);
    if (i >= end) return cells;
    i++;
  }
}

function isBlank(c: number): boolean {
  return c === 32 || c === 9 || c === 0xa0 || c === 13;
}

/** Lower case, accents off, letters only: "Número de teléfono" → "numerodetelefono", "**Móvil**" → "movil". */
export function normalisedHeader(cell: string): string {
  if (/^[\x00-\x7f]*$/.test(cell)) return cell.toLowerCase().replace(/[^a-z]/g, '');
  return cell
    .normalize('NFD')
    .replace(/\p{M}/gu, '')
    .toLowerCase()
    .replace(/ß/g, 'ss')
    .replace(/[^\p{L}]/gu, '');
}
