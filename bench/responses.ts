/**
 * What the Responses door adds beside /v1/chat/completions: one gateway (the Procfile's web and
 * worker, default settings: durable metering, LOG_LEVEL=warn) in front of bench/gateway-stub.ts,
 * the same load generator (bench/gateway-load.ts), the same stub answer, a new prompt each request
 * (no cache hits); at each concurrency, chat and Responses steps in turns, twice, the best round
 * of each kept. The Responses requests use `store` (the default), so they also write their stored
 * response. Postgres is never stopped or reconfigured here.
 *
 * A third row sends `store: false`, to tell the translation's cost from the stored response's.
 *
 *   npm run bench:responses                 # concurrency 1, 8, 32; 3 s warm-up, 8 s windows
 *   npm run bench:responses -- --quick      # 1 s warm-up, 3 s windows
 *
 * Every process started here is ended here, and the bench database is dropped.
 */
import { closeSync, mkdtempSync, openSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { migrate } from '../src/db/migrate.js';
import { createPool } from '../src/db/pool.js';
import { fromRoot } from '../src/paths.js';
import { createKey } from '../src/tenancy/keys.js';
import type { RunSpec, StepResult } from './gateway-load.js';
import { forkHelper, freePort, killAllNow, nextMessage, spawnManaged, stop, stopAll, type Managed } from './gateway-procs.js';
import { benchDatabaseUrl, maintenanceQuery } from './bench-postgres.js';
import { writeStubCatalog } from './stub-catalog.js';

const QUICK = process.argv.includes('--quick');
const WARMUP_MS = QUICK ? 1_000 : 3_000;
const WINDOW_MS = QUICK ? 3_000 : 8_000;
const CONCURRENCY = [1, 8, 32];
const ROUNDS = 2;
const MODEL = 'bench/stub-chat';
const DATABASE = 'polder_bench_responses';
const here = dirname(fileURLToPath(import.meta.url));
const helper = (name: string) => join(here, `${name}.js`);
const tmp = mkdtempSync(join(tmpdir(), 'polder-bench-responses-'));

function procfileCommand(name: 'web' | 'worker'): { flags: string[]; script: string } {
  const line = readFileSync(fromRoot('Procfile'), 'utf8')
    .split('\n')
    .find((l) => l.startsWith(`${name}:`))!;
  const words = line.slice(name.length + 1).trim().split(/\s+/);
  return { flags: words.slice(1, -1), script: fromRoot(words.at(-1)!) };
}

async function waitHttpOk(url: string, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    try {
      if ((await fetch(url)).ok) return;
    } catch {
      // not listening yet
    }
    if (Date.now() > deadline) throw new Error(`${url} did not answer 200 within ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

let runId = 0;
async function step(load: Managed, spec: Omit<RunSpec, 'id'>): Promise<StepResult> {
  const id = ++runId;
  const done = nextMessage<{ type: 'result' | 'failed'; id: number; result?: StepResult; message?: string }>(
    load.child,
    ['result', 'failed'],
    spec.warmupMs + spec.windowMs + 60_000,
  );
  load.child.send({ type: 'run', id, ...spec });
  const reply = await done;
  if (!reply.result) throw new Error(`load generator failed: ${reply.message}`);
  return reply.result;
}

const fmt = (n: number, digits = 2) => (Number.isFinite(n) ? n.toFixed(digits) : '—');

async function main(): Promise<void> {
  const stub = forkHelper('stub', helper('gateway-stub'));
  const { port: stubPort } = await nextMessage<{ type: 'ready'; port: number }>(stub.child, 'ready');
  const load = forkHelper('load', helper('gateway-load'));
  await nextMessage(load.child, 'ready');

  await maintenanceQuery(`drop database if exists ${DATABASE} with (force)`);
  await maintenanceQuery(`create database ${DATABASE}`);
  const url = benchDatabaseUrl(DATABASE);
  const pool = createPool(url, 2);
  let web: Managed | undefined;
  let worker: Managed | undefined;
  try {
    await migrate(pool);
    const { key } = await createKey(pool, { organization: 'bench', workspace: 'bench', kind: 'organization' });
    const catalogFile = writeStubCatalog(tmp, stubPort, MODEL);
    const env = { ...process.env, DATABASE_URL: url, CATALOG_FILE: catalogFile, STUB_KEY: 'bench', LOG_LEVEL: 'warn' };
    const logFd = openSync(join(tmp, 'processes.log'), 'a');
    const workerCommand = procfileCommand('worker');
    worker = spawnManaged('worker', process.execPath, [...workerCommand.flags, workerCommand.script], { cwd: fromRoot(), env, stdio: ['ignore', logFd, logFd] });
    const port = await freePort();
    const webCommand = procfileCommand('web');
    web = spawnManaged('web', process.execPath, [...webCommand.flags, webCommand.script], { cwd: fromRoot(), env: { ...env, PORT: String(port) }, stdio: ['ignore', logFd, logFd] });
    closeSync(logFd);
    const origin = `http://127.0.0.1:${port}`;
    await waitHttpOk(`${origin}/readyz`, 30_000);
    const headers = { 'content-type': 'application/json', authorization: `Bearer ${key}` };
    const doors = [
      { door: 'chat' as const, path: '/v1/chat/completions' },
      { door: 'responses' as const, path: '/v1/responses' },
      { door: 'responses-unstored' as const, path: '/v1/responses' },
    ];
    // Warm both paths (V8 compiles the hot ones) before anything is recorded.
    for (const { door, path } of doors) await step(load, { origin, path, door, headers, model: MODEL, concurrency: 4, warmupMs: 0, windowMs: WARMUP_MS, maxRequests: 1_000_000 });

    console.log(`bench:responses${QUICK ? ' --quick' : ''}: same gateway, stub and load; best of ${ROUNDS} rounds per step; ${WINDOW_MS / 1000} s windows`);
    console.log('door                          c    req/s     p50 ms   p90 ms   p99 ms   errors');
    const best = new Map<string, StepResult>();
    for (const concurrency of CONCURRENCY) {
      for (let round = 0; round < ROUNDS; round++) {
        for (const { door, path } of doors) {
          const result = await step(load, { origin, path, door, headers, model: MODEL, concurrency, warmupMs: WARMUP_MS, windowMs: WINDOW_MS, maxRequests: 1_000_000 });
          const key = `${door}@${concurrency}`;
          const kept = best.get(key);
          if (!kept || result.rps > kept.rps) best.set(key, result);
        }
      }
      for (const { door, path } of doors) {
        const r = best.get(`${door}@${concurrency}`)!;
        console.log(`${(door === 'responses-unstored' ? `${path} store:false` : path).padEnd(29)} ${String(concurrency).padStart(2)} ${fmt(r.rps, 0).padStart(8)} ${fmt(r.p50).padStart(10)} ${fmt(r.p90).padStart(8)} ${fmt(r.p99).padStart(8)} ${String(r.errors).padStart(8)}${r.errorSamples[0] ? `  e.g. ${r.errorSamples[0]}` : ''}`);
      }
      const chat = best.get(`chat@${concurrency}`)!;
      for (const [label, door] of [
        ['stored', best.get(`responses@${concurrency}`)!],
        ['store:false', best.get(`responses-unstored@${concurrency}`)!],
      ] as const) {
        console.log(
          `  the door (${label}) adds at c=${concurrency}: p50 ${fmt(door.p50 - chat.p50)} ms, p99 ${fmt(door.p99 - chat.p99)} ms; req/s ${fmt(((door.rps - chat.rps) / chat.rps) * 100, 1)} %`,
        );
      }
    }
    const stored = await pool.query<{ n: number }>('select count(*)::int as n from stored_responses');
    console.log(`stored responses written: ${stored.rows[0]!.n}`);
  } finally {
    if (web) await stop(web);
    if (worker) await stop(worker);
    await pool.end();
    await stopAll();
    await maintenanceQuery(`drop database if exists ${DATABASE} with (force)`);
    rmSync(tmp, { recursive: true, force: true });
  }
}

process.on('exit', () => killAllNow());
process.on('SIGINT', () => process.exit(130));
main().then(
  () => process.exit(0),
  (err: Error) => {
    console.error(err.stack ?? err.message);
    process.exit(1);
  },
);
