// Firewall scan benchmark: per-message time (µs, p50/p99) and throughput (MB/s) on a mix of short
// chat messages, digit-free and with numbers, plus long and adversarial inputs.
//   npx tsc -p tsconfig.json && node dist/bench/firewall.js
import { performance } from 'node:perf_hooks';
import { detectEntities } from '../src/firewall/detect.js';
import { createFirewall } from '../src/firewall/firewall.js';
import { preloadGazetteer } from '../src/firewall/gazetteer/index.js';
import { detectLanguage } from '../src/firewall/language.js';
import type { Language } from '../src/firewall/types.js';

const DIGIT_FREE: string[] = [
  'Hoi, kun je me helpen met mijn bestelling? Hij is nog steeds niet binnen.',
  'Can you summarise this article in three bullet points for our newsletter?',
  'Bonjour, pouvez-vous reformuler ce paragraphe de façon plus formelle ?',
  'Kannst du mir eine höfliche Antwort an den Kunden schreiben?',
  'Thanks Sarah, that was really helpful. Could you also check the tone?',
  'Mijn collega Pieter Bakker vroeg of je de notulen nog hebt.',
  'Write a SQL query that lists all customers who ordered last month.',
  'Merci Camille, je transmets la demande à Monsieur Dupont.',
  'Bitte fasse die wichtigsten Punkte des Vertrags zusammen.',
  'What is the difference between a list and a tuple in Python?',
];

const WITH_NUMBERS: string[] = [
  'Mijn naam is Jan de Vries, BSN 111222333, bel me op 06-12345678.',
  'Please refund to NL91 ABNA 0417 1643 00, order 88421937 was cancelled.',
  'Ich bin am 12.03.1985 geboren, Steuer-ID 86095742719, Hauptstraße 5a, 10115 Berlin.',
  "J'habite au 12 rue de la Paix, 75002 Paris, tél. 06 12 34 56 78.",
  'The server 192.168.1.20 logged 2024-03-15 14:32:10, version 2.14.3.',
  'Card 4111 1111 1111 1111 was charged €1.234,56 on invoice 2024-0012.',
  'Order 123456789 shipped in 3 boxes, total 59.90 EUR.',
  'Rijksregisternummer 85.07.30-033.28, e-mail jan@example.be.',
  'Meeting moved to 10:30 on Thursday, room 4.12.',
  'Mon numéro de sécu est le 2 55 08 14 168 025 38.',
];

function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;
}

interface Result {
  name: string;
  p50: number;
  p99: number;
  mbps: number;
  n: number;
}

function bench(name: string, texts: string[], scan: (t: string) => unknown, rounds: number): Result {
  for (let i = 0; i < 200; i++) for (const t of texts) scan(t); // warm-up (JIT, lazy loads)
  const times: number[] = [];
  let bytes = 0;
  let total = 0;
  for (let r = 0; r < rounds; r++) {
    for (const t of texts) {
      const t0 = performance.now();
      scan(t);
      const dt = performance.now() - t0;
      times.push(dt * 1000);
      total += dt;
      bytes += Buffer.byteLength(t, 'utf8');
    }
  }
  times.sort((a, b) => a - b);
  return { name, p50: percentile(times, 50), p99: percentile(times, 99), mbps: bytes / 1e6 / (total / 1000), n: times.length };
}

function row(r: Result): string {
  return `${r.name.padEnd(42)} ${r.p50.toFixed(1).padStart(8)} ${r.p99.toFixed(1).padStart(8)} ${r.mbps.toFixed(2).padStart(8)} ${String(r.n).padStart(7)}`;
}

preloadGazetteer();
const scanOnly = (lang: Language) => (t: string) => detectEntities(t, lang);
const scanWithLanguage = (t: string) => detectEntities(t, detectLanguage(t, 'en'));
const mix = [...DIGIT_FREE, ...WITH_NUMBERS];
const longPassage = Array.from({ length: 40 }, (_, i) => mix[i % mix.length]).join('\n'); // ≈ 3 KB retrieved passage
const adversarial = [
  '1 '.repeat(5000),
  'a'.repeat(20000) + '@',
  'Aa '.repeat(5000),
  '1.'.repeat(5000),
  ':'.repeat(10000),
  '[EMAIL_'.repeat(2000),
  'Jan '.repeat(5000),
];

console.log(`${'scenario'.padEnd(42)} ${'p50 µs'.padStart(8)} ${'p99 µs'.padStart(8)} ${'MB/s'.padStart(8)} ${'n'.padStart(7)}`);
console.log(row(bench('digit-free chat messages (detect)', DIGIT_FREE, scanOnly('en'), 500)));
console.log(row(bench('chat messages with numbers (detect)', WITH_NUMBERS, scanOnly('en'), 500)));
console.log(row(bench('mixed chat messages (detect)', mix, scanOnly('en'), 500)));
console.log(row(bench('mixed chat messages (language + detect)', mix, scanWithLanguage, 500)));
const session = createFirewall({ language: 'auto' });
console.log(row(bench('digit-free chat messages (firewall.mask)', DIGIT_FREE, (t) => session.mask(t), 500)));
console.log(row(bench('chat messages with numbers (firewall.mask)', WITH_NUMBERS, (t) => session.mask(t), 500)));
console.log(row(bench('mixed chat messages (firewall.mask)', mix, (t) => session.mask(t), 500)));
console.log(row(bench('3 KB retrieved passage (language + detect)', [longPassage], scanWithLanguage, 300)));
console.log(row(bench('mask a 4-message request (createFirewall)', [mix.slice(0, 4).join('\u0000')], (t) => {
  const fw = createFirewall();
  for (const m of t.split('\u0000')) fw.mask(m);
}, 500)));
console.log(row(bench('adversarial 10-20 KB inputs (detect)', adversarial, scanOnly('en'), 5)));
