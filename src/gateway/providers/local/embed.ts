/**
 * `local/embed-1024` — a deterministic, in-process, key-less lexical embedding
 * model for Dutch, French, German and English text.
 *
 * It is the fallback for memory retrieval when no EU embedding provider key is
 * configured, so it must (a) give useful lexical similarity that survives
 * inflection and compounding, (b) be fast (target ≥ 20k × 400-char passages/s
 * on one core) and (c) be bit-for-bit reproducible across runs and machines.
 *
 * ## Pipeline
 *
 * 1. Normalisation: lower-case → NFKD → strip combining marks (\p{M}) → fold
 *    the few letters NFKD does not decompose (ß→ss, æ→ae, œ→oe, ø→o, ł→l,
 *    đ/ð→d, þ→th, ı→i, ς→σ). So "assurée" ≡ "assuree", "Kündigung" ≡
 *    "kundigung", "ﬁnancieel" ≡ "financieel", "één" ≡ "een", "Straße" ≡
 *    "strasse". Soft hyphens and zero-width (non-)joiners are dropped. This is
 *    done per UTF-16 code unit through lazily filled lookup tables (see
 *    "character classes" below), so no string is allocated and no regex runs
 *    in the hot loop, for ASCII and non-ASCII text alike.
 * 2. Tokenisation. A word is a maximal run of letters/digits (\p{L}\p{N} after
 *    folding); everything else separates. Astral-plane code units (surrogates:
 *    emoji, rare CJK) separate too. `l'assurance` → "l", "assurance".
 *    A sentence break (. ! ? ; newline) ends the bigram chain.
 * 3. Features (each hashed with 32-bit FNV-1a over char codes via Math.imul,
 *    with a distinct seed per feature family, then a murmur3 fmix32 finaliser):
 *    - word unigrams — exact lexical identity (weight W_WORD; W_SHORT for
 *      1–2 character tokens; W_STOP for a small built-in nl/en/fr/de function
 *      word list, which otherwise dominate short queries such as "How do I …").
 *    - word bigrams over the content words of a sentence (stop words skipped,
 *      so "cancel my insurance" and "cancel your insurance" share the bigram
 *      "cancel insurance") — phrase/compound-order signal (weight W_BIGRAM).
 *    - character 3-, 4- and 5-grams of the `^word$`-padded word (words ≥ 3
 *      characters, not pure digits, not stop words; first 64 characters).
 *      These make inflections and compounds overlap: "verzekering" and
 *      "verzekeringen" share 27 of their 30/36 n-grams, "Versicherung" is
 *      found inside "Versicherungsvertrag", "assure"/"assuree"/"assurance"
 *      share "^as", "^ass", "assur", … 3..5 is the fastText-style range: 3-grams
 *      give recall across inflection, 5-grams precision; 2-grams are too
 *      unspecific and ≥ 6-grams add cost with little gain over the word
 *      feature. Each word's n-gram block is scaled by 1/√k (k = number of
 *      n-grams of the word), so every content word contributes the same
 *      n-gram energy W_NGRAM² — long compounds do not drown a passage.
 * 4. Term weighting. Exact per-feature term frequency is counted in a
 *    reusable open-addressing table keyed by the full 32-bit feature hash, and
 *    weighted sublinearly: weight × (1 + ln tf).
 * 5. Feature hashing into 1024 dimensions: bucket = hash & 1023, sign = top
 *    bit of the hash (signed hashing makes colliding features cancel in
 *    expectation instead of biasing the inner product upward).
 * 6. L2 normalisation (accumulated in Float64, returned as Float32).
 *
 * Text without any word (empty, whitespace, punctuation/emoji only) — and the
 * practically impossible case of all features cancelling — returns the fixed
 * unit vector with every component 1/32 (= 1/√1024, exact in Float32), so the
 * result is never NaN and cosine stays defined.
 *
 * Determinism: only integer hashing, Math.log (V8's fixed fdlibm port),
 * Math.sqrt and a fixed summation order (feature first-occurrence order, which
 * depends only on the text). No Math.random, no Map/Set iteration. Character
 * classification comes from the runtime's Unicode tables (ICU); it is stable
 * for everything Latin, and can only change for characters newly assigned in
 * a later Unicode version.
 *
 * State: the scratch buffers are module-level and the functions synchronous,
 * so concurrent requests in one isolate cannot interleave; worker_threads get
 * their own copies.
 *
 * Changing features, hashing or weights changes every vector: stored vectors
 * become incomparable, so bump the model id (the snapshot test guards this).
 */

export const LOCAL_EMBED_MODEL = 'local/embed-1024';
export const LOCAL_EMBED_DIMENSIONS = 1024;

const DIM = LOCAL_EMBED_DIMENSIONS;
const DIM_MASK = DIM - 1;

// --- weights -----------------------------------------------------------------
// Chosen on small nl/en/fr/de inflection and retrieval fixtures (see the
// tests). The n-gram block is the largest share of a content word's energy
// (1.7² ≈ 2.9 vs 1 for the word itself), so inflected forms stay close:
// "verzekering opzeggen" ~ "verzekeringen opzeggen" ≈ 0.8, "assuré" ~
// "assurée" ≈ 0.55, unrelated short texts ≈ 0.0 ± 0.05. A higher n-gram share
// gains little inflection tolerance but makes words that merely share
// affixes (ver-, -ing, -ung, -tion) noisier. Bigrams are a light phrase signal.
const W_WORD = 1.0;
const W_SHORT = 0.5; // 1–2 char non-stop tokens ("tv", "eu", digits like "3")
const W_STOP = 0.15; // function words (no n-grams, not part of bigrams)
const W_BIGRAM = 0.4;
const W_NGRAM = 1.7; // L2 norm of one word's whole n-gram block
const MAX_NGRAM_CHARS = 64;

// --- hashing -----------------------------------------------------------------
const FNV_PRIME = 0x01000193;
const SEED_WORD = 0x811c9dc5 | 0; // standard FNV-1a offset basis
const SEED_NGRAM = 0x2f3a9c47 | 0;
const SEED_BIGRAM = 0x5bd1e995 | 0;
const BOW = 1; // virtual '^'
const EOW = 2; // virtual '$'

function fmix32(h: number): number {
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  h ^= h >>> 16;
  return h | 0;
}

function hashWord(word: string): number {
  let h = SEED_WORD;
  for (let i = 0; i < word.length; i++) h = Math.imul(h ^ word.charCodeAt(i), FNV_PRIME);
  return h;
}

// --- character classes and folding ------------------------------------------------
// Every UTF-16 code unit is classified once (lazily for non-ASCII) into a
// kind + folded code, so the hot loop does one table lookup per character and
// never allocates: NFKD, combining-mark stripping, lower-casing and the extra
// folds are applied per character when a character is first seen. NFKD is a
// per-character mapping followed by canonical reordering of combining marks,
// and the marks are dropped, so per-character folding equals folding the whole
// string (`normalizeForEmbedding`, kept as the reference; a test checks both
// agree).
const KIND_UNKNOWN = 0;
const KIND_WORD = 1; // letter/digit; CODE_MAP holds the folded lower-case code
const KIND_SEP = 2; // separator
const KIND_BREAK = 3; // sentence break: separator that also ends the bigram chain
const KIND_IGNORE = 4; // combining mark, soft hyphen, ZWJ/ZWNJ, BOM: dropped
const KIND_EXPAND = 5; // folds to several units (ß→ss, œ→oe, ﬁ→fi, …): EXPANSIONS

const CODE_KIND = new Uint8Array(65536);
const CODE_MAP = new Uint16Array(65536);
/** Folded units for KIND_EXPAND: > 0 word code, 0 separator, -1 sentence break. */
const EXPANSIONS = new Map<number, Int32Array>();

const LETTER_OR_DIGIT = /^[\p{L}\p{N}]$/u;
const MARK = /^\p{M}$/u;
const COMBINING_MARKS = /\p{M}+/gu;
// Latin letters that NFKD does not decompose, plus final sigma.
const EXTRA_FOLDS: Readonly<Record<string, string>> = {
  'ß': 'ss',
  'æ': 'ae',
  'œ': 'oe',
  'ø': 'o',
  'ł': 'l',
  'đ': 'd',
  'ð': 'd',
  'þ': 'th',
  'ı': 'i',
  'ς': 'σ',
};
const EXTRA_FOLD_RE = /[ßæœøłđðþıς]/g;
const IGNORABLE = new Set([0x00ad, 0x200c, 0x200d, 0x2060, 0xfeff]);
// Sentence breaks: . ! ? ; CR LF, Unicode line/paragraph separators,
// ideographic and fullwidth stops.
const BREAK_CHARS = new Set([0x2e, 0x21, 0x3f, 0x3b, 0x0a, 0x0d, 0x2028, 0x2029, 0x3002, 0xff0e, 0xff01, 0xff1f, 0xff1b]);

for (let c = 0; c < 128; c++) {
  if ((c >= 48 && c <= 57) || (c >= 97 && c <= 122)) {
    CODE_KIND[c] = KIND_WORD;
    CODE_MAP[c] = c;
  } else if (c >= 65 && c <= 90) {
    CODE_KIND[c] = KIND_WORD;
    CODE_MAP[c] = c + 32;
  } else {
    CODE_KIND[c] = BREAK_CHARS.has(c) ? KIND_BREAK : KIND_SEP;
  }
}
for (let c = 0xd800; c <= 0xdfff; c++) CODE_KIND[c] = KIND_SEP; // astral: separators

/** Lower-case, NFKD, strip combining marks, fold ß/æ/œ/ø/ł/đ/ð/þ/ı/ς (reference implementation). */
export function normalizeForEmbedding(text: string): string {
  const s = text.toLowerCase().normalize('NFKD').replace(COMBINING_MARKS, '');
  EXTRA_FOLD_RE.lastIndex = 0;
  return s.replace(EXTRA_FOLD_RE, (m) => EXTRA_FOLDS[m] ?? m);
}

/** Class of one already-folded unit: > 0 word code, 0 separator, -1 sentence break. */
function foldedUnitClass(u: number): number {
  if (u < 128) return CODE_KIND[u] === KIND_WORD ? CODE_MAP[u]! : CODE_KIND[u] === KIND_BREAK ? -1 : 0;
  if (BREAK_CHARS.has(u)) return -1;
  return LETTER_OR_DIGIT.test(String.fromCharCode(u)) ? u : 0;
}

function classifyCodeUnit(c: number): number {
  const ch = String.fromCharCode(c);
  let kind: number;
  if (IGNORABLE.has(c) || MARK.test(ch)) {
    kind = KIND_IGNORE;
  } else {
    const folded = normalizeForEmbedding(ch);
    const units: number[] = [];
    for (let i = 0; i < folded.length; i++) units.push(foldedUnitClass(folded.charCodeAt(i)));
    if (units.length === 0) {
      kind = KIND_IGNORE;
    } else if (units.length === 1) {
      const u = units[0]!;
      if (u > 0) {
        kind = KIND_WORD;
        CODE_MAP[c] = u;
      } else {
        kind = u < 0 ? KIND_BREAK : KIND_SEP;
      }
    } else {
      kind = KIND_EXPAND;
      EXPANSIONS.set(c, Int32Array.from(units));
    }
  }
  CODE_KIND[c] = kind;
  return kind;
}

// --- stop words (already folded: no accents) --------------------------------------
// Deliberately small: only high-frequency function words; content words that
// collide across languages ("car", "son", "war", "hat", "kind") are excluded.
const STOP_WORDS = [
  // en
  'a', 'an', 'the', 'and', 'or', 'but', 'of', 'to', 'in', 'on', 'at', 'by', 'for', 'with', 'from', 'as',
  'is', 'are', 'was', 'were', 'be', 'been', 'being', 'am', 'do', 'does', 'did', 'have', 'has', 'had',
  'i', 'me', 'my', 'you', 'your', 'he', 'him', 'his', 'she', 'her', 'it', 'its', 'we', 'us', 'our',
  'they', 'them', 'their', 'this', 'that', 'these', 'those', 'there', 'here', 'what', 'which', 'who',
  'how', 'when', 'where', 'why', 'not', 'no', 'if', 'so', 'than', 'then', 'can', 'could', 'will',
  'would', 'should', 'may', 'might', 'must', 'shall', 'about', 'into', 'also', 'just', 'very',
  // nl
  'de', 'het', 'een', 'en', 'of', 'van', 'op', 'te', 'dat', 'die', 'dit', 'deze', 'voor', 'met', 'aan',
  'bij', 'om', 'uit', 'tot', 'naar', 'over', 'ook', 'als', 'maar', 'dan', 'wel', 'niet', 'geen', 'nog',
  'er', 'hier', 'daar', 'is', 'zijn', 'ben', 'bent', 'was', 'waren', 'wordt', 'worden', 'werd', 'heb',
  'hebt', 'heeft', 'hebben', 'had', 'kan', 'kunt', 'kunnen', 'zal', 'zou', 'moet', 'mag', 'wil', 'ik',
  'je', 'jij', 'jou', 'jouw', 'u', 'uw', 'hij', 'zij', 'ze', 'wij', 'we', 'ons', 'onze', 'hun', 'mijn',
  'zijn', 'haar', 'hoe', 'wat', 'wie', 'waar', 'wanneer', 'waarom', 'men', 'zo', 'al',
  // fr
  'le', 'la', 'les', 'l', 'un', 'une', 'des', 'du', 'd', 'et', 'ou', 'mais', 'donc', 'ni', 'que', 'qu',
  'qui', 'quoi', 'a', 'au', 'aux', 'dans', 'par', 'pour', 'sur', 'sous', 'avec', 'sans', 'chez', 'ce',
  'cet', 'cette', 'ces', 'c', 'se', 's', 'ne', 'n', 'pas', 'plus', 'je', 'j', 'tu', 'il', 'elle', 'on',
  'nous', 'vous', 'ils', 'elles', 'me', 'm', 'te', 't', 'moi', 'toi', 'lui', 'leur', 'leurs', 'mon',
  'ma', 'mes', 'ton', 'ta', 'tes', 'sa', 'ses', 'notre', 'nos', 'votre', 'vos', 'est', 'sont', 'etre',
  'ete', 'ai', 'as', 'avons', 'avez', 'ont', 'avoir', 'comment', 'quand', 'ou', 'pourquoi', 'y', 'en',
  'si', 'peut', 'peux', 'puis', 'fait', 'tres',
  // de
  'der', 'die', 'das', 'den', 'dem', 'des', 'ein', 'eine', 'einen', 'einem', 'einer', 'eines', 'und',
  'oder', 'aber', 'denn', 'in', 'im', 'an', 'am', 'auf', 'aus', 'bei', 'mit', 'nach', 'von', 'vom',
  'zu', 'zum', 'zur', 'fur', 'uber', 'unter', 'um', 'durch', 'ist', 'sind', 'war', 'waren', 'sein',
  'bin', 'bist', 'seid', 'wird', 'werden', 'wurde', 'habe', 'hast', 'hat', 'haben', 'hatte', 'kann',
  'kannst', 'konnen', 'muss', 'soll', 'will', 'ich', 'du', 'er', 'sie', 'es', 'wir', 'ihr', 'mich',
  'mir', 'dich', 'dir', 'sich', 'uns', 'euch', 'mein', 'meine', 'meinen', 'meiner', 'dein', 'deine',
  'ihre', 'ihren', 'ihrer', 'unser', 'unsere', 'nicht', 'kein', 'keine', 'auch', 'noch', 'wie', 'was',
  'wer', 'wo', 'wann', 'warum', 'dass', 'wenn', 'als', 'so', 'sehr',
];

// Open-addressing set of fmix32(wordHash) for the stop words.
const STOP_CAP = 2048;
const STOP_MASK = STOP_CAP - 1;
const STOP_KEYS = new Int32Array(STOP_CAP);
const STOP_USED = new Uint8Array(STOP_CAP);
for (const w of STOP_WORDS) {
  const k = fmix32(hashWord(w));
  let i = k & STOP_MASK;
  while (STOP_USED[i] === 1 && STOP_KEYS[i] !== k) i = (i + 1) & STOP_MASK;
  STOP_USED[i] = 1;
  STOP_KEYS[i] = k;
}

function isStopKey(k: number): boolean {
  let i = k & STOP_MASK;
  while (STOP_USED[i] === 1) {
    if (STOP_KEYS[i] === k) return true;
    i = (i + 1) & STOP_MASK;
  }
  return false;
}

// --- precomputed tables ----------------------------------------------------------
const TF_TABLE_SIZE = 256;
const TF_WEIGHT = new Float64Array(TF_TABLE_SIZE);
for (let i = 1; i < TF_TABLE_SIZE; i++) TF_WEIGHT[i] = 1 + Math.log(i);
const MAX_NGRAMS_PER_WORD = 3 * MAX_NGRAM_CHARS - 3;
const NGRAM_WEIGHT = new Float64Array(MAX_NGRAMS_PER_WORD + 1);
for (let k = 1; k <= MAX_NGRAMS_PER_WORD; k++) NGRAM_WEIGHT[k] = W_NGRAM / Math.sqrt(k);

// --- scratch state (reused across calls; per isolate) ------------------------------
// Open-addressing hash table (linear probing, load factor ≤ 1/2) of the distinct
// features of the current text, interleaved for cache locality: slot i occupies
// tab[4i .. 4i+3] = [stamp, key, count, weight (Float32 bits, via tabW)].
// `stamp` marks slots as occupied for the current text, so the table is never
// cleared; `used` lists occupied slots in first-occurrence order, which fixes
// the summation order of the output (determinism).
const INITIAL_TABLE = 1 << 12;
const SHRINK_ABOVE = 1 << 16;
let tableMask = INITIAL_TABLE - 1;
let tab = new Int32Array(INITIAL_TABLE * 4);
let tabW = new Float32Array(tab.buffer);
let used = new Int32Array(INITIAL_TABLE >>> 1);
let nUsed = 0;
let stamp = 0;
const acc = new Float64Array(DIM);
const wordBuf = new Uint16Array(MAX_NGRAM_CHARS + 2);

function allocTable(cap: number): void {
  tableMask = cap - 1;
  tab = new Int32Array(cap * 4);
  tabW = new Float32Array(tab.buffer);
  used = new Int32Array(cap >>> 1);
  nUsed = 0;
  stamp = 1;
}

function growTable(): void {
  const oldTab = tab;
  const oldUsed = used;
  const n = nUsed;
  allocTable((tableMask + 1) << 1);
  // Re-insert in the original first-occurrence order (keeps summation order).
  for (let j = 0; j < n; j++) {
    const ob = oldUsed[j]!;
    const k = oldTab[ob + 1]!;
    let i = k & tableMask;
    while (tab[i << 2] === stamp) i = (i + 1) & tableMask;
    const b = i << 2;
    tab[b] = stamp;
    tab[b + 1] = k;
    tab[b + 2] = oldTab[ob + 2]!;
    tab[b + 3] = oldTab[ob + 3]!; // weight bits copied verbatim
    used[nUsed++] = b;
  }
}

/** Count one occurrence (weight `w`) of the fmix32-finalised feature key `k`. */
function addFeature(k: number, w: number): void {
  const t = tab;
  const mask = tableMask;
  const st = stamp;
  let i = k & mask;
  for (;;) {
    const b = i << 2;
    if (t[b] !== st) {
      t[b] = st;
      t[b + 1] = k;
      t[b + 2] = 1;
      tabW[b + 3] = w;
      used[nUsed++] = b;
      if (nUsed >= used.length) growTable();
      return;
    }
    if (t[b + 1] === k) {
      t[b + 2]!++;
      tabW[b + 3]! += w;
      return;
    }
    i = (i + 1) & mask;
  }
}

function beginText(): void {
  if (tableMask + 1 > SHRINK_ABOVE) allocTable(INITIAL_TABLE);
  nUsed = 0;
  stamp = (stamp + 1) | 0;
  if (stamp <= 0) {
    tab.fill(0);
    stamp = 1;
  }
}

/** Emit n-gram features for the word in wordBuf[1..m]. */
function addNgrams(m: number): void {
  const b = wordBuf;
  b[0] = BOW;
  b[m + 1] = EOW;
  const p = m + 2;
  const w = NGRAM_WEIGHT[3 * m - 3]!;
  for (let i = 0; i + 3 <= p; i++) {
    let h = Math.imul(SEED_NGRAM ^ b[i]!, FNV_PRIME);
    h = Math.imul(h ^ b[i + 1]!, FNV_PRIME);
    h = Math.imul(h ^ b[i + 2]!, FNV_PRIME);
    addFeature(fmix32(h), w);
    if (i + 4 <= p) {
      h = Math.imul(h ^ b[i + 3]!, FNV_PRIME);
      addFeature(fmix32(h ^ 0x4000_0000), w);
      if (i + 5 <= p) {
        h = Math.imul(h ^ b[i + 4]!, FNV_PRIME);
        addFeature(fmix32(h ^ 0x5000_0000), w);
      }
    }
  }
}

/**
 * Accumulate the features of `s` (folding per character through the tables
 * above). Returns the number of words.
 */
function scan(s: string): number {
  const n = s.length;
  let words = 0;
  let len = 0;
  let wh = SEED_WORD;
  let digitsOnly = true;
  let prevKey = 0;
  let hasPrev = false;
  let i = 0;
  let exp: Int32Array | null = null;
  let ep = 0;
  for (;;) {
    let t = 0;
    let brk = false;
    let end = false;
    if (exp !== null) {
      const v = exp[ep++]!;
      if (ep === exp.length) exp = null;
      if (v > 0) t = v;
      else brk = v < 0;
    } else if (i < n) {
      const c = s.charCodeAt(i++);
      let k = CODE_KIND[c]!;
      if (k === KIND_UNKNOWN) k = classifyCodeUnit(c);
      if (k === KIND_WORD) t = CODE_MAP[c]!;
      else if (k === KIND_BREAK) brk = true;
      else if (k === KIND_IGNORE) continue;
      else if (k === KIND_EXPAND) {
        exp = EXPANSIONS.get(c)!;
        ep = 0;
        continue;
      }
    } else {
      end = true;
    }
    if (t !== 0) {
      if (len < MAX_NGRAM_CHARS) wordBuf[len + 1] = t;
      len++;
      wh = Math.imul(wh ^ t, FNV_PRIME);
      if (t > 57) digitsOnly = false;
      continue;
    }
    if (len > 0) {
      words++;
      const k = fmix32(wh);
      if (isStopKey(k)) {
        addFeature(k, W_STOP);
      } else {
        addFeature(k, len <= 2 ? W_SHORT : W_WORD);
        if (hasPrev) addFeature(fmix32((Math.imul(prevKey, 0x9e3779b1) ^ k ^ SEED_BIGRAM) | 0), W_BIGRAM);
        prevKey = k;
        hasPrev = true;
        if (len >= 3 && !digitsOnly) addNgrams(len < MAX_NGRAM_CHARS ? len : MAX_NGRAM_CHARS);
      }
      len = 0;
      wh = SEED_WORD;
      digitsOnly = true;
    }
    if (brk) hasPrev = false;
    if (end) break;
  }
  return words;
}

const FALLBACK_COMPONENT = 1 / Math.sqrt(DIM); // 0.03125, exact

function fallbackVector(): Float32Array {
  return new Float32Array(DIM).fill(FALLBACK_COMPONENT);
}

/** Embed one text into a unit-length 1024-dimensional Float32Array. */
export function embedText(text: string): Float32Array {
  beginText();
  const words = scan(text);
  if (words === 0) return fallbackVector();

  // value = mean per-occurrence weight × (1 + ln tf); bucket = low 10 bits of
  // the key, sign = its top bit.
  const a = acc;
  const t = tab;
  const tw = tabW;
  for (let j = 0; j < nUsed; j++) {
    const b = used[j]!;
    const k = t[b + 1]!;
    const c = t[b + 2]!;
    let v: number;
    if (c === 1) v = tw[b + 3]!;
    else v = (tw[b + 3]! / c) * (c < TF_TABLE_SIZE ? TF_WEIGHT[c]! : 1 + Math.log(c));
    if (k < 0) a[k & DIM_MASK]! -= v;
    else a[k & DIM_MASK]! += v;
  }

  let sq = 0;
  for (let i = 0; i < DIM; i++) sq += a[i]! * a[i]!;
  if (!(sq > 0) || !Number.isFinite(sq)) {
    a.fill(0);
    return fallbackVector();
  }
  const inv = 1 / Math.sqrt(sq);
  const out = new Float32Array(DIM);
  for (let i = 0; i < DIM; i++) {
    out[i] = a[i]! * inv;
    a[i] = 0;
  }
  return out;
}

/** Embed many texts; element i equals `embedText(texts[i])`. */
export function embedBatch(texts: readonly string[]): Float32Array[] {
  const out = new Array<Float32Array>(texts.length);
  for (let i = 0; i < texts.length; i++) out[i] = embedText(texts[i]!);
  return out;
}

/** Cosine similarity (dot product, as both vectors are unit length). */
export function cosineSimilarity(a: Float32Array, b: Float32Array): number {
  const n = Math.min(a.length, b.length);
  let dot = 0;
  let na = 0;
  let nb = 0;
  for (let i = 0; i < n; i++) {
    const x = a[i]!;
    const y = b[i]!;
    dot += x * y;
    na += x * x;
    nb += y * y;
  }
  return na > 0 && nb > 0 ? dot / Math.sqrt(na * nb) : 0;
}

const POW10: number[] = [];
for (let e = 0; e <= 22; e++) POW10.push(10 ** e);

/**
 * Plain number[] for JSON, rounded to 7 significant digits (Float32 carries
 * ~7.2), so `JSON.stringify` prints e.g. 0.0312345 rather than
 * 0.031234500184655190. n / 10^k with exact integers n and 10^k (k ≤ 22) is
 * the double nearest the decimal, which JSON prints in its short form.
 */
export function toNumberArray(v: Float32Array): number[] {
  const out = new Array<number>(v.length);
  for (let i = 0; i < v.length; i++) {
    const x = v[i]!;
    const ax = Math.abs(x);
    if (ax === 0 || !Number.isFinite(x)) {
      out[i] = Number.isFinite(x) ? 0 : x;
      continue;
    }
    const k = 6 - Math.floor(Math.log10(ax)); // digits after the point for 7 significant
    if (k <= 0) {
      const p = POW10[Math.min(-k, 22)]!;
      out[i] = Math.round(x / p) * p;
    } else if (k <= 22) {
      const p = POW10[k]!;
      out[i] = Math.round(x * p) / p;
    } else {
      out[i] = Number(x.toPrecision(7));
    }
  }
  return out;
}
