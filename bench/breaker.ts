// npm run bench:breaker — what the circuit breaker (src/gateway/breaker.ts) saves when one of two
// endpoints of a model hangs: p50 and p99 latency of the chain, with the breaker (the catalogue's
// defaults: 5 failures, 10 s cooldown doubling) and without it (`circuit: {failures: 0}`).
//
// One process: a stub provider that never answers (the header timeout, 400 ms, must fire), a
// healthy stub, and the gateway (the app as the tests build it, over its own database), driven by
// a closed loop of `--concurrency` clients sending chats (each new, so the response cache never
// answers) for `--seconds` per variant. Everything shares one event loop, so read the ratio
// between the rows, not the absolute milliseconds of the fast path.
//
// A baseline row, where the first endpoint answers, shows what the fast path costs on the machine.
//
//   npm run bench:breaker                      # 30 s per variant, 4 clients
//   npm run bench:breaker -- --quick           # 5 s per variant
//   npm run bench:breaker -- --seconds=60 --concurrency=8
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadCatalog } from '../src/gateway/catalog.js';
import { startTestApp } from '../test/helpers/app.js';
import { startStubProvider } from '../test/helpers/stubProvider.js';

const quick = process.argv.includes('--quick');
const option = (name: string, fallback: number): number => {
  const arg = process.argv.find((a) => a.startsWith(`--${name}=`));
  const value = arg ? Number(arg.slice(name.length + 3)) : fallback;
  if (!Number.isFinite(value) || value <= 0) throw new Error(`--${name} must be a positive number`);
  return value;
};
const SECONDS = option('seconds', quick ? 5 : 30);
const CONCURRENCY = option('concurrency', 4);
const TIMEOUT_MS = option('timeout-ms', 400);

interface Variant {
  name: string;
  /** The first provider's circuit setting in the catalogue ('' = the defaults). */
  circuit: string;
  /** Whether the first endpoint hangs (else it answers: the baseline of the fast path). */
  hangs: boolean;
}

const VARIANTS: Variant[] = [
  { name: 'baseline: neither endpoint hangs', circuit: '', hangs: false },
  { name: 'first hangs, breaker off (circuit: {failures: 0})', circuit: ', circuit: {failures: 0}', hangs: true },
  { name: 'first hangs, breaker on (defaults: 5 failures, 10 s doubling)', circuit: '', hangs: true },
];

interface Result {
  variant: string;
  requests: number;
  errors: number;
  p50: number;
  p99: number;
  max: number;
  /** Requests the first endpoint received (with `hangs`: the ones that paid the timeout). */
  hangAsked: number;
}

function percentile(sorted: number[], p: number): number {
  if (sorted.length === 0) return NaN;
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]!;
}

async function run(variant: Variant, seconds = SECONDS): Promise<Result> {
  const hang = await startStubProvider(variant.hangs ? { unscripted: { type: 'hang' } } : {});
  const ok = await startStubProvider();
  const dir = mkdtempSync(join(tmpdir(), 'polder-bench-breaker-'));
  const file = join(dir, 'catalog.yaml');
  writeFileSync(
    file,
    `providers:
  - {id: bench-hang, region: eu, kind: openai, base_url: "${hang.url}", api_key: "\${STUB_KEY}", timeout_ms: ${TIMEOUT_MS}${variant.circuit}}
  - {id: bench-ok, region: eu, kind: openai, base_url: "${ok.url}", api_key: "\${STUB_KEY}", timeout_ms: ${TIMEOUT_MS}}
models:
  - {id: bench/two, type: chat, context_length: 32000, pricing: {prompt: 1, completion: 1},
     endpoints: [{provider: bench-hang, upstream_model: hang}, {provider: bench-ok, upstream_model: ok}]}
services: {firewall_per_1k_tokens: 0.01, retrieval_per_call: 0.05, ingest_per_chunk: 0.02}
`,
  );
  const app = await startTestApp({ catalog: loadCatalog({ file, env: { STUB_KEY: 'sk-bench' } }) });
  try {
    const { key } = await app.key();
    const latencies: number[] = [];
    let errors = 0;
    let sent = 0;
    const end = performance.now() + seconds * 1000;
    const client = async (id: number): Promise<void> => {
      while (performance.now() < end) {
        sent += 1;
        const body = JSON.stringify({ model: 'bench/two', messages: [{ role: 'user', content: `Hallo ${id} ${sent}` }] });
        const started = performance.now();
        const response = await fetch(`${app.baseUrl}/v1/chat/completions`, {
          method: 'POST',
          headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
          body,
        });
        await response.arrayBuffer();
        const ms = performance.now() - started;
        const expected = variant.hangs ? 'bench-ok' : 'bench-hang';
        if (response.status === 200 && response.headers.get('x-provider') === expected) latencies.push(ms);
        else errors += 1;
      }
    };
    await Promise.all(Array.from({ length: CONCURRENCY }, (_, i) => client(i)));
    latencies.sort((a, b) => a - b);
    return {
      variant: variant.name,
      requests: latencies.length + errors,
      errors,
      p50: percentile(latencies, 50),
      p99: percentile(latencies, 99),
      max: latencies.at(-1) ?? NaN,
      hangAsked: variant.hangs ? hang.requests.length : NaN,
    };
  } finally {
    await app.close();
    await Promise.all([hang.close(), ok.close()]);
    rmSync(dir, { recursive: true, force: true });
  }
}

async function main(): Promise<void> {
  // A run of the baseline first, not reported: the first variant should not pay for the JIT.
  await run(VARIANTS[0]!, Math.min(3, SECONDS));
  const results: Result[] = [];
  for (const variant of VARIANTS) results.push(await run(variant));
  const ms = (v: number) => v.toFixed(1).padStart(8);
  const lines = [
    `bench:breaker — model with two endpoints, the first hangs (header timeout ${TIMEOUT_MS} ms); ${CONCURRENCY} clients, closed loop, ${SECONDS} s per variant`,
    '',
    '| variant | requests | req/s | p50 ms | p99 ms | max ms | requests to the hanging endpoint | errors |',
    '|---|---:|---:|---:|---:|---:|---:|---:|',
    ...results.map(
      (r) =>
        `| ${r.variant} | ${r.requests} | ${(r.requests / SECONDS).toFixed(1)} | ${ms(r.p50)} | ${ms(r.p99)} | ${ms(r.max)} | ${Number.isNaN(r.hangAsked) ? '–' : r.hangAsked} | ${r.errors} |`,
    ),
    '',
  ];
  process.stdout.write(lines.join('\n'));
  if (results.some((r) => r.errors > 0)) process.exitCode = 1;
}

await main();
