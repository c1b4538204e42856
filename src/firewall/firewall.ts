// A request-scoped firewall: one vault for all the request's texts (messages, tool-call
// arguments, retrieved passages), per-message language detection when the language is 'auto', and
// restoration of the reply. Holds the originals in memory only; `stats()` is what may be logged.
//
// Its cost is bounded: every recognizer is linear in the text, their costly steps draw on one work
// budget per request (budget.ts), and long texts are read in slices (slices.ts). The asynchronous
// methods give the event loop its turn after every slice's worth of text, so that a long prompt
// never holds the process for more than a few milliseconds at a time.
import { WorkBudget } from './budget.js';
import { languageMatters } from './detect.js';
import { guessLanguage } from './language.js';
import { maskJsonSteps, maskSteps } from './mask.js';
import { createStreamRestorer, restoreJsonArguments, restoreText, type StreamRestorer } from './restore.js';
import { scanText } from './scan.js';
import { detectSliced, giveWay, runSteps, runStepsAsync, SLICE_CHARS, type Steps } from './slices.js';
import type { EntityType, Language } from './types.js';
import { createVault, normalizeValue, type Vault } from './vault.js';
import { isKnownFirstName, isKnownLastName } from './gazetteer/index.js';
import { isNonNameWord } from './words.js';

export interface FirewallOptions {
  /** A fixed language, or 'auto' to detect it per text. Default 'auto'. */
  language?: Language | 'auto';
  /**
   * Language for texts too short to tell (and the first guess in a conversation); afterwards the
   * previous text's language is used. Default 'en'.
   */
  fallbackLanguage?: Language;
  /** How the asynchronous methods give the event loop its turn (tests count the pauses). */
  pause?: () => Promise<void>;
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
  /** `mask`, giving the event loop its turn between slices of a long text. */
  maskAsync(text: string): Promise<string>;
  /** Masks the strings of tool-call arguments (a JSON text). */
  maskToolArguments(json: string): string;
  /** `maskToolArguments`, giving the event loop its turn between slices. */
  maskToolArgumentsAsync(json: string): Promise<string>;
  /**
   * Masks a label that leaves as one piece (a message's `name`): read with `_` and `-` as spaces,
   * and, when it holds personal data, replaced whole by a placeholder without brackets
   * (`PERSON_1`), which OpenAI's name pattern (letters, digits, `_`, `-`) still accepts.
   */
  maskLabel(label: string): string;
  /** Restores placeholders in a complete reply. */
  restore(text: string): string;
  /** Restores placeholders in complete tool-call arguments (values escaped for JSON). */
  restoreToolArguments(json: string): string;
  /** A restorer for one streamed field (one choice's content, or one tool call's arguments). */
  streamRestorer(kind?: 'text' | 'json'): StreamRestorer;
  stats(): FirewallStats;
}

// Label characters read as spaces, so that "noor_de_vries" reads as the name it is.
const LABEL_SEPARATORS = /[_-]/g;
const PARTICLES = new Set(['van', 'de', 'der', 'den', 'von', 'vom', 'zu', 'ter', 'ten', 'te', 'le', 'la', 'du', 'des', 'di', 'da', 'del']);

/** Words capitalised, particles not: labels are often written in lower case ("noor_de_vries"). */
function capitalised(text: string): string {
  return text.replace(/\p{L}+/gu, (w) => (PARTICLES.has(w) ? w : w[0]!.toUpperCase() + w.slice(1)));
}

/**
 * What personal data a label holds, as one entity: what the recognizers find in it (read as
 * written and capitalised), or else a word that is a known first name or surname — a label is
 * mostly a participant's name, and a name alone in it has no sentence around it to tell.
 */
function labelEntity(label: string, language: Language, budget: WorkBudget): { type: EntityType; normalized: string } | null {
  const spaced = label.replace(LABEL_SEPARATORS, ' ');
  const upper = capitalised(spaced);
  for (const text of upper === spaced ? [spaced] : [spaced, upper]) {
    const d = runSteps(detectSliced(text, language, budget))[0];
    if (d === undefined) continue;
    // A label that is all one value joins that value's placeholder in the messages.
    const whole = d.start === 0 && d.end === text.length;
    return { type: d.type, normalized: normalizeValue(d.type, whole ? d.text : spaced) };
  }
  const words = upper.match(/\p{L}{2,}/gu) ?? [];
  if (words.some((w) => !isNonNameWord(w) && (isKnownFirstName(w) || isKnownLastName(w)))) {
    return { type: 'PERSON', normalized: normalizeValue('PERSON', spaced) };
  }
  return null;
}

export function createFirewall(options: FirewallOptions = {}): Firewall {
  const setting = options.language ?? 'auto';
  const pause = options.pause ?? giveWay;
  let previous: Language = options.fallbackLanguage ?? 'en';
  const vault = createVault();
  const budget = new WorkBudget();
  const languages: Partial<Record<Language | 'skipped', number>> = {};
  // Characters masked since the event loop last had its turn: short texts are not paused after
  // each one (a chat of a few messages never pauses), only once a slice's worth has been read.
  let unpaused = 0;

  const languageOf = (text: string): Language => {
    if (setting !== 'auto') return setting;
    const g = guessLanguage(text, previous);
    previous = g.language;
    return g.language;
  };

  const count = (lang: Language | 'skipped') => {
    languages[lang] = (languages[lang] ?? 0) + 1;
  };

  function* maskTextSteps(text: string): Steps<string> {
    if (text.length === 0) return text;
    if (text.length > SLICE_CHARS) {
      // Long texts are detected slice by slice; the language is read from their start anyway.
      const lang = languageOf(text);
      count(lang);
      return (yield* maskSteps(text, lang, vault, budget)).text;
    }
    // One pre-scan serves the language decision and every recognizer.
    const scan = scanText(text);
    let lang: Language;
    if (setting === 'auto' && !languageMatters(text, scan)) {
      // No national phone number and no French "M.": the language would change nothing, so it
      // is not detected.
      lang = previous;
      count('skipped');
    } else {
      lang = languageOf(text);
      count(lang);
    }
    return (yield* maskSteps(text, lang, vault, budget, scan)).text;
  }

  function* maskJson(json: string): Steps<string> {
    if (setting !== 'auto') return yield* maskJsonSteps(json, setting, vault, budget);
    if (json.length <= SLICE_CHARS && !languageMatters(json)) return yield* maskJsonSteps(json, previous, vault, budget);
    return yield* maskJsonSteps(json, 'auto', vault, budget, previous);
  }

  async function paced<T>(steps: Steps<T>, length: number): Promise<T> {
    if (length > SLICE_CHARS) {
      const out = await runStepsAsync(steps, pause);
      unpaused = 0;
      await pause();
      return out;
    }
    const out = runSteps(steps);
    unpaused += length;
    if (unpaused >= SLICE_CHARS) {
      unpaused = 0;
      await pause();
    }
    return out;
  }

  return {
    vault,
    languageOf,
    mask: (text) => runSteps(maskTextSteps(text)),
    maskAsync: (text) => paced(maskTextSteps(text), text.length),
    maskToolArguments: (json) => runSteps(maskJson(json)),
    maskToolArgumentsAsync: (json) => paced(maskJson(json), json.length),
    maskLabel(label: string): string {
      const found = labelEntity(label, languageOf(label), budget);
      if (found === null) return label;
      // The vault keeps the label as written; a label that is just a name shares the placeholder
      // of that name in the messages.
      return vault.placeholderFor({ type: found.type, text: label, normalized: found.normalized }).slice(1, -1);
    },
    restore: (text) => restoreText(text, vault),
    restoreToolArguments: (json) => restoreJsonArguments(json, vault),
    streamRestorer: (kind = 'text') => createStreamRestorer(vault, { json: kind === 'json' }),
    stats: () => ({ counts: vault.counts(), distinct: vault.distinctCounts(), languages: { ...languages } }),
  };
}
