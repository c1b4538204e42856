// Per-message language detection with tinyld, restricted to the four firewall languages through
// its `only` option. Texts too short or too ambiguous to tell fall back to the caller's language
// (the workspace setting or the previous message's language).
import { detectAll } from 'tinyld';
import { LANGUAGES, type Language } from './types.js';

const ONLY = [...LANGUAGES];
// Placeholders, e-mail addresses, URLs and numbers say nothing about the language.
const NOISE = /\[[A-Z_]+_\d+\]|\S+@\S+|https?:\/\/\S+|[\d+()./:-]{2,}/g;
const MIN_LETTERS = 4;
const SAMPLE = 1000;

export interface LanguageGuess {
  language: Language;
  /** tinyld's score of the winner, 0 when the fallback was used. */
  accuracy: number;
  detected: boolean;
}

export function guessLanguage(text: string, fallback: Language): LanguageGuess {
  // Long inputs (retrieved passages): the first characters decide; tinyld's cost grows with length.
  const sample = (text.length > SAMPLE ? text.slice(0, SAMPLE) : text).replace(NOISE, ' ');
  let letters = 0;
  for (let i = 0; i < sample.length && letters < MIN_LETTERS; i++) {
    const c = sample.charCodeAt(i);
    if ((c >= 65 && c <= 90) || (c >= 97 && c <= 122) || c >= 0xc0) letters++;
  }
  if (letters < MIN_LETTERS) return { language: fallback, accuracy: 0, detected: false };
  const ranked = detectAll(sample, { only: ONLY });
  const best = ranked[0];
  if (!best || !(LANGUAGES as readonly string[]).includes(best.lang)) {
    return { language: fallback, accuracy: 0, detected: false };
  }
  return { language: best.lang as Language, accuracy: best.accuracy, detected: true };
}

export function detectLanguage(text: string, fallback: Language): Language {
  return guessLanguage(text, fallback).language;
}
