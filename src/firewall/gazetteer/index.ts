// Name gazetteer, loaded once from the generated first-names.json (see build.mjs): first names
// per language, plus the surnames of the same faker locales as supporting evidence. The service
// never imports @faker-js/faker itself.
import { readFileSync } from 'node:fs';
import { fromRoot } from '../../paths.js';
import type { Language } from '../types.js';

interface GazetteerFile {
  $comment: string;
  firstNames: Record<Language, string[]>;
  lastNames: Record<Language, string[]>;
}

export const GAZETTEER_PATH = fromRoot('src/firewall/gazetteer/first-names.json');

interface Loaded {
  byLanguage: Record<Language, ReadonlySet<string>>;
  any: ReadonlySet<string>;
  lastNames: ReadonlySet<string>;
  /** The same in lower case, for chat written in lower case ("thijs visser"). */
  anyLower: ReadonlySet<string>;
  lastNamesLower: ReadonlySet<string>;
}

let cache: Loaded | null = null;

function load(): Loaded {
  if (cache) return cache;
  const file = JSON.parse(readFileSync(GAZETTEER_PATH, 'utf8')) as GazetteerFile;
  const any = new Set<string>();
  const lastNames = new Set<string>();
  const byLanguage = {} as Record<Language, ReadonlySet<string>>;
  for (const lang of ['nl', 'en', 'fr', 'de'] as const) {
    const names = file.firstNames[lang] ?? [];
    byLanguage[lang] = new Set(names);
    for (const n of names) any.add(n);
    for (const n of file.lastNames?.[lang] ?? []) lastNames.add(n);
  }
  const lower = (names: Set<string>) => new Set([...names].map((n) => n.toLowerCase()));
  cache = { byLanguage, any, lastNames, anyLower: lower(any), lastNamesLower: lower(lastNames) };
  return cache;
}

/** Whether `token` (as written, capitalised) is a known first name in any of the four languages. */
export function isKnownFirstName(token: string): boolean {
  return load().any.has(token);
}

/** Whether `token` is a surname in the faker locales of the four languages ("Jansen", "Müller"). */
export function isKnownLastName(token: string): boolean {
  return load().lastNames.has(token);
}

/** Whether `word`, in lower case, is a known first name written in lower case ("thijs"). */
export function isKnownFirstNameLower(word: string): boolean {
  return load().anyLower.has(word);
}

/** Whether `word`, in lower case, is a known surname written in lower case ("visser"). */
export function isKnownLastNameLower(word: string): boolean {
  return load().lastNamesLower.has(word);
}

export function firstNamesOf(language: Language): ReadonlySet<string> {
  return load().byLanguage[language];
}

/** Loads the file now (the first scan would otherwise pay for it). */
export function preloadGazetteer(): void {
  load();
}
