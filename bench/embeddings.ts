// npm run bench:embeddings — local/embed-1024 in-process, then through POST /v1/embeddings.
//
// 1. In-process: inputs/s and MB/s for batches of 1 and 256 typical 400-character passages
//    (bench/embed-local.ts). Target: ≥ 20,000 passages/s on one core.
// 2. Through the endpoint of a real web process (and its worker, as in production) on a fresh
//    database: latency of a single-input request at concurrency 1, and what it adds over the
//    embedding work itself (target: ≤ 1 ms); then req/s for single inputs at a few concurrencies
//    and inputs/s for batches of 256.
import { closeSync, mkdtempSync, openSync, rmSync } from 'node:fs';
import { cpus, tmpdir } from 'node:os';
import { join } from 'node:path';
import { Pool } from 'undici';
import { createPool } from '../src/db/pool.js';
import { migrate } from '../src/db/migrate.js';
import { embedText } from '../src/gateway/providers/local/embed.js';
import { fromRoot } from '../src/paths.js';
import { createKey } from '../src/tenancy/keys.js';
import { formatEmbedLocalBenchTable, generatePassages, runEmbedLocalBench } from './embed-local.js';
import { freePort, runBench, spawnManaged, stopAll, waitHttpOk } from './gateway-procs.js';
import { benchDatabaseUrl, withMaintenanceClient } from './bench-postgres.js';

const DB = 'polder_bench_embeddings';
const quick = process.argv.includes('--quick');

const percentile = (sorted: number[], p: number) => sorted[Math.min(sorted.length - 1, Math.floor((sorted.length * p) / 100))]!;
const fmt = (n: number, digits = 3) => n.toLocaleString('en-US', { minimumFractionDigits: digits, maximumFractionDigits: digits });

/** Median time of embedText on one passage, in ms: the embedding work the endpoint wraps. */
function embeddingWorkMs(passage: string): number {
  for (let i = 0; i < 2000; i += 1) embedText(passage);
  const times: number[] = [];
  for (let i = 0; i < 5000; i += 1) {
    const started = process.hrtime.bigint();
    embedText(passage);
    times.push(Number(process.hrtime.bigint() - started) / 1e6);
  }
  return percentile(times.sort((a, b) => a - b), 50);
}

interface LoadResult {
  concurrency: number;
  batch: number;
  requests: number;
  errors: number;
  seconds: number;
  p50: number;
  p99: number;
}

async function load(client: Pool, key: string, inputs: string[], concurrency: number, seconds: number, batch: number): Promise<LoadResult> {
  const latencies: number[] = [];
  let errors = 0;
  let next = 0;
  const deadline = performance.now() + seconds * 1000;
  const started = performance.now();
  const worker = async () => {
    while (performance.now() < deadline) {
      const offset = (next += batch) % (inputs.length - batch);
      const body = JSON.stringify({ model: 'local/embed-1024', input: batch === 1 ? inputs[offset] : inputs.slice(offset, offset + batch), encoding_format: 'float' });
      const t = process.hrtime.bigint();
      const response = await client.request({
        path: '/v1/embeddings',
        method: 'POST',
        headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
        body,
      });
      await response.body.text();
      if (response.statusCode === 200) latencies.push(Number(process.hrtime.bigint() - t) / 1e6);
      else errors += 1;
    }
  };
  await Promise.all(Array.from({ length: concurrency }, worker));
  const elapsed = (performance.now() - started) / 1000;
  latencies.sort((a, b) => a - b);
  return { concurrency, batch, requests: latencies.length, errors, seconds: elapsed, p50: percentile(latencies, 50), p99: percentile(latencies, 99) };
}

async function main(): Promise<void> {
  console.log('Polder embeddings bench');
  console.log(`machine: ${cpus().length} cores, Node ${process.version}, ${new Date().toISOString()}\n`);
  console.log('local/embed-1024 in process (one core):');
  const inProcess = await runEmbedLocalBench(quick ? { runSeconds: 0.8, warmupSeconds: 0.2 } : {});
  console.log(formatEmbedLocalBenchTable(inProcess));
  const batch256 = inProcess.find((row) => row.batchSize === 256 && row.avgChars < 1000);
  console.log(`target ≥ 20,000 passages/s in process: ${batch256 && batch256.inputsPerSec >= 20_000 ? 'PASS' : 'MISS'}\n`);

  const tmp = mkdtempSync(join(tmpdir(), 'polder-bench-embeddings-'));
  await withMaintenanceClient(async (client) => {
    await client.query(`drop database if exists ${DB} with (force)`);
    await client.query(`create database ${DB}`);
  });
  const dbPool = createPool(benchDatabaseUrl(DB), 2);
  try {
    await migrate(dbPool);
    const { key } = await createKey(dbPool, { organization: 'bench', workspace: 'bench', kind: 'organization' });
    const port = await freePort();
    const env = { ...process.env, DATABASE_URL: benchDatabaseUrl(DB), PORT: String(port), LOG_LEVEL: 'warn' };
    const logFd = openSync(join(tmp, 'processes.log'), 'a');
    const web = spawnManaged('web', process.execPath, [fromRoot('dist/src/server.js')], { cwd: fromRoot(), env, stdio: ['ignore', logFd, logFd] });
    spawnManaged('worker', process.execPath, [fromRoot('dist/src/worker.js')], { cwd: fromRoot(), env, stdio: ['ignore', logFd, logFd] });
    closeSync(logFd);
    await waitHttpOk(`http://127.0.0.1:${port}/readyz`, web, 30_000);
    const client = new Pool(`http://127.0.0.1:${port}`, { connections: 64, pipelining: 1 });

    const passages = generatePassages(4096, 400, 7);
    const work = embeddingWorkMs(passages[0]!);
    const seconds = quick ? 1.5 : 4;
    await load(client, key, passages, 1, 1, 1);
    const single = await load(client, key, passages, 1, seconds, 1);
    const health: number[] = [];
    for (let i = 0; i < 2000; i += 1) {
      const t = process.hrtime.bigint();
      const response = await client.request({ path: '/healthz', method: 'GET' });
      await response.body.text();
      health.push(Number(process.hrtime.bigint() - t) / 1e6);
    }
    const floor = percentile(health.sort((a, b) => a - b), 50);
    const rows: LoadResult[] = [single];
    for (const concurrency of [4, 16]) rows.push(await load(client, key, passages, concurrency, seconds, 1));
    rows.push(await load(client, key, passages, 4, seconds, 256));
    await client.close();

    console.log('POST /v1/embeddings on local/embed-1024 (web + worker processes, fresh database, LOG_LEVEL=warn):');
    console.log('concurrency  inputs/request  requests   errors     req/s    inputs/s   p50 ms   p99 ms');
    for (const row of rows) {
      const rps = row.requests / row.seconds;
      console.log(
        `${String(row.concurrency).padStart(11)}  ${String(row.batch).padStart(14)}  ${String(row.requests).padStart(8)}  ${String(row.errors).padStart(7)}  ${fmt(rps, 0).padStart(8)}  ${fmt(rps * row.batch, 0).padStart(10)}  ${fmt(row.p50).padStart(7)}  ${fmt(row.p99).padStart(7)}`,
      );
    }
    const added = single.p50 - work;
    console.log(`\nsingle input at concurrency 1: p50 ${fmt(single.p50)} ms, of which the embedding itself ${fmt(work)} ms`);
    console.log(`added by the endpoint over the embedding work: ${fmt(added)} ms (target ≤ 1 ms): ${added <= 1 ? 'PASS' : 'MISS'}`);
    console.log(`for scale: GET /healthz round trip (no key, no database) p50 ${fmt(floor)} ms`);
  } finally {
    await stopAll();
    await dbPool.end();
    await withMaintenanceClient((client) => client.query(`drop database if exists ${DB} with (force)`));
    rmSync(tmp, { recursive: true, force: true });
  }
}

runBench(main);
