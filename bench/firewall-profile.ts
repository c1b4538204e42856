// Profiling driver for the firewall: runs one workload in a loop so that `node --cpu-prof` sees it.
//   npx tsc -p tsconfig.json
//   node --cpu-prof --cpu-prof-dir=/tmp/fwprof dist/bench/firewall-profile.js [chat|chat-digits|long|digits|prompt] [seconds]
// then open the .cpuprofile in Chrome DevTools (Performance panel) and sort by self time.
// The workloads are bench/firewall-corpus.ts's texts; each text gets a new firewall, as in the bench.
import { createFirewall } from '../src/firewall/firewall.js';
import { preloadGazetteer } from '../src/firewall/gazetteer/index.js';
import { CHAT_PROMPTS, PROMPTS_2000, digitHeavyTexts, longDocument } from './firewall-corpus.js';
import { LANGUAGES } from '../src/firewall/types.js';

const workload = process.argv[2] ?? 'chat';
const seconds = Number(process.argv[3] ?? 5);
const texts: string[] =
  workload === 'long'
    ? LANGUAGES.map((l) => longDocument(l))
    : workload === 'digits'
      ? digitHeavyTexts()
      : workload === 'prompt'
        ? PROMPTS_2000.map((p) => p.text)
        : workload === 'chat-digits'
          ? CHAT_PROMPTS.map((p) => p.text).filter((t) => /\d/.test(t))
          : CHAT_PROMPTS.map((p) => p.text);
preloadGazetteer();
const until = Date.now() + seconds * 1000;
let bytes = 0;
let n = 0;
const t0 = performance.now();
const c0 = process.cpuUsage();
while (Date.now() < until) {
  // A new firewall per text, as the gateway makes one per request (and as bench/firewall.ts does).
  for (const t of texts) {
    createFirewall({ language: 'auto' }).mask(t);
    bytes += Buffer.byteLength(t);
  }
  n++;
}
const wall = (performance.now() - t0) / 1000;
const c = process.cpuUsage(c0);
const cpu = (c.user + c.system) / 1e6;
console.log(`${workload}: ${n} rounds, ${(bytes / 1e6 / cpu).toFixed(2)} MB/s CPU time, ${(bytes / 1e6 / wall).toFixed(2)} MB/s wall`);
