// Evaluation harness for the firewall recognizers over the labelled set in
// test/fixtures/firewall/. Shared by eval.test.ts and usable from a REPL:
//   node -e "import('./dist/test/firewall/eval-lib.js').then(m => m.printReport(m.evaluateAll()))"
import { readFileSync } from 'node:fs';
import { detectEntities } from '../../src/firewall/detect.js';
import { detectLanguage } from '../../src/firewall/language.js';
import { ENTITY_TYPES, type Detection, type EntityType, type Language } from '../../src/firewall/types.js';
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

export interface Report {
  perType: Record<EntityType, TypeCounts>;
  overall: TypeCounts;
  misses: Miss[];
  snippets: number;
  messages: number;
  languageCorrect: number;
  languageTotal: number;
}

/** A detection matches a gold entity of the same type when their spans overlap with IoU ≥ 0.5. */
export const MIN_IOU = 0.5;

function score(report: Report, id: string, text: string, gold: Span[], found: Detection[]): void {
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
      const c = report.perType[g.type];
      c.tp++;
      if (bestIou === 1) c.exact++;
    }
  });
  gold.forEach((g, gi) => {
    if (goldHit.has(gi)) return;
    report.perType[g.type].fn++;
    report.misses.push({ id, kind: 'FN', type: g.type, value: text.slice(g.start, g.end), text });
  });
  found.forEach((d, di) => {
    if (matched.has(di)) return;
    report.perType[d.type].fp++;
    report.misses.push({ id, kind: 'FP', type: d.type, value: d.text, text });
  });
}

export function evaluateAll(): Report {
  const perType = Object.fromEntries(ENTITY_TYPES.map((t) => [t, { tp: 0, fp: 0, fn: 0, exact: 0 }])) as Record<
    EntityType,
    TypeCounts
  >;
  const report: Report = {
    perType,
    overall: { tp: 0, fp: 0, fn: 0, exact: 0 },
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
    score(report, s.id, s.text, goldSpans(s.text, s.entities), detectEntities(s.text, lang));
  }
  for (const c of loadConversations()) {
    let previous: Language = 'en';
    c.messages.forEach((m, i) => {
      report.messages++;
      const lang = detectLanguage(m.text, previous);
      previous = lang;
      report.languageTotal++;
      if (lang === m.lang) report.languageCorrect++;
      score(report, `${c.id}#${i}`, m.text, goldSpans(m.text, m.entities), detectEntities(m.text, lang));
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
