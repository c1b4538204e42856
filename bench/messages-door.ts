// npm run bench:messages -- --no-durability — what the Anthropic Messages door adds over
// /v1/chat/completions: the same web process, the same zero-delay stub (bench/gateway-stub.ts),
// the same model, the same load, the same prompt, the response cache off so every request goes
// upstream. Requests alternate between the two doors in rounds, so drift in the machine's load
// (2 shared cores) falls on both alike. It never stops or restarts Postgres (there is no durability
// step: `--no-durability` is accepted for symmetry with bench:gateway).
import { closeSync, mkdtempSync, openSync, rmSync } from 'node:fs';
import { cpus, tmpdir } from 'node:os';
import { join } from 'node:path';
import { Pool } from 'undici';
import { createPool } from '../src/db/pool.js';
import { migrate } from '../src/db/migrate.js';
import { fromRoot } from '../src/paths.js';
import { createKey } from '../src/tenancy/keys.js';
import { forkHelper, freePort, nextMessage, runBench, spawnManaged, stopAll, waitHttpOk } from './gateway-procs.js';
import { benchDatabaseUrl, withMaintenanceClient } from './bench-postgres.js';
import { writeStubCatalog } from './stub-catalog.js';

const DB = 'polder_bench_messages_door';
const quick = process.argv.includes('--quick');
const MODEL = 'bench/stub-chat';
const PROMPT = 'Wat is het eigen risico van mijn zorgverzekering dit jaar, en wanneer moet ik het betalen?';

const percentile = (sorted: number[], p: number) => sorted[Math.min(sorted.length - 1, Math.floor((sorted.length * p) / 100))]!;
const fmt = (n: number, digits = 2) => n.toLocaleString('en-US', { minimumFractionDigits: digits, maximumFractionDigits: digits });

interface Door {
  name: string;
  path: string;
  body: (i: number) => string;
}

const DOORS: Door[] = [
  {
    name: '/v1/chat/completions',
    path: '/v1/chat/completions',
    body: (i) => JSON.stringify({ model: MODEL, max_tokens: 256, cache: false, messages: [{ role: 'system', content: 'Antwoord kort.' }, { role: 'user', content: `${PROMPT} (${i})` }] }),
  },
  {
    name: '/v1/messages',
    path: '/v1/messages',
    body: (i) => JSON.stringify({ model: MODEL, max_tokens: 256, cache: false, system: 'Antwoord kort.', messages: [{ role: 'user', content: `${PROMPT} (${i})` }] }),
  },
];

interface Sample {
  latencies: number[];
  errors: number;
  seconds: number;
}

async function load(client: Pool, key: string, door: Door, concurrency: number, seconds: number): Promise<Sample> {
  const latencies: number[] = [];
  let errors = 0;
  let next = 0;
  const started = performance.now();
  const deadline = started + seconds * 1000;
  const worker = async () => {
    while (performance.now() < deadline) {
      const t = process.hrtime.bigint();
      const response = await client.request({
        path: door.path,
        method: 'POST',
        headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
        body: door.body((next += 1)),
      });
      await response.body.text();
      if (response.statusCode === 200) latencies.push(Number(process.hrtime.bigint() - t) / 1e6);
      else errors += 1;
    }
  };
  await Promise.all(Array.from({ length: concurrency }, worker));
  return { latencies, errors, seconds: (performance.now() - started) / 1000 };
}

async function main(): Promise<void> {
  console.log('Polder Messages door bench: /v1/messages beside /v1/chat/completions');
  console.log(`machine: ${cpus().length} cores, Node ${process.version}, ${new Date().toISOString()}`);
  const tmp = mkdtempSync(join(tmpdir(), 'polder-bench-messages-'));
  await withMaintenanceClient(async (client) => {
    await client.query(`drop database if exists ${DB} with (force)`);
    await client.query(`create database ${DB}`);
  });
  const dbPool = createPool(benchDatabaseUrl(DB), 2);
  try {
    await migrate(dbPool);
    const { key } = await createKey(dbPool, { organization: 'bench', workspace: 'bench', kind: 'organization' });
    const stub = forkHelper('stub', fromRoot('dist/bench/gateway-stub.js'));
    const { port: stubPort } = await nextMessage<{ type: 'ready'; port: number }>(stub.child, 'ready');
    const catalogFile = writeStubCatalog(tmp, stubPort, MODEL);
    const port = await freePort();
    const env = { ...process.env, DATABASE_URL: benchDatabaseUrl(DB), PORT: String(port), LOG_LEVEL: 'warn', CATALOG_FILE: catalogFile, STUB_KEY: 'sk-bench-stub' };
    const logFd = openSync(join(tmp, 'processes.log'), 'a');
    const web = spawnManaged('web', process.execPath, [fromRoot('dist/src/server.js')], { cwd: fromRoot(), env, stdio: ['ignore', logFd, logFd] });
    closeSync(logFd);
    await waitHttpOk(`http://127.0.0.1:${port}/readyz`, web, 30_000);
    const client = new Pool(`http://127.0.0.1:${port}`, { connections: 64, pipelining: 1 });

    const roundSeconds = quick ? 1 : 3;
    const rounds = quick ? 2 : 4;
    for (const door of DOORS) await load(client, key, door, 4, 1); // warm-up: JIT, pools, tokenizer
    console.log(`\nJSON, firewall on (default), response cache off; ${rounds} alternating rounds of ${roundSeconds} s per door and concurrency\n`);
    console.log('door                   concurrency  requests  errors    req/s   p50 ms   p99 ms');
    const summary = new Map<string, number>();
    for (const concurrency of [1, 16]) {
      const samples = new Map<string, Sample[]>(DOORS.map((d) => [d.name, []]));
      for (let round = 0; round < rounds; round += 1) {
        for (const door of round % 2 === 0 ? DOORS : [...DOORS].reverse()) samples.get(door.name)!.push(await load(client, key, door, concurrency, roundSeconds));
      }
      for (const door of DOORS) {
        const all = samples.get(door.name)!;
        const latencies = all.flatMap((s) => s.latencies).sort((a, b) => a - b);
        const seconds = all.reduce((sum, s) => sum + s.seconds, 0);
        const errors = all.reduce((sum, s) => sum + s.errors, 0);
        const p50 = percentile(latencies, 50);
        summary.set(`${door.name}@${concurrency}`, p50);
        console.log(
          `${door.name.padEnd(22)} ${String(concurrency).padStart(11)}  ${String(latencies.length).padStart(8)}  ${String(errors).padStart(6)}  ${fmt(latencies.length / seconds, 0).padStart(7)}  ${fmt(p50).padStart(7)}  ${fmt(percentile(latencies, 99)).padStart(7)}`,
        );
      }
    }
    for (const concurrency of [1, 16]) {
      const added = summary.get(`/v1/messages@${concurrency}`)! - summary.get(`/v1/chat/completions@${concurrency}`)!;
      console.log(`added by the door at concurrency ${concurrency}: p50 ${added >= 0 ? '+' : ''}${fmt(added)} ms`);
    }
    await client.close();
  } finally {
    await stopAll();
    await dbPool.end();
    await withMaintenanceClient((client) => client.query(`drop database if exists ${DB} with (force)`));
    rmSync(tmp, { recursive: true, force: true });
  }
}

runBench(main);
