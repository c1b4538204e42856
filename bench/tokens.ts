// npm run bench:tokens — how long the gateway's token counter (src/gateway/tokens.ts) holds the
// event loop for texts a caller may send: prose, distinct words, base64, and one short piece
// repeated a million characters long after the counter has seen many distinct words (which made
// gpt-tokenizer's merge cache quadratic: 36 s, before the cache was switched off).
//
//   npm run bench:tokens
import { countTokens } from '../src/gateway/tokens.js';

const MB = 1_000_000;
// A fixed sequence, so that every run counts the same texts.
let seed = 7;
const random = () => ((seed = (seed * 1_103_515_245 + 12_345) % 2 ** 31) / 2 ** 31);
const word = () => Array.from({ length: 3 + Math.floor(random() * 8) }, () => String.fromCharCode(97 + Math.floor(random() * 26))).join('');

const texts: [string, () => string][] = [
  ['prose, 1 MB', () => 'De verzekerde meldt schade aan de voorgevel na de storm van vorige week. '.repeat(MB / 72)],
  ['distinct words, 5 × 132 KB', () => Array.from({ length: 100_000 }, word).join(' ')],
  ['base64, 1 MB', () => Buffer.from(Array.from({ length: (MB * 3) / 4 }, () => Math.floor(random() * 256))).toString('base64')],
  [`'\\" repeated, 1 MB, after the distinct words`, () => `'\\" `.repeat(MB / 4)],
  ['"a" repeated, 1 MB', () => 'a'.repeat(MB)],
];

console.log('| text | characters | tokens | ms |');
console.log('| --- | ---: | ---: | ---: |');
countTokens('warm up the tokenizer tables');
for (const [name, make] of texts) {
  const text = make();
  const started = performance.now();
  const tokens = countTokens(text);
  console.log(`| ${name} | ${text.length.toLocaleString('en-US')} | ${tokens.toLocaleString('en-US')} | ${(performance.now() - started).toFixed(0)} |`);
}
