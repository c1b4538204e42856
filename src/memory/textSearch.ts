import { detectAll } from 'tinyld';
import { LANGUAGES, type Language } from '../firewall/types.js';

// Which Postgres text-search configuration a document's chunks are indexed with. The chunk row
// stores it, and a query is parsed with each chunk's own configuration (search.ts).

export const TS_CONFIGS: Record<Language, string> = { nl: 'dutch', en: 'english', fr: 'french', de: 'german' };

/** Every configuration a chunk can carry. */
export const ALL_TS_CONFIGS = ['simple', ...Object.values(TS_CONFIGS)];

// The firewall's language guess (firewall/language.ts) always answers one of the four languages,
// which is what masking needs. Indexing needs to know when a text is in none of them (Spanish,
// Polish …): stemmed by the wrong language's rules, a document would not be found by its own
// words, while 'simple' still finds exact words. So this looks at the text on its own terms:
//  1. a vote of function words of the four languages (leaving out those two of them share: de,
//     die, en, in, is, des, du, was, an …); in running text a strong signal, and tinyld alone
//     takes some plain German sentences for French with full confidence ("Die Kündigung der
//     Kfz-Versicherung ist …");
//  2. otherwise tinyld over all the languages it knows: one of the four, clearly, or 'simple'.
const FUNCTION_WORDS: Record<Language, ReadonlySet<string>> = {
  nl: new Set(['het', 'een', 'van', 'dat', 'op', 'te', 'zijn', 'met', 'voor', 'niet', 'aan', 'er', 'om', 'ook', 'als', 'bij', 'door', 'naar', 'wordt', 'worden', 'uw', 'je', 'ik', 'maar', 'dan', 'nog', 'deze', 'kan', 'heeft', 'hebben', 'wij', 'u']),
  en: new Set(['the', 'and', 'of', 'to', 'that', 'for', 'it', 'with', 'as', 'on', 'be', 'are', 'this', 'by', 'at', 'or', 'from', 'not', 'have', 'your', 'you', 'which', 'will', 'can', 'if', 'when', 'has', 'their', 'our']),
  fr: new Set(['le', 'la', 'les', 'et', 'un', 'une', 'est', 'que', 'qui', 'dans', 'pour', 'pas', 'sur', 'au', 'aux', 'avec', 'par', 'ce', 'cette', 'il', 'elle', 'vous', 'votre', 'vos', 'nous', 'sont', 'à', 'ou', 'être', 'plus', 'l', 'd', 'qu']),
  de: new Set(['der', 'das', 'und', 'ist', 'nicht', 'ein', 'eine', 'einer', 'einem', 'einen', 'den', 'dem', 'zu', 'mit', 'von', 'auf', 'für', 'im', 'sich', 'auch', 'es', 'sie', 'wird', 'werden', 'bei', 'oder', 'wenn', 'nach', 'zum', 'zur', 'aus', 'ihr', 'ihre', 'sind', 'kann', 'ich']),
};
const SAMPLE = 4000;
const NGRAM_SAMPLE = 1000;
// A language wins on function words with at least this many, and twice the runner-up's.
const MIN_FUNCTION_WORDS = 3;
// Below this tinyld score, or with fewer letters, the text is too short or too mixed to tell
// ("X-42 / 7." would otherwise be French).
const MIN_LANGUAGE_ACCURACY = 0.5;
const MIN_LETTERS = 12;

/** The configuration for a text: its language's, or 'simple' when unsure. */
export function textSearchConfig(text: string): string {
  const sample = text.length > SAMPLE ? text.slice(0, SAMPLE) : text;
  const counts = new Map<Language, number>(LANGUAGES.map((l) => [l, 0]));
  for (const word of sample.toLowerCase().match(/\p{L}+/gu) ?? []) {
    for (const language of LANGUAGES) if (FUNCTION_WORDS[language].has(word)) counts.set(language, counts.get(language)! + 1);
  }
  const [best, runnerUp] = [...counts].sort((a, b) => b[1] - a[1]);
  if (best![1] >= MIN_FUNCTION_WORDS && best![1] >= 2 * runnerUp![1]) return TS_CONFIGS[best![0]];
  if ((sample.match(/\p{L}/gu)?.length ?? 0) < MIN_LETTERS) return 'simple';
  const top = detectAll(sample.slice(0, NGRAM_SAMPLE))[0];
  const language = LANGUAGES.find((l) => l === top?.lang);
  return language && top!.accuracy >= MIN_LANGUAGE_ACCURACY ? TS_CONFIGS[language] : 'simple';
}
