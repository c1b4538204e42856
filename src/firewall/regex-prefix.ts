// Which two-character prefixes can start a match of a regex: used by the pre-scan (scan.ts) to
// try the person recognizer's cue regexes only at word starts that could begin a cue, instead of
// letting each regex walk the whole text. The set is computed from the regex source, so it cannot
// drift from the regex; a construct the small parser does not know makes it throw at module load.
//
// Characters are compared "folded": ASCII letters in lower case, every other ASCII character as
// itself, and every non-ASCII character in one shared bucket (127) — except the two non-ASCII
// characters that case-insensitive Unicode matching folds to ASCII letters (KELVIN SIGN → k,
// LATIN SMALL LETTER LONG S → s). Folding only merges classes, so the prefix set is a superset of
// what the regex can match (case-sensitive or not): a filter never loses a match.

export const FOLD_BUCKET = 127;

/** The folded code of a UTF-16 code unit (see the module comment). */
export function foldCode(c: number): number {
  if (c < 128) return c >= 65 && c <= 90 ? c + 32 : c;
  if (c === 0x212a) return 107; // K (KELVIN SIGN) ~ k under /iu
  if (c === 0x17f) return 115; // ſ ~ s under /iu
  return FOLD_BUCKET;
}

/** A set of raw code points, or every character. */
type CharSet = { any: true } | { any: false; codes: Set<number> };

type Node =
  | { kind: 'chars'; set: CharSet }
  | { kind: 'empty' }
  | { kind: 'alt'; options: Node[][] }
  | { kind: 'repeat'; node: Node; min: number; max: number };

const WHITESPACE = [
  9, 10, 11, 12, 13, 32, 0xa0, 0x1680, 0x2000, 0x2001, 0x2002, 0x2003, 0x2004, 0x2005, 0x2006, 0x2007, 0x2008, 0x2009, 0x200a,
  0x2028, 0x2029, 0x202f, 0x205f, 0x3000, 0xfeff,
];
const DIGITS = [48, 49, 50, 51, 52, 53, 54, 55, 56, 57];
const ANY: CharSet = { any: true };
const BACKREF: Node = { kind: 'repeat', node: { kind: 'chars', set: ANY }, min: 0, max: Infinity };

function codes(list: number[]): CharSet {
  return { any: false, codes: new Set(list) };
}

class Parser {
  i = 0;
  constructor(readonly src: string) {}

  fail(msg: string): never {
    throw new Error(`regex-prefix: ${msg} at ${this.i} in /${this.src}/`);
  }

  parseAlt(): Node {
    const options: Node[][] = [this.parseSeq()];
    while (this.src[this.i] === '|') {
      this.i++;
      options.push(this.parseSeq());
    }
    return { kind: 'alt', options };
  }

  parseSeq(): Node[] {
    const seq: Node[] = [];
    while (this.i < this.src.length && this.src[this.i] !== '|' && this.src[this.i] !== ')') {
      const atom = this.parseAtom();
      seq.push(this.parseQuantifier(atom));
    }
    return seq;
  }

  parseQuantifier(atom: Node): Node {
    const c = this.src[this.i];
    let min: number;
    let max: number;
    if (c === '?') [min, max] = [0, 1];
    else if (c === '*') [min, max] = [0, Infinity];
    else if (c === '+') [min, max] = [1, Infinity];
    else if (c === '{') {
      const m = /^\{(\d+)(?:(,)(\d*))?\}/.exec(this.src.slice(this.i));
      if (!m) return atom; // a literal '{'
      min = Number(m[1]);
      max = m[2] === undefined ? min : m[3] === '' ? Infinity : Number(m[3]);
      this.i += m[0].length - 1;
    } else return atom;
    this.i++;
    if (this.src[this.i] === '?') this.i++; // lazy: same language
    if (atom.kind === 'empty') return atom;
    return { kind: 'repeat', node: atom, min, max };
  }

  parseAtom(): Node {
    const c = this.src[this.i]!;
    if (c === '(') {
      this.i++;
      let lookaround = false;
      if (this.src[this.i] === '?') {
        const rest = this.src.slice(this.i, this.i + 3);
        if (rest.startsWith('?:')) this.i += 2;
        else if (rest.startsWith('?=') || rest.startsWith('?!')) {
          this.i += 2;
          lookaround = true;
        } else if (rest.startsWith('?<=') || rest.startsWith('?<!')) {
          this.i += 3;
          lookaround = true;
        } else if (rest.startsWith('?<')) {
          const close = this.src.indexOf('>', this.i);
          if (close < 0) this.fail('bad group name');
          this.i = close + 1;
        } else this.fail('unknown group');
      }
      const inner = this.parseAlt();
      if (this.src[this.i] !== ')') this.fail('unclosed group');
      this.i++;
      // Lookarounds consume nothing; treating them as empty only widens the prefix set.
      return lookaround ? { kind: 'empty' } : inner;
    }
    if (c === '[') return { kind: 'chars', set: this.parseClass() };
    if (c === '.') {
      this.i++;
      return { kind: 'chars', set: ANY };
    }
    if (c === '^' || c === '$') {
      this.i++;
      return { kind: 'empty' };
    }
    if (c === '\\') return this.parseEscape(false);
    this.i++;
    const cp = c.codePointAt(0)!;
    if (cp > 0xffff) this.i++;
    return { kind: 'chars', set: codes([cp]) };
  }

  /** An escape at `this.i` (the backslash); in a class, `\b` is a backspace and no word boundary. */
  parseEscape(inClass: boolean): Node {
    const e = this.src[this.i + 1];
    if (e === undefined) this.fail('trailing backslash');
    this.i += 2;
    switch (e) {
      case 's':
        return { kind: 'chars', set: codes(WHITESPACE) };
      case 'd':
        return { kind: 'chars', set: codes(DIGITS) };
      case 'S':
      case 'D':
      case 'w':
      case 'W':
        return { kind: 'chars', set: ANY };
      case 'b':
        return inClass ? { kind: 'chars', set: codes([8]) } : { kind: 'empty' };
      case 'B':
        return { kind: 'empty' };
      case 't':
        return { kind: 'chars', set: codes([9]) };
      case 'n':
        return { kind: 'chars', set: codes([10]) };
      case 'r':
        return { kind: 'chars', set: codes([13]) };
      case 'f':
        return { kind: 'chars', set: codes([12]) };
      case 'v':
        return { kind: 'chars', set: codes([11]) };
      case 'p':
      case 'P': {
        const close = this.src.indexOf('}', this.i);
        if (this.src[this.i] !== '{' || close < 0) this.fail('bad property escape');
        this.i = close + 1;
        return { kind: 'chars', set: ANY };
      }
      case 'u': {
        const m = /^(?:\{([0-9A-Fa-f]+)\}|([0-9A-Fa-f]{4}))/.exec(this.src.slice(this.i));
        if (!m) this.fail('bad \\u escape');
        this.i += m[0].length;
        return { kind: 'chars', set: codes([parseInt(m[1] ?? m[2]!, 16)]) };
      }
      case 'x': {
        const m = /^[0-9A-Fa-f]{2}/.exec(this.src.slice(this.i));
        if (!m) this.fail('bad \\x escape');
        this.i += 2;
        return { kind: 'chars', set: codes([parseInt(m[0], 16)]) };
      }
      case 'k': {
        // \k<name>: a back-reference repeats what a group matched — anything, possibly nothing.
        const close = this.src.indexOf('>', this.i);
        if (inClass || this.src[this.i] !== '<' || close < 0) this.fail('bad \\k escape');
        this.i = close + 1;
        return BACKREF;
      }
      default:
        if (/[1-9]/.test(e) && !inClass) {
          while (/\d/.test(this.src[this.i] ?? '')) this.i++;
          return BACKREF;
        }
        return { kind: 'chars', set: codes([e.codePointAt(0)!]) };
    }
  }

  parseClass(): CharSet {
    this.i++; // '['
    if (this.src[this.i] === '^') {
      // A negated class: anything may follow; skip to the closing bracket.
      while (this.i < this.src.length && this.src[this.i] !== ']') this.i += this.src[this.i] === '\\' ? 2 : 1;
      this.i++;
      return ANY;
    }
    const out = new Set<number>();
    let any = false;
    while (this.i < this.src.length && this.src[this.i] !== ']') {
      let lo: number;
      if (this.src[this.i] === '\\') {
        const n = this.parseEscape(true);
        if (n.kind !== 'chars') this.fail('unexpected escape in class');
        if (n.set.any) {
          any = true;
          continue;
        }
        if (n.set.codes.size !== 1) {
          for (const x of n.set.codes) out.add(x);
          continue;
        }
        lo = [...n.set.codes][0]!;
      } else {
        lo = this.src.codePointAt(this.i)!;
        this.i += lo > 0xffff ? 2 : 1;
      }
      if (this.src[this.i] === '-' && this.src[this.i + 1] !== ']') {
        this.i++;
        let hi: number;
        if (this.src[this.i] === '\\') {
          const n = this.parseEscape(true);
          if (n.kind !== 'chars' || n.set.any || n.set.codes.size !== 1) this.fail('bad class range');
          hi = [...n.set.codes][0]!;
        } else {
          hi = this.src.codePointAt(this.i)!;
          this.i += hi > 0xffff ? 2 : 1;
        }
        if (hi - lo > 0x3000) any = true;
        else for (let x = lo; x <= hi; x++) out.add(x);
      } else out.add(lo);
    }
    this.i++; // ']'
    return any ? ANY : { any: false, codes: out };
  }
}

// A prefix is an array of at most k code points; ANY_CODE stands for "any character".
const ANY_CODE = -2;

type Prefix = readonly number[];
type Prefixes = Map<string, Prefix>;

function prefixSet(list: Prefix[]): Prefixes {
  const out: Prefixes = new Map();
  for (const p of list) out.set(p.join(','), p);
  return out;
}

function charCodesOf(set: CharSet): number[] {
  return set.any ? [ANY_CODE] : [...set.codes];
}

/** How many more characters the shortest prefix of `x` still needs to reach k (0: none). */
function missing(x: Prefixes, k: number): number {
  let m = 0;
  for (const p of x.values()) m = Math.max(m, k - p.length);
  return m;
}

function concat(x: Prefixes, y: Prefixes, k: number): Prefixes {
  const out: Prefixes = new Map();
  for (const p of x.values()) {
    if (p.length >= k) {
      out.set(p.join(','), p);
      continue;
    }
    for (const q of y.values()) {
      const r = p.concat(q).slice(0, k);
      out.set(r.join(','), r);
    }
  }
  return out;
}

function prefixesOfSeq(seq: Node[], k: number): Prefixes {
  let acc = prefixSet([[]]);
  for (const n of seq) {
    // Only as many characters of what follows as the shortest prefix still lacks; once every
    // prefix has k characters, the rest of the sequence cannot change the set.
    const need = missing(acc, k);
    if (need === 0) break;
    acc = concat(acc, prefixesOf(n, need), k);
  }
  return acc;
}

/** The prefixes of length ≤ k of the strings `node` matches (a shorter one: the string ends). */
function prefixesOf(node: Node, k: number): Prefixes {
  switch (node.kind) {
    case 'empty':
      return prefixSet([[]]);
    case 'chars':
      return prefixSet(charCodesOf(node.set).map((c) => [c]));
    case 'alt': {
      const out: Prefixes = new Map();
      for (const seq of node.options) for (const [key, p] of prefixesOfSeq(seq, k)) out.set(key, p);
      return out;
    }
    case 'repeat': {
      const unit = prefixesOf(node.node, k);
      const out: Prefixes = new Map();
      let power = prefixSet([[]]);
      // k characters are all we look at: repetitions beyond min + k add nothing new.
      const last = Math.min(node.max, node.min + k);
      for (let n = 0; n <= last; n++) {
        if (n >= node.min) for (const [key, p] of power) out.set(key, p);
        if (n >= node.min && missing(power, k) === 0) break;
        power = concat(power, unit, k);
      }
      return out;
    }
  }
}

function parse(source: string): Node {
  const parser = new Parser(source);
  const ast = parser.parseAlt();
  if (parser.i !== source.length) parser.fail('unbalanced parenthesis');
  return ast;
}

const LETTER = /^\p{L}$/u;

/**
 * The prefixes, cut where the text could differ from the pattern in length or be anything (an
 * any-character class, an astral character), with checks that every match starts with a letter.
 */
function wordPrefixes(source: string, k: number): Prefix[] {
  const out: Prefix[] = [];
  for (const p of prefixesOf(parse(source), k).values()) {
    if (p.length === 0) throw new Error(`regex-prefix: /${source}/ can match the empty string`);
    if (p[0] === ANY_CODE || !LETTER.test(String.fromCodePoint(p[0]!))) {
      throw new Error(`regex-prefix: /${source}/ can start with a non-letter`);
    }
    let cut = p.length;
    for (let j = 0; j < p.length; j++) {
      if (p[j] === ANY_CODE) {
        cut = j;
        break;
      }
      if (p[j]! > 0xffff) {
        cut = j + 1;
        break;
      }
    }
    out.push(p.slice(0, cut));
  }
  return out;
}

export interface PrefixFilter {
  /** `keys[foldCode(c1) * 128 + foldCode(c2)]` is 1 when a match may start with c1 c2. */
  keys: Uint8Array;
}

/**
 * The folded two-character prefixes that can start a match of `source` (a regex source without
 * flags; a leading lookbehind is ignored). Throws when a match could start with something other
 * than a letter — the pre-scan only looks at word starts — or could be empty.
 */
export function wordPrefixFilter(source: string): PrefixFilter {
  const keys = new Uint8Array(128 * 128);
  for (const p of wordPrefixes(source, 2)) {
    const a = foldCode(p[0]!) * 128;
    if (p.length === 1) keys.fill(1, a, a + 128);
    else keys[a + foldCode(p[1]!)] = 1;
  }
  return { keys };
}

/**
 * Like `wordPrefixFilter` for a regex that may start anywhere (not only at a word start, not only
 * with a letter), or null when it can start with any character or match the empty string.
 */
export function textPrefixFilter(source: string): PrefixFilter | null {
  const keys = new Uint8Array(128 * 128);
  for (const p of prefixesOf(parse(source), 2).values()) {
    if (p.length === 0 || p[0] === ANY_CODE) return null;
    const a = foldCode(p[0]!) * 128;
    if (p.length === 1 || p[1] === ANY_CODE || p[0]! > 0xffff) keys.fill(1, a, a + 128);
    else keys[a + foldCode(p[1]!)] = 1;
  }
  return { keys };
}

/** Merges filters into one table of bit flags: bit `1 << i` set where filter i allows the key. */
export function combineFilters(filters: readonly PrefixFilter[]): Uint16Array {
  // One bit a filter, in a table of 16-bit cells: the recognizers register a dozen cues.
  if (filters.length > 16) throw new Error('regex-prefix: at most 16 filters');
  const out = new Uint16Array(128 * 128);
  filters.forEach((f, bit) => {
    for (let k = 0; k < out.length; k++) if (f.keys[k]) out[k]! |= 1 << bit;
  });
  return out;
}

/** Whether a match may start at a position: a finer test than the two-character table. */
export interface PrefixTest {
  test(text: string, pos: number): boolean;
  /** The same test on the folded keys of the first 1–4 characters (see `prefixKey`). */
  testKeys(k1: number, k2: number, k3: number, k4: number): boolean;
  /** The folded keys it admits, by prefix length 1–4 (a shorter prefix admits any continuation). */
  readonly keysByLength: readonly [ReadonlySet<number>, ReadonlySet<number>, ReadonlySet<number>, ReadonlySet<number>];
}

/** Folded keys of the 1–4 characters at `pos` (missing characters count as 0). */
export function prefixKey(text: string, pos: number, length: 1 | 2 | 3 | 4): number {
  let key = 0;
  const n = text.length;
  for (let j = 0; j < length; j++) key |= (pos + j < n ? foldCode(text.charCodeAt(pos + j)) : 0) << (7 * j);
  return key;
}

const PREFIX_LENGTH = 4;

/**
 * Like `wordPrefixFilter`, on the first four characters: tells "the" from "this is", "de" from
 * "de heer", "met" from "meneer". Sets of folded keys per prefix length; a shorter prefix (the
 * match can end there, or anything may follow) admits any continuation.
 */
export function wordPrefixTest(source: string): PrefixTest {
  const byLength = [new Set<number>(), new Set<number>(), new Set<number>(), new Set<number>(), new Set<number>()];
  for (const p of wordPrefixes(source, PREFIX_LENGTH)) {
    let key = 0;
    for (let j = 0; j < p.length; j++) key |= foldCode(p[j]!) << (7 * j);
    byLength[p.length]!.add(key);
  }
  const [, s1, s2, s3, s4] = byLength as [Set<number>, Set<number>, Set<number>, Set<number>, Set<number>];
  const testKeys = (k1: number, k2: number, k3: number, k4: number): boolean =>
    (s1.size > 0 && s1.has(k1)) || (s2.size > 0 && s2.has(k2)) || (s3.size > 0 && s3.has(k3)) || s4.has(k4);
  return {
    test: (text, pos) => testKeys(prefixKey(text, pos, 1), prefixKey(text, pos, 2), prefixKey(text, pos, 3), prefixKey(text, pos, 4)),
    testKeys,
    keysByLength: [s1, s2, s3, s4],
  };
}

/** The characters a match can start with: ASCII ones in a table, all others in one flag. */
export interface FirstChars {
  ascii: Uint8Array;
  /** Whether a match can start with a non-ASCII character. */
  other: boolean;
}

/**
 * The characters a match of the regex can start with (lookarounds ignored), or null when that is
 * any character or the regex can match the empty string — then there is nothing to filter on.
 */
export function firstChars(re: RegExp): FirstChars | null {
  const ascii = new Uint8Array(128);
  let other = false;
  const ignoreCase = re.flags.includes('i');
  for (const p of prefixesOf(parse(re.source), 1).values()) {
    if (p.length === 0 || p[0] === ANY_CODE) return null;
    const c = p[0]!;
    if (c >= 128) {
      other = true;
      continue;
    }
    ascii[c] = 1;
    if (ignoreCase && ((c >= 65 && c <= 90) || (c >= 97 && c <= 122))) {
      ascii[c ^ 32] = 1;
      // Under /iu, KELVIN SIGN matches k and LONG S matches s.
      if ((c | 32) === 107 || (c | 32) === 115) other = true;
    }
  }
  return { ascii, other };
}
