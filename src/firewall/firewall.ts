// A request-scoped firewall: one vault for all the request's texts (messages, tool-call
// arguments, retrieved passages), per-message language detection when the language is 'auto', and
// restoration of the reply. Holds the originals in memory only; `stats()` is what may be logged.
import { languageMatters } from './detect.js';
import { guessLanguage } from './language.js';
import { maskJsonArguments, maskTextDetailed } from './mask.js';
import { createStreamRestorer, restoreJsonArguments, restoreText, type StreamRestorer } from './restore.js';
import { scanText } from './scan.js';
import type { EntityType, Language } from './types.js';
import { createVault, type Vault } from './vault.js';

export interface FirewallOptions {
  /** A fixed language, or 'auto' to detect it per text. Default 'auto'. */
  language?: Language | 'auto';
  /**
   * Language for texts too short to tell (and the first guess in a conversation); afterwards the
   * previous text's language is used. Default 'en'.
   */
  fallbackLanguage?: Language;
}

export interface FirewallStats {
  /** Masked occurrences per entity type. */
  counts: Partial<Record<EntityType, number>>;
  /** Distinct values per entity type. */
  distinct: Partial<Record<EntityType, number>>;
  /**
   * Languages detected, per text. With language 'auto', detection runs only for texts where the
   * language can change the result (see `languageMatters`); the others are counted as `skipped`.
   */
  languages: Partial<Record<Language | 'skipped', number>>;
}

export interface Firewall {
  readonly vault: Vault;
  /** The language used for the text, detected or fixed. */
  languageOf(text: string): Language;
  /** Masks a message text or a retrieved passage. */
  mask(text: string): string;
  /** Masks the string values of tool-call arguments (a JSON text). */
  maskToolArguments(json: string): string;
  /** Restores placeholders in a complete reply. */
  restore(text: string): string;
  /** Restores placeholders in complete tool-call arguments (values escaped for JSON). */
  restoreToolArguments(json: string): string;
  /** A restorer for one streamed field (one choice's content, or one tool call's arguments). */
  streamRestorer(kind?: 'text' | 'json'): StreamRestorer;
  stats(): FirewallStats;
}

export function createFirewall(options: FirewallOptions = {}): Firewall {
  const setting = options.language ?? 'auto';
  let previous: Language = options.fallbackLanguage ?? 'en';
  const vault = createVault();
  const languages: Partial<Record<Language | 'skipped', number>> = {};

  const languageOf = (text: string): Language => {
    if (setting !== 'auto') return setting;
    const g = guessLanguage(text, previous);
    previous = g.language;
    return g.language;
  };

  return {
    vault,
    languageOf,
    mask(text: string): string {
      if (text.length === 0) return text;
      // One pre-scan serves the language decision and every recognizer.
      const scan = scanText(text);
      let lang: Language;
      if (setting === 'auto' && !languageMatters(text, scan)) {
        // No national phone number and no French "M.": the language would change nothing, so it
        // is not detected.
        lang = previous;
        languages.skipped = (languages.skipped ?? 0) + 1;
      } else {
        lang = languageOf(text);
        languages[lang] = (languages[lang] ?? 0) + 1;
      }
      return maskTextDetailed(text, lang, vault, scan).text;
    },
    maskToolArguments(json: string): string {
      if (setting !== 'auto') return maskJsonArguments(json, setting, vault);
      if (!languageMatters(json)) return maskJsonArguments(json, previous, vault);
      return maskJsonArguments(json, 'auto', vault, previous);
    },
    restore: (text) => restoreText(text, vault),
    restoreToolArguments: (json) => restoreJsonArguments(json, vault),
    streamRestorer: (kind = 'text') => createStreamRestorer(vault, { json: kind === 'json' }),
    stats: () => ({ counts: vault.counts(), distinct: vault.distinctCounts(), languages: { ...languages } }),
  };
}
