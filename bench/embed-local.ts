/**
 * Throughput benchmark of the in-process `local/embed-1024` model.
 *
 *   npx tsc -p tsconfig.json && node --enable-source-maps dist/bench/embed-local.js
 *
 * Passages are generated deterministically (seeded PRNG, no downloads) from
 * small nl/en/fr/de phrase banks typical of the memory use case (insurance,
 * banking, health, travel, household facts), ~400 characters each, plus a row
 * with ~2,000-character passages (≈ 512-token document chunks).
 *
 * `runEmbedLocalBench()` is exported so the endpoint bench can reuse it.
 */
import { pathToFileURL } from 'node:url';
import { embedBatch, LOCAL_EMBED_MODEL } from '../src/gateway/providers/local/embed.js';

export interface EmbedLocalBenchRow {
  /** Human-readable case name, e.g. "400 chars × batch 256". */
  name: string;
  batchSize: number;
  /** Mean characters per input. */
  avgChars: number;
  inputsPerSec: number;
  /** Megabytes (10^6 bytes, UTF-8) of input text per second. */
  mbPerSec: number;
  /** Mean microseconds per input. */
  usPerInput: number;
  /** Inputs embedded during the measured run. */
  inputs: number;
  seconds: number;
  /**
   * Process CPU time / wall time during the run (1.0 = one core fully ours;
   * well below 1 means other processes took the core and the figures are low;
   * GC helper threads can push it slightly above 1).
   */
  cpuShare: number;
}

export interface EmbedLocalBenchOptions {
  /** Measured run length per case (default 2.5 s; at least ~2 s is advised). */
  runSeconds?: number;
  /** Warm-up length per case (default 0.5 s). */
  warmupSeconds?: number;
  /** Distinct passages generated per case (default 4096). */
  corpusSize?: number;
  seed?: number;
}

// --- deterministic passage generator ------------------------------------------------

/** mulberry32: small, fast, well-distributed 32-bit PRNG. */
export function mulberry32(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

type Lang = 'nl' | 'en' | 'fr' | 'de';
const LANGS: readonly Lang[] = ['nl', 'en', 'fr', 'de'];

interface Bank {
  subjects: readonly string[];
  verbs: readonly string[];
  objects: readonly string[];
  tails: readonly string[];
}

const BANKS: Record<Lang, Bank> = {
  nl: {
    subjects: ['De klant', 'Mijn partner', 'Onze huisarts', 'De verzekeraar', 'Het energiebedrijf', 'Mijn dochter', 'De gemeente', 'Ik'],
    verbs: ['heeft gisteren', 'wil volgende maand', 'moet vóór vrijdag', 'zal binnenkort', 'heeft per e-mail', 'probeert opnieuw'],
    objects: [
      'de zorgverzekering opzeggen',
      'een nieuwe hypotheekofferte aanvragen',
      'de jaarlijkse energierekening betalen',
      'het paspoort laten verlengen',
      'de afspraak bij de tandarts verzetten',
      'een schadeclaim voor de fiets indienen',
      'de huurovereenkomst laten controleren',
      'het abonnement op de sportschool beëindigen',
    ],
    tails: ['.', ', want de premie is verhoogd.', ' via het klantportaal.', ', zoals vorig jaar afgesproken.', ' zonder extra kosten.', '; dat staat in de polisvoorwaarden.'],
  },
  en: {
    subjects: ['The customer', 'My partner', 'Our family doctor', 'The insurer', 'The landlord', 'My daughter', 'The bank', 'I'],
    verbs: ['already', 'wants to', 'has to', 'will soon', 'tried to', 'asked us to'],
    objects: [
      'cancel the travel insurance policy',
      'request a new mortgage quote',
      'pay the annual electricity bill',
      'renew the passport before the holiday',
      'reschedule the dentist appointment',
      'file a damage claim for the bicycle',
      'review the rental agreement',
      'end the gym membership',
    ],
    tails: ['.', ' because the premium went up.', ' through the customer portal.', ', as agreed last year.', ' without any extra fees.', '; the terms allow it.'],
  },
  fr: {
    subjects: ['Le client', 'Ma compagne', 'Notre médecin traitant', "L'assureur", 'Le propriétaire', 'Ma fille', 'La banque', 'Je'],
    verbs: ['a déjà voulu', 'souhaite', 'doit', 'va bientôt', 'a essayé de', 'nous a demandé de'],
    objects: [
      "résilier le contrat d'assurance habitation",
      'demander une nouvelle offre de prêt immobilier',
      "payer la facture annuelle d'électricité",
      'renouveler le passeport avant les vacances',
      'déplacer le rendez-vous chez le dentiste',
      'déclarer un sinistre pour le vélo',
      'faire vérifier le bail de location',
      "mettre fin à l'abonnement à la salle de sport",
    ],
    tails: ['.', ', car la prime a augmenté.', ' via l’espace client.', ", comme convenu l'an dernier.", ' sans frais supplémentaires.', ' ; les conditions générales le permettent.'],
  },
  de: {
    subjects: ['Der Kunde', 'Meine Partnerin', 'Unser Hausarzt', 'Die Versicherung', 'Der Vermieter', 'Meine Tochter', 'Die Bank', 'Ich'],
    verbs: ['möchte', 'muss bis Freitag', 'wird bald', 'hat versucht zu', 'will nächsten Monat', 'soll'],
    objects: [
      'die Krankenversicherung kündigen',
      'ein neues Angebot für die Baufinanzierung anfordern',
      'die jährliche Stromrechnung bezahlen',
      'den Reisepass vor dem Urlaub verlängern',
      'den Termin beim Zahnarzt verschieben',
      'einen Schaden am Fahrrad melden',
      'den Mietvertrag prüfen lassen',
      'die Mitgliedschaft im Fitnessstudio beenden',
    ],
    tails: ['.', ', weil der Beitrag gestiegen ist.', ' über das Kundenportal.', ', wie letztes Jahr vereinbart.', ' ohne zusätzliche Gebühren.', '; die Bedingungen erlauben das.'],
  },
};

function pick<T>(rnd: () => number, xs: readonly T[]): T {
  return xs[Math.floor(rnd() * xs.length)]!;
}

function sentence(rnd: () => number, lang: Lang): string {
  const b = BANKS[lang];
  const n = Math.floor(rnd() * 900) + 100;
  const s = `${pick(rnd, b.subjects)} ${pick(rnd, b.verbs)} ${pick(rnd, b.objects)}${pick(rnd, b.tails)}`;
  // Sprinkle in numbers/dates as real passages have them.
  return rnd() < 0.25 ? `${s} (ref. ${n}-${Math.floor(rnd() * 90) + 10})` : s;
}

/**
 * A passage of about `targetChars` characters, mostly in one language with the
 * occasional sentence from another (as in real mixed-language user memories).
 */
export function generatePassage(rnd: () => number, targetChars = 400): string {
  const lang = pick(rnd, LANGS);
  const parts: string[] = [];
  let len = 0;
  while (len < targetChars - 40) {
    const l = rnd() < 0.1 ? pick(rnd, LANGS) : lang;
    const s = sentence(rnd, l);
    parts.push(s);
    len += s.length + 1;
  }
  return parts.join(' ').slice(0, targetChars + 40);
}

export function generatePassages(count: number, targetChars = 400, seed = 42): string[] {
  const rnd = mulberry32(seed);
  const out: string[] = [];
  for (let i = 0; i < count; i++) out.push(generatePassage(rnd, targetChars));
  return out;
}

// --- measurement ----------------------------------------------------------------------

let sink = 0; // defeats dead-code elimination

function runFor(seconds: number, batches: readonly string[][], bytesPerBatch: readonly number[]) {
  const deadline = process.hrtime.bigint() + BigInt(Math.round(seconds * 1e9));
  const start = process.hrtime.bigint();
  const cpu0 = process.cpuUsage();
  let inputs = 0;
  let bytes = 0;
  let j = 0;
  let now = start;
  do {
    // Several batches between clock reads keeps timer overhead negligible.
    for (let r = 0; r < 8; r++) {
      const batch = batches[j]!;
      const vs = embedBatch(batch);
      sink += vs[0]![0]!;
      inputs += batch.length;
      bytes += bytesPerBatch[j]!;
      j = j + 1 === batches.length ? 0 : j + 1;
    }
    now = process.hrtime.bigint();
  } while (now < deadline);
  const cpu = process.cpuUsage(cpu0);
  const elapsed = Number(now - start) / 1e9;
  return { inputs, bytes, seconds: elapsed, cpuShare: (cpu.user + cpu.system) / 1e6 / elapsed };
}

async function benchCase(
  name: string,
  passages: readonly string[],
  batchSize: number,
  opts: Required<EmbedLocalBenchOptions>,
): Promise<EmbedLocalBenchRow> {
  const batches: string[][] = [];
  for (let i = 0; i + batchSize <= passages.length; i += batchSize) batches.push(passages.slice(i, i + batchSize));
  const bytesPerBatch = batches.map((b) => b.reduce((s, t) => s + Buffer.byteLength(t, 'utf8'), 0));
  const chars = passages.reduce((s, t) => s + t.length, 0) / passages.length;

  runFor(opts.warmupSeconds, batches, bytesPerBatch);
  await new Promise<void>((resolve) => setImmediate(resolve));
  const r = runFor(opts.runSeconds, batches, bytesPerBatch);
  await new Promise<void>((resolve) => setImmediate(resolve));
  return {
    name,
    batchSize,
    avgChars: chars,
    inputsPerSec: r.inputs / r.seconds,
    mbPerSec: r.bytes / r.seconds / 1e6,
    usPerInput: (r.seconds * 1e6) / r.inputs,
    inputs: r.inputs,
    seconds: r.seconds,
    cpuShare: r.cpuShare,
  };
}

export async function runEmbedLocalBench(options: EmbedLocalBenchOptions = {}): Promise<EmbedLocalBenchRow[]> {
  const opts: Required<EmbedLocalBenchOptions> = {
    runSeconds: options.runSeconds ?? 2.5,
    warmupSeconds: options.warmupSeconds ?? 0.5,
    corpusSize: options.corpusSize ?? 4096,
    seed: options.seed ?? 42,
  };
  const short = generatePassages(opts.corpusSize, 400, opts.seed);
  const long = generatePassages(Math.max(256, opts.corpusSize >>> 2), 2000, opts.seed + 1);
  const rows: EmbedLocalBenchRow[] = [];
  rows.push(await benchCase('400 chars × batch 1', short, 1, opts));
  rows.push(await benchCase('400 chars × batch 256', short, 256, opts));
  rows.push(await benchCase('2000 chars × batch 256', long, 256, opts));
  return rows;
}

export function formatEmbedLocalBenchTable(rows: readonly EmbedLocalBenchRow[]): string {
  const header = ['case', 'batch', 'avg chars', 'inputs/s', 'MB/s', 'µs/input', 'inputs', 'seconds', 'cpu'];
  const body = rows.map((r) => [
    r.name,
    String(r.batchSize),
    r.avgChars.toFixed(0),
    Math.round(r.inputsPerSec).toLocaleString('en-US'),
    r.mbPerSec.toFixed(2),
    r.usPerInput.toFixed(1),
    r.inputs.toLocaleString('en-US'),
    r.seconds.toFixed(2),
    `${Math.round(r.cpuShare * 100)}%`,
  ]);
  const widths = header.map((h, i) => Math.max(h.length, ...body.map((row) => row[i]!.length)));
  const line = (cells: readonly string[]) =>
    cells.map((c, i) => (i === 0 ? c.padEnd(widths[i]!) : c.padStart(widths[i]!))).join('  ');
  return [line(header), widths.map((w) => '-'.repeat(w)).join('  '), ...body.map(line)].join('\n');
}

async function main(): Promise<void> {
  console.log(`${LOCAL_EMBED_MODEL} — in-process, one thread (node ${process.version})`);
  const rows = await runEmbedLocalBench();
  console.log(formatEmbedLocalBenchTable(rows));
  if (!Number.isFinite(sink)) console.log('');
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  main().catch((err: unknown) => {
    console.error(err);
    process.exitCode = 1;
  });
}
