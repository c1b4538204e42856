import { countTokens as defaultCount } from '../gateway/tokens.js';

// Token-aware chunking for retrieval. A chunk is a slice of the original text (never rewritten),
// so a passage quoted back to a user reads exactly as it was ingested.
//
// - Units: the text is cut into sentences (after . ! ? … and at line ends), each remembering
//   whether a paragraph (a blank line) ends with it. A sentence longer than a chunk is cut at
//   word boundaries, and a "word" longer than a chunk (a URL, base64) at token boundaries.
// - Packing: units are added while the chunk stays within `maxTokens`. When the next unit does
//   not fit, the chunk ends at its last paragraph end if that leaves it at least half full,
//   otherwise at the last sentence end.
// - Overlap: the next chunk starts with the previous chunk's last sentences, up to
//   `overlapTokens` (or, when its last sentence alone is longer, that sentence's last words), so
//   a passage cut in two is still found whole in one of the chunks.
// - The limit is checked on each chunk's own text, since BPE counts of adjacent slices do not
//   always add up exactly: no chunk is ever over `maxTokens`.

export interface ChunkOptions {
  /** Upper bound of every chunk, overlap included. */
  maxTokens: number;
  /** Tokens repeated from the end of the previous chunk (whole sentences where they fit). */
  overlapTokens: number;
  /** The tokenizer; the gateway's o200k counter unless a test gives another. */
  countTokens?: (text: string) => number;
  /**
   * Wall-clock milliseconds the chunking may take; past them it throws ChunkLimitExceeded. The
   * work is synchronous, so a text that takes long holds its whole process (every other job of
   * a worker) until it ends: a bound, not a timeout after the fact.
   */
  timeBudgetMs?: number;
  /** The most chunks the text may make; one more throws ChunkLimitExceeded. */
  maxChunks?: number;
}

/** The text would take longer, or make more chunks, than the options allow. */
export class ChunkLimitExceeded extends Error {
  override name = 'ChunkLimitExceeded';
  constructor(
    readonly limit: 'time' | 'chunks',
    message: string,
  ) {
    super(message);
  }
}

export interface Chunk {
  text: string;
  tokens: number;
  /** Offsets of the chunk in the original text: text.slice(start, end) (before trimming). */
  start: number;
  end: number;
}

export const DEFAULT_CHUNK_TOKENS = 512;
export const DEFAULT_OVERLAP_TOKENS = 64;

interface Unit {
  start: number;
  end: number;
  tokens: number;
  /** A paragraph (blank line) or the text ends after this unit. */
  paragraphEnd: boolean;
}

// These patterns run over whatever a caller uploads, so each must stay linear in it. A pattern
// that consumes a run (of punctuation, of whitespace) and then fails on what follows is retried
// by the engine from every later position inside that run, each retry scanning the rest of it:
// quadratic: 50 s for 100,000 characters of "." (a run that never ends in whitespace). So:
//  - a lookbehind lets a match start only where its run starts, and every other position in the
//    run fails on one character;
//  - `(?=(x*))\1` is an atomic group (which JS lacks): the lookahead takes the whole run and
//    the backreference cannot give any of it back, so a failure costs one scan, not one per
//    length. It changes no match: what follows each run can never be part of it.

// A blank line, possibly with spaces, ends a paragraph.
const PARAGRAPH_BREAK = /\n(?=([ \t\r\f\v]*))\1\n\s*/g;
// Sentence ends: terminal punctuation (with closing quotes/brackets) then whitespace, or a line end.
const SENTENCE_END = /(?<![.!?…])(?=([.!?…]+))\1(?=(["'”’»)\]]*))\2\s+|\n\s*/g;
// A word with the whitespace before it: BPE merges a leading space into the word (" word" is one
// token), so counting words this way adds up to about the count of the joined text. A match only
// ever starts after a word (or at the start), hence the lookbehind: trailing whitespace is then
// scanned once instead of once per position.
const WORD = /(?<!\s)(?=(\s*))\1\S+/g;

export function chunkText(text: string, options: ChunkOptions): Chunk[] {
  const count = options.countTokens ?? defaultCount;
  const maxTokens = Math.max(1, Math.floor(options.maxTokens));
  const overlapTokens = Math.max(0, Math.min(Math.floor(options.overlapTokens), Math.floor(maxTokens / 2)));
  const withinBudget = budgetCheck(options.timeBudgetMs);
  // A sentence longer than a chunk is cut into pieces that leave room for the overlap before them.
  const units = toUnits(text, maxTokens, Math.max(1, maxTokens - overlapTokens), count, withinBudget);
  const chunks: Chunk[] = [];
  let next = 0;
  // Where the next chunk starts when it repeats the end of the previous one.
  let overlapStart: number | undefined;
  while (next < units.length) {
    withinBudget();
    const first = units[next]!;
    const start = overlapStart ?? first.start;
    let tokens = overlapStart === undefined ? 0 : count(text.slice(overlapStart, first.start));
    let end = next;
    let paragraphCut = -1;
    while (end < units.length && tokens + units[end]!.tokens <= maxTokens) {
      tokens += units[end]!.tokens;
      if (units[end]!.paragraphEnd && tokens >= maxTokens / 2) paragraphCut = end;
      end += 1;
    }
    if (end === next) {
      // The overlap leaves no room for the next unit (each unit alone fits): drop the overlap.
      if (overlapStart !== undefined) {
        overlapStart = undefined;
        continue;
      }
      // Only a limit below a single character's tokens gets here; take the unit to make progress.
      end = next + 1;
    }
    if (end < units.length && paragraphCut >= next) end = paragraphCut + 1;
    // Check the real count of the slice; give back units (or the overlap) until it fits.
    let chunk = makeChunk(text, start, units[end - 1]!.end, count);
    while (chunk.tokens > maxTokens && end - 1 > next) {
      end -= 1;
      chunk = makeChunk(text, start, units[end - 1]!.end, count);
    }
    if (chunk.tokens > maxTokens) {
      if (overlapStart !== undefined) {
        overlapStart = undefined;
        continue;
      }
      // A single unit measured alone fits, so only its own surrounding whitespace can differ;
      // trimmed it is what the unit's count measured.
      chunk = makeChunk(text, first.start, first.end, count);
    }
    if (chunk.text.length > 0) {
      if (options.maxChunks !== undefined && chunks.length >= options.maxChunks) {
        throw new ChunkLimitExceeded('chunks', `the text makes more than ${options.maxChunks} chunks`);
      }
      chunks.push(chunk);
    }
    overlapStart = end < units.length ? overlapFrom(text, units, next, end, start, overlapTokens, count) : undefined;
    next = end;
  }
  return chunks;
}

/** A check to call between steps: throws once the time budget is spent (never without one). */
function budgetCheck(budgetMs: number | undefined): () => void {
  if (budgetMs === undefined) return () => {};
  const deadline = performance.now() + budgetMs;
  return () => {
    if (performance.now() > deadline) {
      throw new ChunkLimitExceeded('time', `the text took more than ${budgetMs} ms to cut into chunks`);
    }
  };
}

function makeChunk(text: string, start: number, end: number, count: (text: string) => number): Chunk {
  const body = text.slice(start, end).trim();
  return { text: body, tokens: count(body), start, end };
}

/**
 * The start of the overlap for the chunk after units[first..end): the last whole units that fit
 * in `budget` tokens, or the last words of the last unit. Always after `chunkStart`, so the next
 * chunk does not repeat the whole of this one.
 */
function overlapFrom(
  text: string,
  units: Unit[],
  first: number,
  end: number,
  chunkStart: number,
  budget: number,
  count: (text: string) => number,
): number | undefined {
  if (budget === 0) return undefined;
  let used = 0;
  let start: number | undefined;
  for (let i = end - 1; i >= first; i -= 1) {
    const unit = units[i]!;
    if (used + unit.tokens > budget) break;
    used += unit.tokens;
    start = unit.start;
  }
  if (start === undefined) {
    // The last sentence alone is longer than the overlap: repeat its last words.
    const last = units[end - 1]!;
    const words = [...text.slice(last.start, last.end).matchAll(WORD)];
    for (let i = words.length - 1; i >= 1; i -= 1) {
      const tokens = count(words[i]![0]);
      if (used + tokens > budget) break;
      used += tokens;
      start = last.start + words[i]!.index!;
    }
  }
  return start !== undefined && start > chunkStart ? start : undefined;
}

/** The text as sentence units of at most `maxTokens` tokens each, whitespace-only text dropped. */
function toUnits(
  text: string,
  maxTokens: number,
  pieceTokens: number,
  count: (text: string) => number,
  withinBudget: () => void,
): Unit[] {
  const units: Unit[] = [];
  for (const [pStart, pEnd] of spans(text, PARAGRAPH_BREAK, 0, text.length)) {
    const sentences = spans(text, SENTENCE_END, pStart, pEnd);
    sentences.forEach(([sStart, sEnd], index) => {
      withinBudget();
      const isLast = index === sentences.length - 1;
      const slice = text.slice(sStart, sEnd);
      if (slice.trim() === '') return;
      const tokens = count(slice);
      if (tokens <= maxTokens) {
        units.push({ start: sStart, end: sEnd, tokens, paragraphEnd: isLast });
        return;
      }
      const pieces = splitLong(text, sStart, sEnd, pieceTokens, count, withinBudget);
      pieces.forEach((piece, i) => units.push({ ...piece, paragraphEnd: isLast && i === pieces.length - 1 }));
    });
  }
  if (units.length > 0) units[units.length - 1]!.paragraphEnd = true;
  return units;
}

/** Consecutive [start, end) spans of text[from, to) that each end after a match of `separator`. */
function spans(text: string, separator: RegExp, from: number, to: number): [number, number][] {
  const out: [number, number][] = [];
  const part = text.slice(from, to);
  separator.lastIndex = 0;
  let start = 0;
  for (let match = separator.exec(part); match; match = separator.exec(part)) {
    const end = match.index + match[0].length;
    if (match[0].length === 0) {
      separator.lastIndex += 1;
      continue;
    }
    if (end > start) out.push([from + start, from + end]);
    start = end;
  }
  if (start < part.length) out.push([from + start, to]);
  return out;
}

/** A sentence longer than a chunk, in pieces cut at word boundaries (tokens, for a giant word). */
function splitLong(
  text: string,
  start: number,
  end: number,
  maxTokens: number,
  count: (text: string) => number,
  withinBudget: () => void,
): Omit<Unit, 'paragraphEnd'>[] {
  const pieces: Omit<Unit, 'paragraphEnd'>[] = [];
  let pieceStart = start;
  let pieceTokens = 0;
  const flush = (pieceEnd: number) => {
    if (pieceEnd > pieceStart) pieces.push({ start: pieceStart, end: pieceEnd, tokens: count(text.slice(pieceStart, pieceEnd)) });
    pieceStart = pieceEnd;
    pieceTokens = 0;
  };
  for (const match of text.slice(start, end).matchAll(WORD)) {
    withinBudget();
    const wordStart = start + match.index!;
    const wordEnd = wordStart + match[0].length;
    const tokens = count(match[0]);
    if (tokens > maxTokens) {
      flush(wordStart);
      for (const [s, e] of splitByTokens(text, wordStart, wordEnd, maxTokens, count, withinBudget)) {
        pieces.push({ start: s, end: e, tokens: count(text.slice(s, e)) });
      }
      pieceStart = wordEnd;
      continue;
    }
    if (pieceTokens + tokens > maxTokens) flush(wordStart);
    pieceTokens += tokens;
  }
  flush(end);
  // Summed word counts can undershoot the count of the joined words; halve any piece that did.
  return pieces.flatMap((piece) => (piece.tokens <= maxTokens ? [piece] : halve(text, piece, maxTokens, count, withinBudget)));
}

function halve(
  text: string,
  piece: Omit<Unit, 'paragraphEnd'>,
  maxTokens: number,
  count: (text: string) => number,
  withinBudget: () => void,
): Omit<Unit, 'paragraphEnd'>[] {
  withinBudget();
  const words = [...text.slice(piece.start, piece.end).matchAll(WORD)];
  if (words.length < 2) return splitByTokens(text, piece.start, piece.end, maxTokens, count, withinBudget).map(([s, e]) => ({ start: s, end: e, tokens: count(text.slice(s, e)) }));
  const middle = piece.start + words[Math.floor(words.length / 2)]!.index!;
  return [piece.start, middle].flatMap((s, i) => {
    const e = i === 0 ? middle : piece.end;
    const half = { start: s, end: e, tokens: count(text.slice(s, e)) };
    return half.tokens <= maxTokens ? [half] : halve(text, half, maxTokens, count, withinBudget);
  });
}

/** Cuts text[start, end) (one word without spaces) into slices of at most maxTokens tokens. */
function splitByTokens(
  text: string,
  start: number,
  end: number,
  maxTokens: number,
  count: (text: string) => number,
  withinBudget: () => void,
): [number, number][] {
  const out: [number, number][] = [];
  let from = start;
  while (from < end) {
    withinBudget();
    // The longest slice that fits; never split a surrogate pair. A slice of about maxTokens
    // characters (or a few times that) usually fits; the search first doubles a slice that fits
    // until one does not, so each probe counts about the slice it cuts, not the whole rest of a
    // 100,000-character word (which made cutting one word quadratic).
    let lo = from + 1;
    let hi = end;
    for (let step = maxTokens; from + step < end; step *= 2) {
      if (count(text.slice(from, from + step)) > maxTokens) {
        hi = from + step - 1;
        break;
      }
      lo = Math.max(lo, from + step);
    }
    while (lo < hi) {
      const mid = Math.ceil((lo + hi) / 2);
      if (count(text.slice(from, mid)) <= maxTokens) lo = mid;
      else hi = mid - 1;
    }
    let to = lo;
    if (to < end && isHighSurrogate(text.charCodeAt(to - 1)) && to - 1 > from) to -= 1;
    out.push([from, to]);
    from = to;
  }
  return out;
}

function isHighSurrogate(code: number): boolean {
  return code >= 0xd800 && code <= 0xdbff;
}
