// A/B speed of the firewall against another build of it, in one process: both are loaded side by
// side and their runs alternate, so that what the machine does meanwhile (other processes, clock
// changes) falls on both alike. bench/firewall.ts gives absolute figures; on a shared machine they
// drift by a factor of two between runs, too much to see a change of 10 %.
//
//   git worktree add /tmp/firewall-base <ref> && ln -s "$PWD/node_modules" /tmp/firewall-base/
//   (cd /tmp/firewall-base && npx tsc -p tsconfig.json)
//   npx tsc -p tsconfig.json && node dist/bench/firewall-ab.js /tmp/firewall-base/dist
//
// Prints, per workload of bench/firewall-corpus.ts, the fastest and the median of 41 alternating
// rounds for each build and their ratio (this build over the base).
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { createFirewall } from '../src/firewall/firewall.js';
import { CHAT_PROMPTS, PROMPTS_2000, longDocument } from './firewall-corpus.js';

type Mask = (text: string) => string;

const ROUNDS = 41;
const WARM_UP = 5;

async function baseMask(dist: string): Promise<Mask> {
  const mod = (await import(pathToFileURL(resolve(dist, 'src/firewall/firewall.js')).href)) as { createFirewall: typeof createFirewall };
  return (text) => mod.createFirewall({ language: 'auto' }).mask(text);
}

const thisMask: Mask = (text) => createFirewall({ language: 'auto' }).mask(text);

/** Milliseconds to mask every text `repeat` times, each with a new firewall as the gateway does. */
function round(mask: Mask, texts: readonly string[], repeat: number): number {
  const start = process.hrtime.bigint();
  for (let r = 0; r < repeat; r++) for (const text of texts) mask(text);
  return Number(process.hrtime.bigint() - start) / 1e6;
}

async function main(): Promise<void> {
  const dist = process.argv[2];
  if (!dist) throw new Error('usage: node dist/bench/firewall-ab.js <dist directory of the base build>');
  const base = await baseMask(dist);
  const workloads: Array<[string, string[], number]> = [
    ['chat prompts', CHAT_PROMPTS.map((t) => t.text), 40],
    ['2,000-char prompts', PROMPTS_2000.map((t) => t.text), 10],
    ['long documents', (['nl', 'en', 'fr', 'de'] as const).map((l) => longDocument(l)), 1],
  ];
  console.log(`Firewall A/B: this build against ${dist}, ${ROUNDS} alternating rounds per workload (ms per round)\n`);
  console.log('  workload              base min  base med   this min  this med   ratio min  ratio med');
  for (const [name, texts, repeat] of workloads) {
    for (let w = 0; w < WARM_UP; w++) {
      round(base, texts, repeat);
      round(thisMask, texts, repeat);
    }
    const a: number[] = [];
    const b: number[] = [];
    for (let k = 0; k < ROUNDS; k++) {
      a.push(round(base, texts, repeat));
      b.push(round(thisMask, texts, repeat));
    }
    a.sort((x, y) => x - y);
    b.sort((x, y) => x - y);
    const mid = Math.floor(ROUNDS / 2);
    const cells = [a[0]!, a[mid]!, b[0]!, b[mid]!].map((v) => v.toFixed(2).padStart(9));
    const ratios = [b[0]! / a[0]!, b[mid]! / a[mid]!].map((v) => v.toFixed(3).padStart(10));
    console.log(`  ${name.padEnd(20)}${cells[0]} ${cells[1]}  ${cells[2]} ${cells[3]}  ${ratios[0]} ${ratios[1]}`);
  }
}

await main();
