// A fast first opinion on the language of a text, for the four firewall languages only: a vote of
// the most frequent function words (articles, pronouns, prepositions, auxiliaries, greetings) and
// of a few letters typical of one language (ß, é, the Dutch "ij"). It costs a few microseconds
// where tinyld's n-gram model costs 100–400 µs, and it abstains when the vote is not clear; the
// caller then asks tinyld. The lists are general-purpose frequency lists, not tuned to any test set.
import type { Language } from './types.js';

const NL = 1;
const EN = 2;
const FR = 4;
const DE = 8;
const ORDER: Array<[Language, number]> = [
  ['nl', NL],
  ['en', EN],
  ['fr', FR],
  ['de', DE],
];

const WORDS: Record<number, string> = {
  [NL]: `de het een van ik jij u niet op met voor dat dit deze zijn maar om ook bij naar heb hebt heeft hebben
    wordt worden werd kan kun kunt kunnen mijn mij wij ze zij hoe wat waar wanneer waarom wel geen nog al dan uit graag
    dank bedankt alstublieft alsjeblieft hoi goedemorgen goedemiddag zou zal zullen moet moeten mag wil willen nu toch
    veel meer daar onze ons jullie hun haar zich omdat dus tot door na nee jouw uw vandaag gisteren vraag
    alvast iets niets welke`,
  [EN]: `the and are were be been being you your yours my i they their them he she his her it its this that these those
    to for with from at by not no do does did have has had can could would should will shall might must please thanks
    thank hello what which who when where why how there here if or but about into than then just very any some more
    most other our us out up get got need want know let`,
  [FR]: `le la les un une des du et est sont être avoir ai je tu il elle nous vous ils elles mon ma mes ton ta tes son
    sa ses notre nos votre vos leur leurs ce cet cette ces qui que quoi dont où quand comment pourquoi pas ne très
    bien merci bonjour bonsoir salut avec sans pour par sur sous dans chez entre vers mais ou donc oui non
    au aux été fait faire peut peux veux voudrais doit y aussi déjà avez avons suis était madame monsieur`,
  [DE]: `der die das und ist ich nicht mit sie es ein eine einen einem einer eines dem den zu auf für von im sich auch
    wir mein meine meinen bitte danke haben habe hat hatte sind wird werden kann können könnte oder aber wie wenn noch
    nach bei aus uns ihr ihre ihnen ihren diese dieser dieses ja nein gibt schon sehr über vom zum zur am um nur kein
    keine mir mich dir dich sein seine war waren wurde wurden soll sollte muss müssen möchte guten tag dass weil`,
};

// Words common to several of the languages: they count for each, split.
const SHARED: Array<[string, number]> = [
  ['de', NL | FR],
  ['en', NL | FR],
  ['je', NL | FR],
  ['die', NL | DE],
  ['den', NL | DE],
  ['wie', NL | DE],
  ['ja', NL | DE],
  ['hallo', NL | DE],
  ['morgen', NL | DE],
  ['is', NL | EN],
  ['we', NL | EN],
  ['of', NL | EN],
  ['over', NL | EN],
  ['me', NL | EN | FR],
  ['was', NL | EN | DE],
  ['on', EN | FR],
  ['an', EN | DE],
  ['so', EN | DE],
  ['also', EN | DE],
  ['er', NL | DE],
  ['als', NL | DE],
  ['hier', NL | DE | FR],
  ['plus', EN | FR],
  ['des', FR | DE],
  ['du', FR | DE],
];

/** The lower case of a code unit, for the letters the word lists use (as toLowerCase does). */
function lower(c: number): number {
  if (c >= 65 && c <= 90) return c + 32;
  if (c < 0xc0) return c;
  if (c <= 0xde && c !== 0xd7) return c + 32; // À–Þ
  if (c === 0x152) return 0x153; // Œ
  if (c === 0x178) return 0xff; // Ÿ
  if (c === 0x212a) return 107; // KELVIN SIGN
  if (c === 0x212b) return 0xe5; // ANGSTROM SIGN
  return c;
}

/**
 * Words looked up straight from the text, without cutting or lower-casing a string per word:
 * buckets by a hash of the lower-cased code units, then compared in place.
 */
class WordTable {
  private readonly buckets = new Map<number, Array<[string, number]>>();

  static hash(text: string, start: number, end: number): number {
    let h = 0;
    for (let i = start; i < end; i++) h = (Math.imul(h, 31) + lower(text.charCodeAt(i))) | 0;
    return h;
  }

  set(word: string, bits: number): void {
    const h = WordTable.hash(word, 0, word.length);
    const bucket = this.buckets.get(h) ?? [];
    const entry = bucket.find(([w]) => w === word);
    if (entry) entry[1] = bits;
    else bucket.push([word, bits]);
    this.buckets.set(h, bucket);
  }

  getBits(word: string): number | undefined {
    return this.get(word, 0, word.length, WordTable.hash(word, 0, word.length));
  }

  get(text: string, start: number, end: number, h: number): number | undefined {
    const bucket = this.buckets.get(h);
    if (bucket === undefined) return undefined;
    const len = end - start;
    for (const [w, bits] of bucket) {
      if (w.length !== len) continue;
      let k = 0;
      while (k < len && w.charCodeAt(k) === lower(text.charCodeAt(start + k))) k++;
      if (k === len) return bits;
    }
    return undefined;
  }
}

const MASK = new WordTable();
for (const [bit, list] of Object.entries(WORDS)) {
  for (const w of list.split(/\s+/)) if (w) MASK.set(w, (MASK.getBits(w) ?? 0) | Number(bit));
}
for (const [w, bits] of SHARED) MASK.set(w, bits);

// Around an apostrophe: French elisions before it (j'ai, l'adresse, c'est, qu'il), English
// contractions after it (it's, don't, I'm, we'll). "'s"/"'t" also end Dutch words (auto's, 't).
const BEFORE_APOSTROPHE = new WordTable();
for (const w of ['j', 'l', 'd', 'qu', 'n', 'c', 'm', 's', 't', 'jusqu', 'lorsqu', 'puisqu']) BEFORE_APOSTROPHE.set(w, FR);
const AFTER_APOSTROPHE = new WordTable();
for (const [w, bits] of [
  ['s', EN | NL],
  ['t', EN | NL],
  ['m', EN],
  ['ll', EN],
  ['re', EN],
  ['ve', EN],
  ['d', EN],
] as Array<[string, number]>) {
  AFTER_APOSTROPHE.set(w, bits);
}

function isApostrophe(c: number): boolean {
  return c === 39 || c === 0x2019;
}

/**
 * Whether the word [start, end) is part of an e-mail address, a domain, a URL or an abbreviation
 * ("s.bakker@ziggo.nl", "web.de", "www.example.com/pad", "z.B."): such words say nothing about
 * the language of the text ("de" in "web.de").
 */
function isNoise(text: string, start: number, end: number): boolean {
  const before = start > 0 ? text.charCodeAt(start - 1) : 32;
  if (before === 64 || before === 46 || before === 47 || before === 95) return true; // @ . / _
  const after = end < text.length ? text.charCodeAt(end) : 32;
  if (after === 64 || after === 95) return true;
  return after === 46 && end + 1 < text.length && isWordChar(text.charCodeAt(end + 1));
}

function popcount(x: number): number {
  let n = 0;
  for (; x; x &= x - 1) n++;
  return n;
}

function isWordChar(c: number): boolean {
  return (c >= 97 && c <= 122) || (c >= 65 && c <= 90) || (c >= 0xc0 && c <= 0x24f && c !== 0xd7 && c !== 0xf7);
}

/** Whether `word` is one of the function words of the four languages the vote counts ("est", "und", "het"). */
export function isFunctionWord(word: string): boolean {
  return MASK.get(word, 0, word.length, WordTable.hash(word, 0, word.length)) !== undefined;
}

export interface WordVote {
  language: Language;
  /** The winner's share of the votes, 0.5–1. */
  confidence: number;
}

/** Minimum votes for the winner, and how many times the runner-up's it must have. */
const MIN_VOTES = 2;
const MIN_RATIO = 2;
/** A clear lead after this many votes ends the count early (long texts). */
const ENOUGH = 12;

/**
 * The language the function words of `text` point to, or null when they do not point clearly to
 * one (too few, or a close race between two languages).
 */
export function voteLanguage(text: string): WordVote | null {
  const score = new Float64Array(9); // indexed by the language bit
  const n = text.length;
  let i = 0;
  while (i < n) {
    while (i < n && !isWordChar(text.charCodeAt(i))) i++;
    const start = i;
    let hint = 0;
    while (i < n) {
      const c = text.charCodeAt(i);
      if (!isWordChar(c)) break;
      if (c === 0xdf) hint |= DE; // ß
      else if (c === 0xe4 || c === 0xf6 || c === 0xfc) hint |= DE; // ä ö ü
      else if (c === 0xe9 || c === 0xe8 || c === 0xea || c === 0xe0 || c === 0xe7 || c === 0xf9 || c === 0xfb || c === 0xf4 || c === 0xee || c === 0x153 || c === 0xe2)
        hint |= FR; // é è ê à ç ù û ô î œ â
      else if ((c === 106 || c === 74) && i > start && (text.charCodeAt(i - 1) | 32) === 105) hint |= NL; // ij
      i++;
    }
    if (i === start) break;
    if (isNoise(text, start, i)) continue;
    const h = WordTable.hash(text, start, i);
    let bits: number | undefined;
    if (i - start <= 6 && i < n && isApostrophe(text.charCodeAt(i)) && i + 1 < n && isWordChar(text.charCodeAt(i + 1))) {
      bits = BEFORE_APOSTROPHE.get(text, start, i, h) ?? MASK.get(text, start, i, h);
    } else if (i - start <= 2 && start > 0 && isApostrophe(text.charCodeAt(start - 1)) && start > 1 && isWordChar(text.charCodeAt(start - 2))) {
      bits = AFTER_APOSTROPHE.get(text, start, i, h) ?? MASK.get(text, start, i, h);
    } else bits = MASK.get(text, start, i, h);
    if (bits !== undefined) {
      const share = 1 / popcount(bits);
      if (bits & NL) score[NL]! += share;
      if (bits & EN) score[EN]! += share;
      if (bits & FR) score[FR]! += share;
      if (bits & DE) score[DE]! += share;
    } else if (hint !== 0 && popcount(hint) === 1) {
      score[hint]! += 0.5;
    }
    if (i - start > 0 && (score[NL]! >= ENOUGH || score[EN]! >= ENOUGH || score[FR]! >= ENOUGH || score[DE]! >= ENOUGH)) {
      const r = decide(score);
      if (r && r.confidence >= 0.8) return r;
    }
  }
  return decide(score);
}

function decide(score: Float64Array): WordVote | null {
  let best: Language = 'en';
  let top = -1;
  let second = 0;
  for (const [lang, bit] of ORDER) {
    const s = score[bit]!;
    if (s > top) {
      second = Math.max(second, top);
      top = s;
      best = lang;
    } else if (s > second) second = s;
  }
  if (top < MIN_VOTES || top < MIN_RATIO * second) return null;
  return { language: best, confidence: top / (top + second) };
}
