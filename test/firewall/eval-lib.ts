// Evaluation harness for the firewall recognizers over the labelled set in
// test/fixtures/firewall/. Shared by eval.test.ts and bench/firewall.ts (which prints the tables
// per type and language), and usable from a REPL:
//   node -e "import('./dist/test/firewall/eval-lib.js').then(m => console.log(m.formatReport(m.evaluateAll())))"
import { readFileSync } from 'node:fs';
import { detectEntities } from '../../src/firewall/detect.js';
import { detectLanguage } from '../../src/firewall/language.js';
import { ENTITY_TYPES, LANGUAGES, type Detection, type EntityType, type Language } from '../../src/firewall/types.js';
import { fromRoot } from '../../src/paths.js';

export interface GoldEntity {
  type: EntityType;
  value: string;
}

export interface Snippet {
  id: string;
  lang: Language;
  text: string;
  entities: GoldEntity[];
}

export interface Conversation {
  id: string;
  messages: Array<{ lang: Language; text: string; entities: GoldEntity[] }>;
}

export const FIXTURE_DIR = fromRoot('test/fixtures/firewall');
export const SNIPPET_FILES = ['nl.jsonl', 'en.jsonl', 'fr.jsonl', 'de.jsonl'];

function readJsonl<T>(file: string): T[] {
  return readFileSync(`${FIXTURE_DIR}/${file}`, 'utf8')
    .split('\n')
    .filter((l) => l.trim())
    .map((l) => JSON.parse(l) as T);
}

export function loadSnippets(): Snippet[] {
  return SNIPPET_FILES.flatMap((f) => readJsonl<Snippet>(f));
}

export function loadConversations(): Conversation[] {
  return readJsonl<Conversation>('conversations.jsonl');
}

interface Span {
  type: EntityType;
  start: number;
  end: number;
}

/** Gold spans: each value located in order of listing (the same value twice → two occurrences). */
export function goldSpans(text: string, entities: GoldEntity[]): Span[] {
  const used: Span[] = [];
  for (const e of entities) {
    let from = 0;
    for (;;) {
      const at = text.indexOf(e.value, from);
      if (at < 0) throw new Error(`gold value ${JSON.stringify(e.value)} not in ${JSON.stringify(text)}`);
      const span = { type: e.type, start: at, end: at + e.value.length };
      if (!used.some((u) => u.start === span.start && u.type === span.type)) {
        used.push(span);
        break;
      }
      from = at + 1;
    }
  }
  return used;
}

function iou(a: Span, b: Span): number {
  const inter = Math.max(0, Math.min(a.end, b.end) - Math.max(a.start, b.start));
  const union = Math.max(a.end, b.end) - Math.min(a.start, b.start);
  return union === 0 ? 0 : inter / union;
}

export interface TypeCounts {
  tp: number;
  fp: number;
  fn: number;
  exact: number;
}

export interface Miss {
  id: string;
  kind: 'FP' | 'FN';
  type: EntityType;
  value: string;
  text: string;
}

/** One labelled entity and whether a detection matched it. */
export interface GoldResult {
  id: string;
  /** The labelled language of the snippet or message. */
  lang: Language;
  type: EntityType;
  value: string;
  hit: boolean;
  /** For PERSON: what introduces the name in the text (see `nameCue`); null for the others. */
  cue: NameCue | null;
}

export interface Report {
  perType: Record<EntityType, TypeCounts>;
  /** The same counts split by the labelled language of the snippet or message. */
  perTypeLanguage: Record<EntityType, Record<Language, TypeCounts>>;
  overall: TypeCounts;
  /** Every labelled entity with its outcome (for groups such as "names with a cue"). */
  gold: GoldResult[];
  misses: Miss[];
  snippets: number;
  messages: number;
  languageCorrect: number;
  languageTotal: number;
}

/** A detection matches a gold entity of the same type when their spans overlap with IoU ≥ 0.5. */
export const MIN_IOU = 0.5;

function score(report: Report, id: string, lang: Language, text: string, gold: Span[], found: Detection[]): void {
  const matched = new Set<number>();
  const goldHit = new Set<number>();
  gold.forEach((g, gi) => {
    let best = -1;
    let bestIou = 0;
    found.forEach((d, di) => {
      if (matched.has(di) || d.type !== g.type) return;
      const v = iou(g, d);
      if (v >= MIN_IOU && v > bestIou) {
        best = di;
        bestIou = v;
      }
    });
    if (best >= 0) {
      matched.add(best);
      goldHit.add(gi);
      for (const c of [report.perType[g.type], report.perTypeLanguage[g.type][lang]]) {
        c.tp++;
        if (bestIou === 1) c.exact++;
      }
    }
  });
  gold.forEach((g, gi) => {
    const value = text.slice(g.start, g.end);
    const hit = goldHit.has(gi);
    report.gold.push({ id, lang, type: g.type, value, hit, cue: g.type === 'PERSON' ? nameCue(text, g.start) : null });
    if (hit) return;
    report.perType[g.type].fn++;
    report.perTypeLanguage[g.type][lang].fn++;
    report.misses.push({ id, kind: 'FN', type: g.type, value, text });
  });
  found.forEach((d, di) => {
    if (matched.has(di)) return;
    report.perType[d.type].fp++;
    report.perTypeLanguage[d.type][lang].fp++;
    report.misses.push({ id, kind: 'FP', type: d.type, value: d.text, text });
  });
}

/** 'title' when a form of address stands right before the name, 'cue' for another introducing phrase. */
export type NameCue = 'title' | 'cue';

// What counts as "a name with a cue or title" for the targets (recall ≥ 0.90 on such names). This
// is the evaluation's own definition, written independently of the person recognizer's regexes:
// the words right before the name on its line end with a form of address, or with a phrase that
// conventionally introduces a person (introductions, field labels, greetings and thanks, sign-offs,
// family and colleague relations, "for the attention of" / "on behalf of" / account-holder
// phrases); or the name opens the line after a sign-off line (a signature).
const TITLE_BEFORE =
  /(?:^|[^\p{L}])(?:dhr|mevr|mw|mevrouw|meneer|heer|mr|mrs|ms|miss|mx|dr|drs|ir|prof|sir|dame|herrn?|frau|hr|fr|m|mme|mlle|monsieur|madame|mademoiselle|ma[iî]tre)\.?[ \u00a0]+$/iu;
const CUE_BEFORE = new RegExp(
  '(?:^|[^\\p{L}])(?:' +
    [
      // introductions
      'mijn naam is', 'ik heet', 'ze heet', 'hij heet', 'ik ben', 'dit is', 'hier is', 'my name is', "i['’]m", 'i am', 'this is', "it['’]s",
      "je m['’]appelle", 'je suis', "c['’]est", 'ich hei(?:ß|ss)e', 'ich bin', 'mein name ist', 'hier ist',
      // field labels
      '(?:voor|achter)?naam', '(?:first |last |full |sur)?name', '(?:pr[ée])?nom', '(?:vor|nach|familien)?name', 'klant', 'kunde', 'client',
      'customer', 'patient(?:e|in)?', 'contact(?:persoon|person)?', 'ansprechpartner(?:in)?',
      // greetings and thanks
      'hi', 'hoi', 'hey', 'hallo', 'hello', 'dear', 'beste', 'lieve', 'geachte', 'liebe', 'lieber', 'bonjour', 'bonsoir', 'salut', 'cher', 'chère',
      'thanks', 'thank you', 'merci', 'danke', 'bedankt',
      // sign-offs on the same line
      'groeten', 'groetjes(?: van)?', 'regards', 'best', 'cheers', 'bisous', 'lg', 'vg', 'mfg', 'cordialement', 'sincerely',
      // relations
      'mijn (?:\\p{L}+ )?(?:collega|vriend|vriendin|man|vrouw|zoon|dochter|broer|zus|moeder|vader|partner)',
      'my (?:colleague|friend|husband|wife|son|daughter|brother|sister|mother|father|partner|manager)',
      'mon (?:collègue|ami|mari|fils|frère|père)', 'ma (?:collègue|amie|femme|fille|sœur|soeur|mère)',
      'meine[mnr]? (?:kollegin|kollege|freundin|freund|mann|frau|sohn|tochter|bruder|schwester|mutter|vater)',
      'mein (?:kollege|mann|sohn|bruder|vater|freund)',
      // for the attention of, on behalf of, account holders
      't\\.\\s?n\\.\\s?v\\.?', 't\\.\\s?a\\.\\s?v\\.?', 'z\\.\\s?hd\\.?', 'c/o', 'attn', 'attention(?: of)?', "à l['’]attention de",
      'au nom de', 'namens', 'im auftrag von', 'on behalf of', 'account holder(?: is)?', 'rekeninghouder', 'kontoinhaber(?:in)?(?: ist)?',
      'titulaire(?: du compte)?',
    ].join('|') +
    ')[ \\u00a0,:!.]*$',
  'iu',
);
const SIGNOFF_LINE =
  /^[ \t]*(?:(?:met )?vriendelijke groet(?:en)?|(?:hartelijke )?groet(?:en|jes)?|mvg|(?:kind |best |warm )?regards|best(?: wishes)?|cheers|(?:many )?thanks|thank you|(?:yours )?sincerely|(?:bien )?cordialement|bien à vous|salutations(?: distinguées)?|bisous|amitiés|mit freundlichen grüßen|(?:viele|beste|liebe|herzliche) grüße|lg|mfg|vg|gruß|grüße)[ \t]*[,!.]?[ \t]*$/iu;

/** What introduces the name starting at `start` in `text`, if anything (see above). */
export function nameCue(text: string, start: number): NameCue | null {
  const lineStart = text.lastIndexOf('\n', start - 1) + 1;
  const before = text.slice(lineStart, start);
  if (TITLE_BEFORE.test(before)) return 'title';
  if (CUE_BEFORE.test(before)) return 'cue';
  if (before.trim() === '' && lineStart > 0) {
    const prevStart = text.lastIndexOf('\n', lineStart - 2) + 1;
    if (SIGNOFF_LINE.test(text.slice(prevStart, lineStart - 1))) return 'cue';
  }
  return null;
}

export function evaluateAll(): Report {
  const perType = Object.fromEntries(ENTITY_TYPES.map((t) => [t, { tp: 0, fp: 0, fn: 0, exact: 0 }])) as Record<
    EntityType,
    TypeCounts
  >;
  const perTypeLanguage = Object.fromEntries(
    ENTITY_TYPES.map((t) => [t, Object.fromEntries(LANGUAGES.map((l) => [l, { tp: 0, fp: 0, fn: 0, exact: 0 }]))]),
  ) as Record<EntityType, Record<Language, TypeCounts>>;
  const report: Report = {
    perType,
    perTypeLanguage,
    overall: { tp: 0, fp: 0, fn: 0, exact: 0 },
    gold: [],
    misses: [],
    snippets: 0,
    messages: 0,
    languageCorrect: 0,
    languageTotal: 0,
  };
  for (const s of loadSnippets()) {
    report.snippets++;
    // The snippet's own language plays the workspace setting: the fallback for texts too short
    // to tell. The recognizers run with the detected language, as in production with "auto".
    const lang = detectLanguage(s.text, s.lang);
    report.languageTotal++;
    if (lang === s.lang) report.languageCorrect++;
    score(report, s.id, s.lang, s.text, goldSpans(s.text, s.entities), detectEntities(s.text, lang));
  }
  for (const c of loadConversations()) {
    let previous: Language = 'en';
    c.messages.forEach((m, i) => {
      report.messages++;
      const lang = detectLanguage(m.text, previous);
      previous = lang;
      report.languageTotal++;
      if (lang === m.lang) report.languageCorrect++;
      score(report, `${c.id}#${i}`, m.lang, m.text, goldSpans(m.text, m.entities), detectEntities(m.text, lang));
    });
  }
  for (const c of Object.values(perType)) {
    report.overall.tp += c.tp;
    report.overall.fp += c.fp;
    report.overall.fn += c.fn;
    report.overall.exact += c.exact;
  }
  return report;
}

export function precision(c: TypeCounts): number {
  return c.tp + c.fp === 0 ? 1 : c.tp / (c.tp + c.fp);
}

export function recall(c: TypeCounts): number {
  return c.tp + c.fn === 0 ? 1 : c.tp / (c.tp + c.fn);
}

/** Harmonic mean of precision and recall (micro-averaged when `c` sums several types). */
export function f1(c: TypeCounts): number {
  const p = precision(c);
  const r = recall(c);
  return p + r === 0 ? 0 : (2 * p * r) / (p + r);
}

/** Sums counts (micro-averaging). */
export function sumCounts(list: Iterable<TypeCounts>): TypeCounts {
  const out: TypeCounts = { tp: 0, fp: 0, fn: 0, exact: 0 };
  for (const c of list) {
    out.tp += c.tp;
    out.fp += c.fp;
    out.fn += c.fn;
    out.exact += c.exact;
  }
  return out;
}

/** The identifiers whose detection rests on check digits. */
export const CHECKSUM_TYPES: readonly EntityType[] = ['IBAN', 'CARD', 'BSN', 'NIR', 'STEUER_ID', 'BE_NATIONAL_NUMBER', 'DNI', 'CODICE_FISCALE', 'PESEL', 'NHS_NUMBER'];

/** Counts over the checksum-backed identifiers. */
export function checksumGroup(r: Report): TypeCounts {
  return sumCounts(CHECKSUM_TYPES.map((t) => r.perType[t]));
}

/** Labelled names with a cue or title (`nameCue`), and how many of them were found. */
export function cuedNames(r: Report): { total: number; found: number; recall: number } {
  const names = r.gold.filter((g) => g.type === 'PERSON' && g.cue !== null);
  const found = names.filter((g) => g.hit).length;
  return { total: names.length, found, recall: names.length === 0 ? 1 : found / names.length };
}

export function formatReport(r: Report): string {
  const pct = (x: number) => (100 * x).toFixed(1).padStart(6);
  const rows = [
    `${'type'.padEnd(20)} ${'gold'.padStart(5)} ${'tp'.padStart(4)} ${'fp'.padStart(4)} ${'fn'.padStart(4)} ${'prec%'.padStart(6)} ${'rec%'.padStart(6)} ${'exact'.padStart(6)}`,
  ];
  const line = (name: string, c: TypeCounts) =>
    `${name.padEnd(20)} ${String(c.tp + c.fn).padStart(5)} ${String(c.tp).padStart(4)} ${String(c.fp).padStart(4)} ${String(c.fn).padStart(4)} ${pct(precision(c))} ${pct(recall(c))} ${String(c.exact).padStart(6)}`;
  for (const t of ENTITY_TYPES) rows.push(line(t, r.perType[t]));
  rows.push(line('OVERALL', r.overall));
  rows.push(
    `${r.snippets} snippets + ${r.messages} conversation messages; language detected correctly for ${r.languageCorrect}/${r.languageTotal}`,
  );
  return rows.join('\n');
}

export function formatMisses(r: Report): string {
  return r.misses.map((m) => `${m.kind} ${m.type} ${JSON.stringify(m.value)}  [${m.id}] ${JSON.stringify(m.text)}`).join('\n');
}

// ---------------------------------------------------------------------------------------------
// The pasted-text set (test/fixtures/firewall/pasted.jsonl, built by make-pasted.mjs): messages
// as people paste them — chat-style names, JSON, CSV, tables, code, casual number formats —
// with hard negatives. Kept apart from the set above so that both keep their own figures.

export interface PastedSnippet extends Snippet {
  category: string;
}

/**
 * `pasted.jsonl`, the set the rules were written against; `heldout.jsonl`, written without reading
 * them (and used to tune them since); `check.jsonl`, written after both (see docs/firewall.md).
 */
export type PastedSet = 'pasted.jsonl' | 'heldout.jsonl' | 'check.jsonl';

export function loadPasted(file: PastedSet = 'pasted.jsonl'): PastedSnippet[] {
  return readJsonl<PastedSnippet>(file);
}

export interface CategoryCounts {
  messages: number;
  /** Labelled values, and how many of them were masked (type and span, IoU ≥ 0.5). */
  gold: number;
  found: number;
  /** Detections that match no labelled value. */
  wrong: number;
  /** Messages in which nothing unlabelled was masked (what counts for the negatives). */
  clean: number;
}

export interface PastedReport {
  perCategory: Record<string, CategoryCounts>;
  /** Counts over the values that are not names (every identifier, phone, e-mail, address, date). */
  identifiers: TypeCounts;
  names: TypeCounts;
  negatives: { messages: number; kept: number };
  misses: Miss[];
}

export function isNegativeCategory(category: string): boolean {
  return category.startsWith('neg-');
}

export function evaluatePasted(file: PastedSet = 'pasted.jsonl'): PastedReport {
  const empty = (): TypeCounts => ({ tp: 0, fp: 0, fn: 0, exact: 0 });
  const perType = Object.fromEntries(ENTITY_TYPES.map((t) => [t, empty()])) as Record<EntityType, TypeCounts>;
  const perTypeLanguage = Object.fromEntries(
    ENTITY_TYPES.map((t) => [t, Object.fromEntries(LANGUAGES.map((l) => [l, empty()]))]),
  ) as Record<EntityType, Record<Language, TypeCounts>>;
  const perCategory: Record<string, CategoryCounts> = {};
  const negatives = { messages: 0, kept: 0 };
  const misses: Miss[] = [];
  for (const s of loadPasted(file)) {
    const report: Report = {
      perType: Object.fromEntries(ENTITY_TYPES.map((t) => [t, empty()])) as Record<EntityType, TypeCounts>,
      perTypeLanguage: JSON.parse(JSON.stringify(perTypeLanguage)) as Report['perTypeLanguage'],
      overall: empty(),
      gold: [],
      misses: [],
      snippets: 0,
      messages: 0,
      languageCorrect: 0,
      languageTotal: 0,
    };
    const lang = detectLanguage(s.text, s.lang);
    score(report, s.id, s.lang, s.text, goldSpans(s.text, s.entities), detectEntities(s.text, lang));
    const c = (perCategory[s.category] ??= { messages: 0, gold: 0, found: 0, wrong: 0, clean: 0 });
    c.messages++;
    let wrong = 0;
    for (const t of ENTITY_TYPES) {
      const counts = report.perType[t];
      c.gold += counts.tp + counts.fn;
      c.found += counts.tp;
      wrong += counts.fp;
      const into = perType[t];
      into.tp += counts.tp;
      into.fp += counts.fp;
      into.fn += counts.fn;
      into.exact += counts.exact;
    }
    c.wrong += wrong;
    if (wrong === 0) c.clean++;
    if (isNegativeCategory(s.category)) {
      negatives.messages++;
      if (wrong === 0) negatives.kept++;
    }
    for (const m of report.misses) misses.push({ ...m, id: `${m.id} (${s.category})` });
  }
  return {
    perCategory,
    identifiers: sumCounts(ENTITY_TYPES.filter((t) => t !== 'PERSON').map((t) => perType[t])),
    names: perType.PERSON,
    negatives,
    misses,
  };
}

export function formatPastedReport(r: PastedReport): string {
  const pct = (x: number) => (100 * x).toFixed(1).padStart(6);
  const rows = [`  ${'category'.padEnd(18)} ${'msgs'.padStart(5)} ${'gold'.padStart(5)} ${'found'.padStart(6)} ${'rec%'.padStart(6)} ${'wrong'.padStart(6)} ${'clean msgs'.padStart(11)}`];
  for (const [name, c] of Object.entries(r.perCategory)) {
    const rec = c.gold === 0 ? '     —' : pct(c.found / c.gold);
    rows.push(
      `  ${name.padEnd(18)} ${String(c.messages).padStart(5)} ${String(c.gold).padStart(5)} ${String(c.found).padStart(6)} ${rec} ${String(c.wrong).padStart(6)} ${`${c.clean}/${c.messages}`.padStart(11)}`,
    );
  }
  const line = (what: string, c: TypeCounts) =>
    `  ${what.padEnd(36)} recall ${pct(recall(c))}% (${c.tp}/${c.tp + c.fn}), precision ${pct(precision(c))}% (${c.fp} wrong)`;
  rows.push(line('identifiers (all but names)', r.identifiers));
  rows.push(line('names', r.names));
  rows.push(`  ${'hard negatives kept clean'.padEnd(36)} ${pct(r.negatives.kept / Math.max(1, r.negatives.messages))}% (${r.negatives.kept}/${r.negatives.messages} messages)`);
  return rows.join('\n');
}
