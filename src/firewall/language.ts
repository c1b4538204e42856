// Per-message language detection, restricted to the four firewall languages. Texts too short or
// too ambiguous to tell fall back to the caller's language (the workspace setting or the previous
// message's language).
//
// Two stages, on a bounded prefix of the text (the first characters decide; a long retrieved
// passage costs no more than a chat message):
//  1. a vote of function words (language-words.ts): a few microseconds, and it abstains unless the
//     vote is clear;
//  2. otherwise tinyld's n-gram model with its `only` option (100–400 µs a call).
// The firewall asks only for texts where the language can change what is detected (see
// `languageMatters` in detect.ts).
import { detectAll } from 'tinyld';
import { voteLanguage } from './language-words.js';
import { LANGUAGES, type Language } from './types.js';

const ONLY = [...LANGUAGES];
// Placeholders, e-mail addresses, URLs and numbers say nothing about the language (tinyld reads
// them as text; the word vote skips such tokens itself).
const NOISE = /\[[A-Z_]+_\d+\]|[^\s@]+@\S+|https?:\/\/\S+|[\d+()./:-]{2,}/g;
const MIN_LETTERS = 4;
/** Characters looked at by the word vote. */
const SAMPLE = 1000;
/** Characters handed to tinyld (its cost grows with the length). */
const NGRAM_SAMPLE = 250;

export interface LanguageGuess {
  language: Language;
  /** The winner's score, 0–1 (tinyld's accuracy, or the word vote's share), 0 when the fallback was used. */
  accuracy: number;
  detected: boolean;
  /** Which stage decided, when one did: the function-word vote or tinyld's n-grams. */
  method?: 'words' | 'ngrams';
}

export function guessLanguage(text: string, fallback: Language): LanguageGuess {
  const head = text.length > SAMPLE ? text.slice(0, SAMPLE) : text;
  const vote = voteLanguage(head);
  if (vote) return { language: vote.language, accuracy: vote.confidence, detected: true, method: 'words' };
  const sample = head.replace(NOISE, ' ');
  let letters = 0;
  for (let i = 0; i < sample.length && letters < MIN_LETTERS; i++) {
    const c = sample.charCodeAt(i);
    if ((c >= 65 && c <= 90) || (c >= 97 && c <= 122) || c >= 0xc0) letters++;
  }
  if (letters < MIN_LETTERS) return { language: fallback, accuracy: 0, detected: false };
  const ranked = detectAll(sample.length > NGRAM_SAMPLE ? sample.slice(0, NGRAM_SAMPLE) : sample, { only: ONLY });
  const best = ranked[0];
  if (!best || !(LANGUAGES as readonly string[]).includes(best.lang)) {
    return { language: fallback, accuracy: 0, detected: false };
  }
  return { language: best.lang as Language, accuracy: best.accuracy, detected: true, method: 'ngrams' };
}

export function detectLanguage(text: string, fallback: Language): Language {
  return guessLanguage(text, fallback).language;
}
