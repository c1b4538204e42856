// A request-scoped firewall: one vault for all the request's texts (messages, tool-call
// arguments, retrieved passages), per-message language detection when the language is 'auto', and
// restoration of the reply. Holds the originals in memory only; `stats()` is what may be logged.
//
// Its cost is bounded: every recognizer is linear in the text, their costly steps draw on one work
// budget per request (budget.ts), and long texts are read in slices (slices.ts). The asynchronous
// methods give the event loop its turn after every slice's worth of text, so that a long prompt
// never holds the process for more than a few milliseconds at a time.
import { createHash } from 'node:crypto';
import { WorkBudget } from './budget.js';
import { languageMatters, repeatIndex } from './detect.js';
import { labelEntity, maskSeparated, maskUrlSteps } from './fields.js';
import { preloadGazetteer } from './gazetteer/index.js';
import { guessLanguage } from './language.js';
import { maskJsonSteps, maskRepeatsSteps, maskShort, maskSteps, withPlaceholders, type MaskResult } from './mask.js';
import { createStreamRestorer, restoreJsonArguments, restoreText, type StreamRestorer } from './restore.js';
import { scanText, type TextScan } from './scan.js';
import { giveWay, runSteps, runStepsAsync, SLICE_CHARS, type Steps } from './slices.js';
import type { Detection, EntityType, Language } from './types.js';
import { createVault, type Vault } from './vault.js';

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
   * Texts masked from what was found in them before (decision 0012) are counted as `remembered`.
   */
  languages: Partial<Record<Language | 'skipped' | 'remembered', number>>;
}

export interface Firewall {
  readonly vault: Vault;
  /** The language used for the text, detected or fixed. */
  languageOf(text: string): Language;
  /** Masks a message text or a retrieved passage. */
  mask(text: string): string;
  /**
   * `mask`, giving the event loop its turn between slices of a long text. A long text found
   * without personal data before (an agent's history, resent every turn) is not read again.
   */
  maskAsync(text: string): Promise<string>;
  /**
   * `maskAsync` for a text that recurs unchanged across requests (tool descriptions: an agent sends
   * the same tens of kilobytes with every turn). What was found in it is remembered (by its hash,
   * with the language state that decided it), and the text is not read again.
   */
  maskRecurring(text: string): Promise<string>;
  /** Masks the strings of tool-call arguments (a JSON text). */
  maskToolArguments(json: string): string;
  /** `maskToolArguments`, giving the event loop its turn between slices. */
  maskToolArgumentsAsync(json: string): Promise<string>;
  /**
   * Masks a label that leaves as one piece (a message's `name`): read with `_` and `-` as spaces,
   * and, when it holds personal data, replaced whole by a placeholder without brackets
   * (`PERSON_1`), which OpenAI's name pattern (letters, digits, `_`, `-`) still accepts.
   */
  maskLabel(label: string): Promise<string>;
  /**
   * Masks a file name in place, read with `_` and `-` as spaces and in capitals
   * ("noor_de_vries_cv.pdf" → "[PERSON_1]_cv.pdf").
   */
  maskFileName(name: string): Promise<string>;
  /**
   * Masks the personal parts of a URL that is not a data URL: the user name and password, each
   * path segment, each query key and value, and the fragment, read decoded; the scheme and host
   * stay. Text that is not a URL is masked as a file name is.
   */
  maskUrl(url: string): Promise<string>;
  /**
   * Once every text of a request has been masked: a function that masks, in any of them, the
   * values the vault holds from the others, written again where nothing says what they are ("Klantnummer:
   * 88123456" in one message, "kunt u 88123456 opzoeken?" in the next), as `detect.ts` does within
   * one text. It looks for the values held when it was made.
   */
  heldValuesMasker(): (text: string) => Promise<string>;
  /** Restores placeholders in a complete reply. */
  restore(text: string): string;
  /** `restore` (or `restoreToolArguments` for 'json'), giving the event loop its turn between slices of a long reply. */
  restoreAsync(text: string, kind?: 'text' | 'json'): Promise<string>;
  /** Restores placeholders in complete tool-call arguments (values escaped for JSON). */
  restoreToolArguments(json: string): string;
  /** A restorer for one streamed field (one choice's content, or one tool call's arguments). */
  streamRestorer(kind?: 'text' | 'json'): StreamRestorer;
  stats(): FirewallStats;
}

// Texts read before, by a hash of the text, the language setting and the language carried in: what
// was found in each, and the language carried on after it. Detection depends on nothing else (but
// the work budget, which only ever makes it mask more), so a hit masks as reading the text again
// would. Two kinds are kept: recurring definitions (tool descriptions) with what was found in them,
// and long message texts in which nothing was found — an agent resends its whole history every turn,
// and a text without personal data can be remembered without holding any. What was found in a
// definition stays in this process's memory only, reachable by one who sends the same text.
// Bounded; the oldest goes first.
const REMEMBERED = new Map<string, { detections: Detection[]; after: Language }>();
const REMEMBERED_MAX = 8192;
/** Shorter definitions are read faster than hashed. */
const RECURRING_MIN_CHARS = 24;
/** Message texts from this long are looked up; most chat messages are shorter and read at once. */
const CLEAN_MIN_CHARS = 512;

export function createFirewall(options: FirewallOptions = {}): Firewall {
  const setting = options.language ?? 'auto';
  const pause = options.pause ?? giveWay;
  let previous: Language = options.fallbackLanguage ?? 'en';
  const vault = createVault();
  const budget = new WorkBudget();
  const languages: FirewallStats['languages'] = {};
  // Characters masked since the event loop last had its turn: short texts are not paused after
  // each one (a chat of a few messages never pauses), only once a slice's worth has been read.
  let unpaused = 0;

  const languageOf = (text: string): Language => {
    if (setting !== 'auto') return setting;
    const g = guessLanguage(text, previous);
    previous = g.language;
    return g.language;
  };

  const count = (lang: keyof FirewallStats['languages']) => {
    languages[lang] = (languages[lang] ?? 0) + 1;
  };

  /** The language for a text of at most one slice, from its pre-scan. */
  const shortLanguage = (text: string, scan: TextScan): Language => {
    if (setting === 'auto' && !languageMatters(text, scan)) {
      // No national phone number and no French "M.": the language would change nothing, so it
      // is not detected.
      count('skipped');
      return previous;
    }
    const lang = languageOf(text);
    count(lang);
    return lang;
  };

  /** Masks a text of at most one slice in one go: no generator, which would cost more than the masking. */
  const maskShortText = (text: string): MaskResult => {
    if (text.length === 0) return { text, detections: [] };
    // One pre-scan serves the language decision and every recognizer.
    const scan = scanText(text);
    return maskShort(text, shortLanguage(text, scan), vault, budget, scan);
  };

  function* maskTextSteps(text: string): Steps<MaskResult> {
    if (text.length <= SLICE_CHARS) return maskShortText(text);
    // Long texts are detected slice by slice; the language is read from their start anyway.
    const lang = languageOf(text);
    count(lang);
    return yield* maskSteps(text, lang, vault, budget);
  }

  async function maskDetailedAsync(text: string): Promise<MaskResult> {
    if (text.length > SLICE_CHARS) return paced(maskTextSteps(text), text.length);
    const out = maskShortText(text);
    await pacedShort(text.length);
    return out;
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
    await pacedShort(length);
    return out;
  }

  /** Counts a short text masked; pauses once a slice's worth has been masked since the last pause. */
  async function pacedShort(length: number): Promise<void> {
    unpaused += length;
    if (unpaused >= SLICE_CHARS) {
      unpaused = 0;
      await pause();
    }
  }

  /** Masks a text read before from what was found then; remembers what it finds (`keepFound`) or that it found nothing. */
  async function maskRemembered(text: string, keepFound: boolean): Promise<string> {
    const key = createHash('sha256').update(`${setting}\0${previous}\0`).update(text).digest('base64');
    const known = REMEMBERED.get(key);
    if (known !== undefined) {
      REMEMBERED.delete(key);
      REMEMBERED.set(key, known);
      previous = known.after;
      count('remembered');
      // This request's vault numbers the placeholders, as reading the text again would.
      return withPlaceholders(text, known.detections, vault);
    }
    const { text: masked, detections } = await maskDetailedAsync(text);
    if (keepFound || detections.length === 0) {
      REMEMBERED.set(key, { detections, after: previous });
      if (REMEMBERED.size > REMEMBERED_MAX) REMEMBERED.delete(REMEMBERED.keys().next().value!);
    }
    return masked;
  }

  return {
    vault,
    languageOf,
    // Each masks only after the placeholders the text holds as written are kept out of the numbering (vault.ts).
    mask: (text) => (vault.reserveWritten(text), text.length <= SLICE_CHARS ? maskShortText(text) : runSteps(maskTextSteps(text))).text,
    async maskAsync(text: string): Promise<string> {
      vault.reserveWritten(text);
      return text.length < CLEAN_MIN_CHARS ? (await maskDetailedAsync(text)).text : maskRemembered(text, false);
    },
    async maskRecurring(text: string): Promise<string> {
      vault.reserveWritten(text);
      return text.length < RECURRING_MIN_CHARS ? (await maskDetailedAsync(text)).text : maskRemembered(text, true);
    },
    maskToolArguments: (json) => (vault.reserveWritten(json), runSteps(maskJson(json))),
    maskToolArgumentsAsync: (json) => (vault.reserveWritten(json), paced(maskJson(json), json.length)),
    async maskLabel(label: string): Promise<string> {
      vault.reserveWritten(label);
      const found = await paced(labelEntity(label, languageOf(label), budget), label.length);
      if (found === null) return label;
      // The vault keeps the label as written; a label that is just a name shares the placeholder
      // of that name in the messages.
      return vault.placeholderFor({ type: found.type, text: label, normalized: found.normalized }, true).slice(1, -1);
    },
    maskFileName: (name) => (vault.reserveWritten(name), paced(maskSeparated(name, languageOf(name), vault, budget), name.length)),
    maskUrl: (url) => (vault.reserveWritten(url), paced(maskUrlSteps(url, (part) => maskSeparated(part, languageOf(part), vault, budget)), url.length)),
    heldValuesMasker() {
      const index = repeatIndex(vault.heldValues(), { nameParts: false });
      return async (text: string) => (index === null ? text : paced(maskRepeatsSteps(text, index, vault), text.length));
    },
    restore: (text) => restoreText(text, vault),
    async restoreAsync(text: string, kind: 'text' | 'json' = 'text'): Promise<string> {
      if (text.length <= SLICE_CHARS || vault.size === 0) return kind === 'json' ? restoreJsonArguments(text, vault) : restoreText(text, vault);
      // A stream restorer gives what restoreText gives for any split of the text (restore.ts).
      const restorer = createStreamRestorer(vault, { json: kind === 'json' });
      const parts: string[] = [];
      for (let at = 0; at < text.length; at += SLICE_CHARS) {
        parts.push(restorer.push(text.slice(at, at + SLICE_CHARS)));
        await pause();
      }
      parts.push(restorer.flush());
      return parts.join('');
    },
    restoreToolArguments: (json) => restoreJsonArguments(json, vault),
    streamRestorer: (kind = 'text') => createStreamRestorer(vault, { json: kind === 'json' }),
    stats: () => ({ counts: vault.counts(), distinct: vault.distinctCounts(), languages: { ...languages } }),
  };
}

// Every recognizer at work, in the four languages: what a first request would otherwise pay for
// (the language model's tables, libphonenumber's metadata, the regexes' prefix sets, and code not
// yet compiled, which made the first long prompt's slices several times slower).
const WARM_UP_TEXT = [
  'Mijn naam is Noor de Vries, mail noor.devries@example.nl of bel 06-12345678. IBAN NL91 ABNA 0417 1643 00, BSN 111222333.',
  'Keizersgracht 123, 1015 CJ Amsterdam. Geboren op 12-03-1985. Groeten,\nPieter Jansen',
  'Dear Mr John Smith, call +44 20 7946 0018 or write to 221B Baker Street, London NW1 6XE. Card 4111 1111 1111 1111.',
  "Je m'appelle Émile Dupont, né le 3 mars 1990, tél. 01 42 68 53 00, 12 rue de la Paix, 75002 Paris.",
  'Ich heiße Anna Müller, Hauptstraße 5a, 10115 Berlin, Steuer-ID 86095742719, Handy 0151 23456789. Server 192.168.1.10, 2a02::1.',
].join('\n');

/**
 * Loads the name lists and runs every recognizer over some 50 KB, enough for V8 to compile the
 * firewall's code (the first long prompt's slices took three to five times longer than later ones);
 * called when the web process builds its app, once a process (a few hundred milliseconds).
 */
const WARM_UP_CHARS = 50_000;
let warm = false;

export function warmUpFirewall(): void {
  if (warm) return;
  warm = true;
  preloadGazetteer();
  const fw = createFirewall({ language: 'auto' });
  let text = '';
  while (text.length < WARM_UP_CHARS) text += `${WARM_UP_TEXT}\n`;
  fw.restore(fw.mask(text));
  fw.restoreToolArguments(fw.maskToolArguments(JSON.stringify({ text: WARM_UP_TEXT })));
}
