/**
 * What the gateway adds, against a zero-delay upstream, next to two floors (a bare undici
 * passthrough, and the design's own: Koa with one durable usage row per request) and a reference
 * (Portkey's open-source gateway), all measured in one run under the same load on the same machine.
 *
 *   npm run bench:gateway                 # full run (~5–6 min)
 *   npm run bench:gateway -- --quick      # smoke run: short windows, concurrency 1, 4, 16
 *   npm run bench:gateway -- --profile    # also writes the gateway's V8 CPU profiles and summarizes one
 *   npm run bench:gateway -- --only=floor,gateway-warn   # just these targets (and the stub)
 *
 * Processes (each its own, so that no two share an event loop and each one's CPU shows):
 *  - stub:         bench/gateway-stub.ts, POST /v1/chat/completions → a fixed small completion;
 *  - load:         bench/gateway-load.ts, closed-loop generator on an undici Pool;
 *  - passthrough:  bench/gateway-passthrough.ts, node:http + undici Pool to the stub;
 *  - floor:        bench/gateway-floor.ts, ARCHITECTURE.md's prototype: Koa, key map, Ajv, undici,
 *                  a group-committed usage row (synchronous_commit off), on its own bench database;
 *  - gateway:      the Procfile's web and worker commands (node flags included), on a fresh
 *                  database and a one-model catalogue pointing at the stub;
 *  - Portkey:      npx -y @portkey-ai/gateway@1.15.2 --headless, from a temp directory.
 *
 * Every target is started first and answers the same number of requests, not recorded (V8
 * compiles its hot paths meanwhile). Then all get the same steps, in turns: concurrency 1, 2, 4, …
 * 128, each step a warm-up then a measuring window, taken by every target still going, twice, the
 * best round kept; a target stops once p99 reaches 50 ms or req/s stays below 90 % of its best
 * step. Each gateway variant has its own fresh database and worker. Every process started here is
 * ended here, and the temp files and the bench databases are removed, also on Ctrl-C or an error.
 * Exit status 1 only when our gateway could not be measured.
 */
import { closeSync, mkdtempSync, mkdirSync, openSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { cpus, release, tmpdir, totalmem } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import { request } from 'undici';
import { DEFAULT_DATABASE_URL } from '../src/config.js';
import { migrate } from '../src/db/migrate.js';
import { createPool, type Pool } from '../src/db/pool.js';
import { fromRoot } from '../src/paths.js';
import { createKey } from '../src/tenancy/keys.js';
import type { RunSpec, StepResult } from './gateway-load.js';
import { summarizeFile } from './gateway-profile-summary.js';
import {
  cmdlineOf,
  cpuMsOf,
  descendantsOf,
  forkHelper,
  freePort,
  killAllNow,
  machineCpu,
  managedPids,
  memoryOf,
  nextMessage,
  cpuDelta,
  cpuOfPids,
  spawnManaged,
  stop,
  stopAll,
  type Managed,
} from './gateway-procs.js';

// ---- settings -------------------------------------------------------------------------------

const TARGET_KEYS = ['direct', 'passthrough', 'floor', 'gateway-warn', 'gateway-info', 'gateway-sync', 'portkey'];
const args = new Set(process.argv.slice(2));
const QUICK = args.has('--quick');
const PROFILE = args.has('--profile');
/** `--only=floor,gateway-warn`: measure just these targets (the stub is always measured, as the base of "added"). */
let only: Set<string> | undefined;
for (const a of args) {
  if (a.startsWith('--only=')) {
    only = new Set(['direct', ...a.slice('--only='.length).split(',')]);
    const unknown = [...only].filter((key) => !TARGET_KEYS.includes(key));
    if (unknown.length === 0) continue;
    process.stderr.write(`bench:gateway: unknown target ${unknown.join(', ')} (known: ${TARGET_KEYS.join(', ')})\n`);
    process.exit(2);
  }
  if (!['--quick', '--profile'].includes(a)) {
    process.stderr.write(`bench:gateway: unknown option ${a} (known: --quick, --profile, --only=<targets>)\n`);
    process.exit(2);
  }
}
const selected = (key: string) => !only || only.has(key);

const WARMUP_MS = QUICK ? 300 : 500;
const WINDOW_MS = QUICK ? 1000 : 2000;
/** Each step is taken this many times, in turns with the other targets; the best one counts. */
const ROUNDS = QUICK ? 1 : 2;
const STEPS = QUICK ? [1, 4, 16] : [1, 2, 4, 8, 16, 32, 64, 128];
const MAX_REQUESTS_PER_STEP = 500_000;
/** Sent to every target before its first step, not recorded. */
const JIT_WARMUP_REQUESTS = QUICK ? 500 : 5_000;
const JIT_WARMUP_CONCURRENCY = 8;
const P99_LIMIT_MS = 50;
/** Stepping stops once req/s has fallen below this share of the best step so far… */
const RPS_DROP = 0.9;
/** …in this many steps in a row: one slow step is often the VM, not the target. */
const RPS_DROP_STEPS = 3;
/** Before measuring, wait this long at most for the machine's other work to drop below QUIET_BUSY % of a core. */
const QUIET_WAIT_MS = QUICK ? 5_000 : 20_000;
const QUIET_BUSY = 25;
/** Before a step, wait (5 s at most) while other work takes more than QUIET_BUSY; a step during which
 *  other processes took more than this (% of one core) is measured again, twice at most… */
const DISTURBED_CPU = 25;
/** …as long as the retries of the whole run stay within this. */
const RETRY_BUDGET_MS = QUICK ? 10_000 : 60_000;
const PORTKEY_PACKAGE = '@portkey-ai/gateway@1.15.2';
const PORTKEY_START_TIMEOUT_MS = 180_000;
/** Per run (the pid), so that two runs at once on one Postgres never drop each other's databases. */
const BENCH_DB_PREFIX = `polder_bench_gateway_${process.pid}`;
const MODEL = 'bench/chat';

const TARGETS = { portkeyRatio: 4, passthroughShare: 0.33, addedP50Ms: 0.6, rssMiB: 250 };

const CORES = cpus().length;
const here = dirname(fileURLToPath(import.meta.url)); // dist/bench
const helper = (name: string) => join(here, `${name}.js`);

// ---- results --------------------------------------------------------------------------------

interface Step extends StepResult {
  /** CPU of the target's server process during the window, % of one core. */
  serverCpu: number;
  /** CPU of its helper process (the gateway's worker), % of one core. */
  auxCpu: number;
  /** The load generator's CPU, % of one core. */
  loadCpu: number;
  /** The stub upstream, when it is not the target itself, % of one core. */
  stubCpu: number;
  /** Every PostgreSQL process together, % of one core. */
  pgCpu: number;
  /** Everything else on the machine (other people's work, the kernel), % of one core. */
  otherCpu: number;
  /** The whole machine, % of one core (so up to cores × 100). */
  machineBusy: number;
  /** req/s of every round of this step, the one kept among them. */
  roundsRps?: number[];
}

interface TargetResult {
  key: string;
  label: string;
  measured: boolean;
  note?: string;
  steps: Step[];
  /** Peak resident set (VmHWM) of the server process, MiB. */
  rssMiB?: number;
  auxRssMiB?: number;
  auxName?: string;
  /** Answers to the warm-up before the first step. */
  warmupAnswers?: number;
  /** Upstream requests the stub saw vs successful answers, for proxies. */
  upstreamCheck?: string;
  /** The gateway's Postgres work per answered request (bench database, the worker's jobs included). */
  pgPerRequest?: DbActivity;
}

interface DbActivity {
  commits: number;
  inserted: number;
  updated: number;
  deleted: number;
}

interface Target {
  key: string;
  label: string;
  origin: string;
  headers: Record<string, string>;
  serverPid: () => number | undefined;
  auxPid?: () => number | undefined;
  auxName?: string;
  viaStub: boolean;
}

const results: TargetResult[] = [];

// ---- the run --------------------------------------------------------------------------------

const tmp = mkdtempSync(join(tmpdir(), 'polder-bench-gateway-'));
const profileDir = PROFILE ? join(tmpdir(), `polder-bench-profile-${new Date().toISOString().replace(/[:.]/g, '-')}`) : undefined;
const baseUrl = process.env.DATABASE_URL || DEFAULT_DATABASE_URL;
/** The bench databases created so far (one per gateway variant), dropped at the end. */
const benchDatabases: string[] = [];
const benchPools = new Set<Pool>();
/** For Postgres' statistics views, which show every database's backends and counters. */
let statsPool: Pool | undefined;
let load: Managed | undefined;
let stub: Managed | undefined;
let runId = 0;
const started = Date.now();

function log(line: string): void {
  process.stderr.write(`${line}\n`);
}

function withDatabase(url: string, name: string): string {
  const u = new URL(url);
  u.pathname = `/${name}`;
  return u.toString();
}

async function withMaintenance<T>(work: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: withDatabase(baseUrl, 'postgres') });
  await client.connect();
  try {
    return await work(client);
  } finally {
    await client.end();
  }
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function waitHttpOk(url: string, child: Managed, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  let last = 'no answer';
  for (;;) {
    if (child.child.exitCode !== null || child.child.signalCode !== null) {
      throw new Error(`${child.name} exited (${child.child.signalCode ?? `code ${child.child.exitCode}`}) before it was ready`);
    }
    try {
      const res = await request(url, { headersTimeout: 2000, bodyTimeout: 2000 });
      const text = await res.body.text();
      if (res.statusCode === 200) return;
      last = `HTTP ${res.statusCode} ${text.slice(0, 200)}`;
    } catch (err) {
      last = (err as Error).message; // not listening yet
    }
    if (Date.now() > deadline) throw new Error(`${child.name} not ready at ${url} within ${Math.round(timeoutMs / 1000)} s (last: ${last})`);
    await sleep(100);
  }
}

/** One request as the load generator sends it; throws with the answer when it is not a 200 completion. */
async function probe(target: Target): Promise<void> {
  const res = await request(`${target.origin}/v1/chat/completions`, {
    method: 'POST',
    headers: target.headers,
    body: JSON.stringify({ model: MODEL, messages: [{ role: 'user', content: `probe ${Date.now()}` }] }),
    headersTimeout: 15_000,
    bodyTimeout: 15_000,
  });
  const text = await res.body.text();
  if (res.statusCode !== 200 || !text.includes('"choices"')) {
    throw new Error(`probe answered HTTP ${res.statusCode}: ${text.slice(0, 400)}`);
  }
}

async function stubServed(): Promise<number> {
  const reply = nextMessage<{ type: 'count'; served: number }>(stub!.child, 'count', 5000);
  stub!.child.send({ type: 'count' });
  return (await reply).served;
}

function logTail(file: string, lines = 15): string {
  try {
    return readFileSync(file, 'utf8').trimEnd().split('\n').slice(-lines).join('\n');
  } catch {
    return '';
  }
}

async function runLoadStep(
  target: Target,
  concurrency: number,
  bounds: Pick<RunSpec, 'warmupMs' | 'windowMs' | 'maxRequests'> = { warmupMs: WARMUP_MS, windowMs: WINDOW_MS, maxRequests: MAX_REQUESTS_PER_STEP },
): Promise<Step> {
  const id = ++runId;
  const spec: RunSpec = {
    id,
    origin: target.origin,
    path: '/v1/chat/completions',
    headers: target.headers,
    model: MODEL,
    concurrency,
    ...bounds,
  };
  const child = load!.child;
  const sample = async () => {
    const pg = cpuOfPids(await ourPostgresPids());
    const serverPid = target.serverPid();
    const auxPid = target.auxPid?.();
    const stubPid = stub?.child.pid;
    return {
      at: process.hrtime.bigint(),
      server: serverPid ? cpuMsOf(serverPid) : 0,
      aux: auxPid ? cpuMsOf(auxPid) : 0,
      stub: stubPid && stubPid !== serverPid ? cpuMsOf(stubPid) : 0,
      pg,
      machine: machineCpu(),
    };
  };
  let first: ReturnType<typeof sample> | undefined;
  const onWindow = (msg: { type?: string; id?: number }) => {
    if (msg?.type === 'window' && msg.id === id) first = sample();
  };
  child.on('message', onWindow);
  const done = nextMessage<{ type: 'result' | 'failed'; id: number; result?: StepResult; message?: string }>(
    child,
    ['result', 'failed'],
    WARMUP_MS + WINDOW_MS + 60_000,
  );
  child.send({ type: 'run', ...spec });
  const reply = await done;
  if (reply.type === 'failed' || !reply.result) throw new Error(`load generator failed: ${reply.message}`);
  const result = reply.result;
  const last = await sample();
  child.off('message', onWindow);
  const from = first ? await first : last;
  const wallMs = Number(last.at - from.at) / 1e6 || 1;
  const machineTotal = last.machine.total - from.machine.total;
  const serverCpu = ((last.server - from.server) / wallMs) * 100;
  const auxCpu = ((last.aux - from.aux) / wallMs) * 100;
  const loadCpu = (result.loadCpuMs / result.windowMs) * 100;
  const pgCpu = (cpuDelta(from.pg, last.pg) / wallMs) * 100;
  const stubCpu = ((last.stub - from.stub) / wallMs) * 100;
  const machineBusy = machineTotal > 0 ? ((last.machine.busy - from.machine.busy) / machineTotal) * CORES * 100 : NaN;
  return {
    ...result,
    serverCpu,
    auxCpu,
    loadCpu,
    stubCpu,
    pgCpu,
    otherCpu: Math.max(0, machineBusy - serverCpu - auxCpu - loadCpu - stubCpu - pgCpu),
    machineBusy,
  };
}

/**
 * The PostgreSQL processes working for us: backends connected to the bench databases, and the
 * server's own processes (WAL writer, checkpointer, …). Backends of other databases (other
 * people's tests on a shared machine) count as "other".
 */
async function ourPostgresPids(): Promise<number[]> {
  if (!statsPool) return [];
  try {
    const { rows } = await statsPool.query<{ pid: number }>(
      'select pid from pg_stat_activity where (datname = any($1::text[]) or datname is null) and pid <> pg_backend_pid()',
      [benchDatabases],
    );
    return rows.map((r) => r.pid);
  } catch {
    return [];
  }
}

let retryBudgetMs = RETRY_BUDGET_MS;

/**
 * One step, preferably while nothing else runs: when other work is busy it waits a little first,
 * and when other work disturbed the step anyway it measures it again (twice at most), keeping the
 * least disturbed one. All of that within one time budget for the whole run.
 */
async function steadyStep(target: Target, concurrency: number): Promise<Step> {
  if (retryBudgetMs > 0) {
    const t0 = Date.now();
    await quietMachine(Math.min(5_000, retryBudgetMs), false, 300);
    retryBudgetMs -= Date.now() - t0;
  }
  let step = await runLoadStep(target, concurrency);
  for (let retry = 0; retry < 2 && step.otherCpu > DISTURBED_CPU && retryBudgetMs > 0; retry++) {
    const t0 = Date.now();
    log(`    (other work took ${fmt(step.otherCpu, 0)} % of a core during that step: measuring it again)`);
    await quietMachine(Math.min(5_000, retryBudgetMs), false, 300);
    const again = await runLoadStep(target, concurrency);
    if (again.otherCpu < step.otherCpu) step = again;
    retryBudgetMs -= Date.now() - t0;
  }
  return step;
}

/** A target being measured: its results so far, and whether it has reached its last step. */
interface Run {
  target: Target;
  result: TargetResult;
  best?: Step;
  done: boolean;
  /** What reached the stub during this target's steps (proxies only). */
  upstream: number;
  /** Steps in a row below RPS_DROP of the best. */
  belowBest: number;
  /** Successful answers in all rounds of all steps (each step's warm-up included). */
  answered: number;
  /** After each of its steps: lets the target finish what the step left (the gateway's outbox). */
  afterStep?: () => Promise<void>;
}

/** A target in the results, with no steps yet; `note` says why it will get none. */
function newRun(target: Target, note?: string, afterStep?: () => Promise<void>): Run {
  const result: TargetResult = { key: target.key, label: target.label, measured: false, steps: [] };
  if (target.auxName) result.auxName = target.auxName;
  if (note) {
    result.note = note;
    log(`  ${target.label}: ${note}`);
  }
  results.push(result);
  return { target, result, done: note !== undefined, upstream: 0, belowBest: 0, answered: 0, ...(afterStep ? { afterStep } : {}) };
}

/** Probes the target and warms it up; a target that does not answer is reported, not measured. */
async function startRun(target: Target, afterStep?: () => Promise<void>): Promise<Run> {
  try {
    await probe(target);
  } catch (err) {
    return newRun(target, `not measured: ${(err as Error).message}`);
  }
  const run = newRun(target, undefined, afterStep);
  // The same number of requests for every target before its first step, so that each is measured
  // running, not while V8 still compiles its hot paths (the gateway's c=1 p50 was ~0.5 ms higher
  // in its first second than after a few thousand requests).
  const warm = await runLoadStep(target, JIT_WARMUP_CONCURRENCY, { warmupMs: 0, windowMs: 120_000, maxRequests: JIT_WARMUP_REQUESTS });
  run.result.warmupAnswers = warm.totalOk;
  await run.afterStep?.();
  return run;
}

/** One round of a step. */
async function takeStep(run: Run, concurrency: number, round: number): Promise<Step> {
  const { target } = run;
  const servedBefore = target.viaStub ? await stubServed() : 0;
  const step = await steadyStep(target, concurrency);
  run.answered += step.totalOk;
  if (target.viaStub) run.upstream += (await stubServed()) - servedBefore;
  await run.afterStep?.();
  log(
    `  ${target.label.padEnd(34)} c=${String(concurrency).padStart(3)}${ROUNDS > 1 ? ` #${round + 1}` : ''}  ${fmt(step.rps, 0).padStart(6)} req/s  ` +
      `p50 ${fmt(step.p50, 3)} ms  p99 ${fmt(step.p99, 3)} ms  errors ${step.errors}  ` +
      `cpu: server ${fmt(step.serverCpu, 0)}%${target.auxPid ? ` worker ${fmt(step.auxCpu, 0)}%` : ''} load ${fmt(step.loadCpu, 0)}% ` +
      `${target.key === 'direct' ? '' : `stub ${fmt(step.stubCpu, 0)}% `}pg ${fmt(step.pgCpu, 0)}% other ${fmt(step.otherCpu, 0)}% machine ${fmt(step.machineBusy, 0)}/${CORES * 100}%`,
  );
  for (const sampleError of step.errorSamples) log(`    error: ${sampleError}`);
  return step;
}

/**
 * Keeps the best round of a step (the most req/s among those with p99 under the limit; at c=1,
 * in a closed loop, the lowest mean latency); the run is done once p99 reaches the limit or req/s drops.
 */
function keepStep(run: Run, rounds: Step[]): void {
  const under = rounds.filter((s) => s.count > 0 && s.p99 < P99_LIMIT_MS);
  const step = [...(under.length > 0 ? under : rounds)].sort((x, y) => y.rps - x.rps)[0]!;
  run.result.steps.push({ ...step, roundsRps: rounds.map((s) => s.rps) });
  // "req/s drops": below the best so far by more than the step-to-step noise of a shared VM
  // (a 5 % dip at c=4 must not end a target whose throughput still doubles at c=16).
  run.belowBest = run.best && step.rps < run.best.rps * RPS_DROP ? run.belowBest + 1 : 0;
  if (step.count === 0 || step.p99 >= P99_LIMIT_MS || run.belowBest >= RPS_DROP_STEPS) {
    run.done = true;
    return;
  }
  if (!run.best || step.rps > run.best.rps) run.best = step;
}

/** Peak memory, and for proxies whether every answer really went upstream. */
async function finishRun(run: Run): Promise<void> {
  const { target, result } = run;
  result.measured = result.steps.some((s) => s.count > 0);
  const pid = target.serverPid();
  const mem = pid ? memoryOf(pid) : undefined;
  if (mem) result.rssMiB = mem.hwmMiB;
  const auxPid = target.auxPid?.();
  const auxMem = auxPid ? memoryOf(auxPid) : undefined;
  if (auxMem) result.auxRssMiB = auxMem.hwmMiB;
  if (target.viaStub && result.steps.length > 0) {
    // The load generator's successful answers in the steps against what reached the stub meanwhile.
    // Fewer upstream calls would mean answers served from a cache.
    const { upstream, answered } = run;
    result.upstreamCheck = upstream >= answered ? 'ok' : `only ${upstream} of ${answered} answers went upstream`;
    if (upstream < answered) log(`  ${target.label}: ${result.upstreamCheck}`);
  }
}

/**
 * Every target gets the same steps, taken in turns: at each concurrency, each target still going
 * runs its step, then each again (ROUNDS times), the first of them a different one every time; the
 * best round counts. The VMs this runs on change speed, by up to 2× for seconds to tens of
 * seconds: measured one after the other, or once, a target measured during a slow spell would look
 * slower than the others (bench/README.md, 2026-11-23).
 */
async function measureInTurns(runs: Run[]): Promise<void> {
  let turn = 0;
  for (const concurrency of STEPS) {
    const going = runs.filter((r) => !r.done);
    if (going.length === 0) break;
    const rounds = new Map<Run, Step[]>(going.map((r) => [r, []]));
    for (let round = 0; round < ROUNDS; round++, turn++) {
      const first = turn % going.length;
      for (const run of [...going.slice(first), ...going.slice(0, first)]) {
        rounds.get(run)!.push(await takeStep(run, concurrency, round));
      }
    }
    for (const run of going) keepStep(run, rounds.get(run)!);
  }
  for (const run of runs) await finishRun(run);
}

// ---- our gateway ----------------------------------------------------------------------------

/** Node's flags and the script of a Procfile process (`web: node <flags…> <script>`), so the bench runs it as deployed. */
function procfileCommand(name: 'web' | 'worker'): { flags: string[]; script: string } {
  const line = readFileSync(fromRoot('Procfile'), 'utf8')
    .split('\n')
    .find((l) => l.startsWith(`${name}:`));
  const words = line?.slice(name.length + 1).trim().split(/\s+/) ?? [];
  if (words[0] !== 'node' || words.length < 2) throw new Error(`the Procfile has no "${name}: node … <script>" line`);
  return { flags: words.slice(1, -1), script: fromRoot(words.at(-1)!) };
}

/** A fresh bench database (dropped first when it exists), migrated, with one organization key. */
async function createBenchDatabase(
  name: string,
): Promise<{ pool: Pool; url: string; apiKey: string; workspaceId: string; organizationId: string }> {
  await withMaintenance(async (client) => {
    await client.query(`drop database if exists ${name} with (force)`);
    await client.query(`create database ${name}`);
  });
  benchDatabases.push(name);
  const url = withDatabase(baseUrl, name);
  const pool = createPool(url, 2);
  benchPools.add(pool);
  await migrate(pool);
  const created = await createKey(pool, { organization: 'bench', workspace: 'bench', kind: 'organization' });
  return { pool, url, apiKey: created.key, workspaceId: created.workspace_id, organizationId: created.organization_id };
}

function writeCatalog(stubPort: number): string {
  const file = join(tmp, 'catalog.yaml');
  writeFileSync(
    file,
    `# bench/gateway.ts: one EU provider (the zero-delay stub) and one model on it.
providers:
  - id: stub
    region: eu
    kind: openai
    base_url: http://127.0.0.1:${stubPort}/v1
    api_key: \${STUB_KEY}
    timeout_ms: 30000
models:
  - id: ${MODEL}
    type: chat
    context_length: 131072
    pricing: {prompt: 0.1, completion: 0.3}
    endpoints:
      - {provider: stub, upstream_model: stub-chat}
services:
  firewall_per_1k_tokens: 0.01
  retrieval_per_call: 0.05
  ingest_per_chunk: 0.02
`,
  );
  return file;
}

/** Jobs due, and settled requests the drain has not yet written. */
async function backlogOf(pool: Pool): Promise<number> {
  const { rows } = await pool.query<{ n: string }>(
    `select (select count(*) from graphile_worker.jobs where run_at <= now() and attempts < max_attempts)
          + (select count(*) from pending_settlements where failed_at is null) as n`,
  );
  return Number(rows[0]?.n ?? 0);
}

/** Lets the worker write what a step left, so that it does not load the next target's step. */
async function drainBacklog(pool: Pool, label: string, timeoutMs = 30_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  let backlog = await backlogOf(pool);
  while (backlog > 0 && Date.now() < deadline) {
    await sleep(50);
    backlog = await backlogOf(pool);
  }
  if (backlog > 0) log(`  (${label}: the worker still has ${backlog} jobs or settled requests to write after ${timeoutMs / 1000} s; going on)`);
}

interface GatewayVariant {
  key: string;
  label: string;
  logLevel: string;
  synchronousCommit: 'on' | 'off';
}

interface Gateway {
  run: Run;
  pool: Pool;
  database: string;
  activityBefore: DbActivity | undefined;
  stop: () => Promise<void>;
}

/**
 * One variant on its own fresh database, with its own worker and web process (the Procfile's
 * commands, node flags included): the tables' growth under one variant must not slow another.
 */
async function startGateway(variant: GatewayVariant, catalogFile: string, stubKey: string): Promise<Gateway> {
  const database = `${BENCH_DB_PREFIX}_${variant.key.replace(/\W/g, '_')}`;
  const { pool, url, apiKey } = await createBenchDatabase(database);
  const env: NodeJS.ProcessEnv = { ...npxEnv(), DATABASE_URL: url, CATALOG_FILE: catalogFile, STUB_KEY: stubKey };
  const workerFd = openSync(join(tmp, `worker-${variant.key}.log`), 'a');
  const workerCommand = procfileCommand('worker');
  const worker = spawnManaged(`worker (${variant.label})`, process.execPath, [...workerCommand.flags, workerCommand.script], {
    cwd: fromRoot(),
    env: { ...env, LOG_LEVEL: 'warn' },
    stdio: ['ignore', workerFd, workerFd],
  });
  closeSync(workerFd);
  const port = await freePort();
  const logFile = join(tmp, `gateway-${variant.key}.log`);
  const fd = openSync(logFile, 'a');
  const { flags, script } = procfileCommand('web');
  const execArgv = [...flags];
  if (profileDir) execArgv.push('--cpu-prof', `--cpu-prof-dir=${profileDir}`, `--cpu-prof-name=${variant.key}.cpuprofile`);
  const web = spawnManaged(`gateway (${variant.label})`, process.execPath, [...execArgv, script], {
    cwd: fromRoot(),
    env: { ...env, PORT: String(port), LOG_LEVEL: variant.logLevel, METERING_SYNCHRONOUS_COMMIT: variant.synchronousCommit },
    stdio: ['ignore', fd, fd],
  });
  closeSync(fd);
  const stopBoth = async () => {
    await stop(web);
    await stop(worker);
  };
  const target: Target = {
    key: variant.key,
    label: variant.label,
    origin: `http://127.0.0.1:${port}`,
    headers: { 'content-type': 'application/json', authorization: `Bearer ${apiKey}` },
    serverPid: () => web.child.pid,
    auxPid: () => worker.child.pid,
    auxName: 'worker',
    viaStub: true,
  };
  try {
    await waitHttpOk(`${target.origin}/readyz`, web, 30_000);
  } catch (err) {
    const run = newRun(target, `not measured: ${(err as Error).message}`);
    log(logTail(logFile));
    await stopBoth();
    return { run, pool, database, activityBefore: undefined, stop: async () => undefined };
  }
  const activityBefore = await dbActivity(database);
  const run = await startRun(target, () => drainBacklog(pool, variant.label));
  if (run.done) log(logTail(logFile));
  return { run, pool, database, activityBefore, stop: stopBoth };
}

/** Postgres' work per answered request in a variant's database (its worker's jobs included). */
async function finishGateway(gateway: Gateway): Promise<void> {
  const { run, database, activityBefore } = gateway;
  await gateway.stop();
  // Postgres publishes its counters about once a second.
  await sleep(1500);
  const activityAfter = await dbActivity(database);
  const result = run.result;
  const answered = run.answered + (result.warmupAnswers ?? 0) + 1; // + the probe
  if (activityBefore && activityAfter && result.measured) {
    result.pgPerRequest = {
      commits: (activityAfter.commits - activityBefore.commits) / answered,
      inserted: (activityAfter.inserted - activityBefore.inserted) / answered,
      updated: (activityAfter.updated - activityBefore.updated) / answered,
      deleted: (activityAfter.deleted - activityBefore.deleted) / answered,
    };
  }
  benchPools.delete(gateway.pool);
  await gateway.pool.end().catch(() => undefined);
}

/** Transactions and row changes in one bench database so far (pg_stat_database). */
async function dbActivity(database: string): Promise<DbActivity | undefined> {
  try {
    const { rows } = await statsPool!.query<{ commits: string; inserted: string; updated: string; deleted: string }>(
      `select xact_commit as commits, tup_inserted as inserted, tup_updated as updated, tup_deleted as deleted
         from pg_stat_database where datname = $1`,
      [database],
    );
    const r = rows[0];
    return r ? { commits: Number(r.commits), inserted: Number(r.inserted), updated: Number(r.updated), deleted: Number(r.deleted) } : undefined;
  } catch {
    return undefined;
  }
}

// ---- Portkey --------------------------------------------------------------------------------

function npxEnv(): NodeJS.ProcessEnv {
  // Under `npm run`, npm's own settings (npm_config_local_prefix = this repo, …) are in the
  // environment; npx must see none of them so that it installs into its cache, not the repo.
  const env: NodeJS.ProcessEnv = {};
  for (const [k, v] of Object.entries(process.env)) {
    const lower = k.toLowerCase();
    if (lower.startsWith('npm_') && !['npm_config_registry', 'npm_config_cache', 'npm_config_userconfig'].includes(lower)) continue;
    if (k === 'INIT_CWD') continue;
    env[k] = v;
  }
  env.PATH = (process.env.PATH ?? '')
    .split(':')
    .filter((p) => !p.startsWith(fromRoot()))
    .join(':');
  return env;
}

/** The process that actually serves: npx → sh → node …/.bin/gateway. */
function portkeyServerPid(npx: Managed): number | undefined {
  const root = npx.child.pid;
  if (root === undefined) return undefined;
  const nodes = descendantsOf(root).filter((pid) => {
    const cmd = cmdlineOf(pid);
    return /gateway/.test(cmd) && !/^npm /.test(cmd) && !/^(sh|bash) /.test(cmd);
  });
  return nodes.at(-1);
}

function startPortkey(port: number): { npx: Managed; ready: Promise<void>; logFile: string } {
  const dir = join(tmp, 'portkey');
  mkdirSync(dir);
  const logFile = join(tmp, 'portkey.log');
  const fd = openSync(logFile, 'a');
  const npx = spawnManaged('portkey', 'npx', ['-y', PORTKEY_PACKAGE, `--port=${port}`, '--headless'], {
    cwd: dir,
    env: npxEnv(),
    stdio: ['ignore', fd, fd],
    group: true,
  });
  closeSync(fd);
  const ready = new Promise<void>((resolve, reject) => {
    npx.child.once('error', reject);
    waitHttpOk(`http://127.0.0.1:${port}/`, npx, PORTKEY_START_TIMEOUT_MS).then(resolve, reject);
  });
  ready.catch(() => undefined);
  return { npx, ready, logFile };
}

// ---- output ---------------------------------------------------------------------------------

function fmt(x: number | undefined, digits: number): string {
  if (x === undefined || !Number.isFinite(x)) return '—';
  return x.toLocaleString('en-US', { minimumFractionDigits: digits, maximumFractionDigits: digits });
}

function table(header: string[], rows: string[][], rightAlign: boolean[]): string {
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => (r[i] ?? '').length)));
  const line = (cells: string[]) =>
    cells
      .map((c, i) => (rightAlign[i] ? c.padStart(widths[i]!) : c.padEnd(widths[i]!)))
      .join('  ')
      .trimEnd();
  return [line(header), widths.map((w) => '-'.repeat(w)).join('  '), ...rows.map(line)].join('\n');
}

const c1Of = (r: TargetResult | undefined) => r?.steps.find((s) => s.concurrency === 1 && s.count > 0);
function bestOf(r: TargetResult | undefined): Step | undefined {
  let best: Step | undefined;
  for (const s of r?.steps ?? []) if (s.count > 0 && s.p99 < P99_LIMIT_MS && (!best || s.rps > best.rps)) best = s;
  return best;
}

/**
 * How much CPU other work takes (other people's tests on a shared machine), % of one core over
 * sampleMs: the machine's busy time less that of our own processes and of our Postgres backends.
 */
async function backgroundLoad(sampleMs = 1000): Promise<number> {
  const ours = async () => cpuOfPids([process.pid, ...managedPids(), ...(await ourPostgresPids())]);
  const a = { cpu: await ours(), machine: machineCpu(), at: Date.now() };
  await sleep(sampleMs);
  const b = { cpu: await ours(), machine: machineCpu(), at: Date.now() };
  if (b.machine.total <= a.machine.total) return NaN;
  const machine = ((b.machine.busy - a.machine.busy) / (b.machine.total - a.machine.total)) * CORES * 100;
  const own = (cpuDelta(a.cpu, b.cpu) / Math.max(1, b.at - a.at)) * 100;
  return Math.max(0, machine - own);
}

/** Waits (up to maxWaitMs) for other work on the machine to calm down; returns the last reading. */
async function quietMachine(maxWaitMs = QUIET_WAIT_MS, announce = false, sampleMs = 1000): Promise<number> {
  const deadline = Date.now() + maxWaitMs;
  let busy = await backgroundLoad(sampleMs);
  if (busy > QUIET_BUSY && announce) log(`the machine is ${fmt(busy, 0)} % busy with other work; waiting up to ${maxWaitMs / 1000} s for it to calm down…`);
  while (busy > QUIET_BUSY && Date.now() < deadline) busy = await backgroundLoad(sampleMs);
  return busy;
}

async function machineFacts(): Promise<string> {
  const cpu = cpus();
  let pgVersion = '?';
  try {
    pgVersion = await withMaintenance(async (c) => (await c.query<{ server_version: string }>('show server_version')).rows[0]?.server_version ?? '?');
  } catch {
    // reported as '?'
  }
  return [
    `machine: ${cpu.length} cores (${cpu[0]?.model.trim() ?? 'unknown CPU'}), ${(totalmem() / 2 ** 30).toFixed(0)} GiB, Linux ${release()}`,
    `software: Node ${process.version}, PostgreSQL ${pgVersion}, undici ${undiciVersion()}`,
    `date: ${new Date().toISOString()}`,
    `load: closed loop; first ${JIT_WARMUP_REQUESTS.toLocaleString('en-US')} requests at c=${JIT_WARMUP_CONCURRENCY} per target, not recorded; ` +
      `then warm-up ${WARMUP_MS / 1000} s + window ${WINDOW_MS / 1000} s per step, concurrency ${STEPS.join(', ')}, ` +
      `each step ${ROUNDS === 1 ? 'once' : `${ROUNDS} times, in turns with the other targets, the best round kept`} ` +
      `(stops at p99 ≥ ${P99_LIMIT_MS} ms or req/s < ${RPS_DROP * 100} % of the best step ${RPS_DROP_STEPS} steps in a row), all on 127.0.0.1`,
  ].join('\n');
}

function undiciVersion(): string {
  try {
    return (JSON.parse(readFileSync(fromRoot('node_modules/undici/package.json'), 'utf8')) as { version: string }).version;
  } catch {
    return '?';
  }
}

function report(facts: string): string {
  const out: string[] = [];
  out.push(`Polder gateway bench${QUICK ? ' (--quick)' : ''}${PROFILE ? ' (--profile: the gateway ran with --cpu-prof, which slows it)' : ''}`);
  out.push(facts);
  out.push('');
  const direct = results.find((r) => r.key === 'direct');
  const d1 = c1Of(direct);
  const rows = results.map((r) => {
    const s1 = c1Of(r);
    const best = bestOf(r);
    const errors = r.steps.reduce((sum, s) => sum + s.errors + s.warmupErrors, 0);
    if (!r.measured) return [r.label, '—', '—', '—', '—', '—', '—', '—', '—', '—'];
    return [
      r.label,
      fmt(s1?.p50, 3),
      fmt(s1?.p99, 3),
      r.key === 'direct' ? '—' : fmt(s1 && d1 ? s1.p50 - d1.p50 : undefined, 3),
      r.key === 'direct' ? '—' : fmt(s1 && d1 ? s1.p99 - d1.p99 : undefined, 3),
      fmt(best?.rps, 0),
      best ? String(best.concurrency) : '—',
      fmt(best?.p99, 2),
      r.rssMiB !== undefined ? `${fmt(r.rssMiB, 0)}${r.auxRssMiB !== undefined ? ` (+${fmt(r.auxRssMiB, 0)} ${r.auxName})` : ''}` : '—',
      String(errors),
    ];
  });
  out.push(
    table(
      ['target', 'p50 ms', 'p99 ms', 'added p50', 'added p99', 'req/s p99<50ms', 'at c', 'p99 there', 'peak RSS MiB', 'errors'],
      rows,
      [false, true, true, true, true, true, true, true, true, true],
    ),
  );
  out.push('(p50/p99 and added latency at concurrency 1; added = target − direct to stub; peak RSS = VmHWM of the server process)');
  for (const r of results) if (!r.measured) out.push(`${r.label}: ${r.note ?? 'not measured'}`);
  for (const r of results) {
    const a = r.pgPerRequest;
    if (!a) continue;
    out.push(
      `${r.label}: per request, Postgres committed ${fmt(a.commits, 1)} transactions and inserted ${fmt(a.inserted, 1)}, ` +
        `updated ${fmt(a.updated, 1)}, deleted ${fmt(a.deleted, 1)} rows (web and worker, in the bench database)`,
    );
  }
  out.push('');

  // The checks, for each gateway variant, and for the floor: what the design itself reaches here.
  const gateways = results.filter((r) => r.key.startsWith('gateway'));
  const checked = results.filter((r) => r.key === 'floor' || r.key.startsWith('gateway'));
  const portkey = bestOf(results.find((r) => r.key === 'portkey'));
  const passthrough = bestOf(results.find((r) => r.key === 'passthrough'));
  const verdict = (ok: boolean | undefined) => (ok === undefined ? 'n/a' : ok ? 'PASS' : 'MISS');
  const checkRows: string[][] = [];
  const cells = (f: (g: TargetResult) => [string, boolean | undefined]) =>
    checked.map((g) => {
      if (!g.measured) return 'not measured';
      const [value, ok] = f(g);
      return `${value} ${verdict(ok)}`;
    });
  checkRows.push([
    'req/s ÷ Portkey req/s',
    `≥ ${TARGETS.portkeyRatio}×`,
    ...cells((g) => {
      const b = bestOf(g);
      if (!portkey) return ['Portkey not measured', undefined];
      if (!b) return ['no step with p99 < 50 ms', false];
      const ratio = b.rps / portkey.rps;
      return [`${fmt(ratio, 2)}×`, ratio >= TARGETS.portkeyRatio];
    }),
  ]);
  checkRows.push([
    'req/s ÷ passthrough req/s',
    `≥ ${TARGETS.passthroughShare * 100} %`,
    ...cells((g) => {
      const b = bestOf(g);
      if (!passthrough) return ['passthrough not measured', undefined];
      if (!b) return ['no step with p99 < 50 ms', false];
      const share = b.rps / passthrough.rps;
      return [`${fmt(share * 100, 0)} %`, share >= TARGETS.passthroughShare];
    }),
  ]);
  checkRows.push([
    'added p50 at c=1',
    `≤ ${TARGETS.addedP50Ms} ms`,
    ...cells((g) => {
      const s1 = c1Of(g);
      if (!s1 || !d1) return ['—', undefined];
      const added = s1.p50 - d1.p50;
      return [`${fmt(added, 3)} ms`, added <= TARGETS.addedP50Ms];
    }),
  ]);
  checkRows.push([
    'peak RSS of web',
    `≤ ${TARGETS.rssMiB} MB`,
    ...cells((g) => (g.rssMiB === undefined ? ['—', undefined] : [`${fmt(g.rssMiB, 0)} MiB`, g.rssMiB <= TARGETS.rssMiB])),
  ]);
  if (checked.length > 0) {
    out.push(table(['check', 'target', ...checked.map((g) => g.label)], checkRows, [false, false, ...checked.map(() => false)]));
    out.push('');
  }

  // Every step, with where the CPU went (% of one core; machine = % of all cores).
  const stepRows: string[][] = [];
  for (const r of results) {
    for (const s of r.steps) {
      stepRows.push([
        r.label,
        String(s.concurrency),
        fmt(s.rps, 0),
        fmt(s.p50, 3),
        fmt(s.p90, 3),
        fmt(s.p99, 3),
        fmt(s.max, 1),
        String(s.errors),
        fmt(s.serverCpu, 0),
        r.auxName ? fmt(s.auxCpu, 0) : '',
        fmt(s.loadCpu, 0),
        r.key === 'direct' ? '' : fmt(s.stubCpu, 0),
        fmt(s.pgCpu, 0),
        fmt(s.otherCpu, 0),
        fmt(s.machineBusy, 0),
        (s.roundsRps ?? []).map((rps) => fmt(rps, 0)).join(' / '),
      ]);
    }
  }
  out.push(
    `every step (its best round); CPU in % of one core during the window (machine: all ${CORES} cores, so at most ${CORES * 100}; other = machine − the rest)`,
  );
  out.push(
    table(
      ['target', 'c', 'req/s', 'p50 ms', 'p90 ms', 'p99 ms', 'max ms', 'err', 'server', 'worker', 'load', 'stub', 'postgres', 'other', 'machine', 'req/s of each round'],
      stepRows,
      [false, true, true, true, true, true, true, true, true, true, true, true, true, true, true, false],
    ),
  );
  const disturbed = results.flatMap((r) => r.steps.filter((s) => s.otherCpu > DISTURBED_CPU).map((s) => `${r.label} c=${s.concurrency}`));
  if (disturbed.length > 0) {
    out.push(`warning: other processes took more than ${DISTURBED_CPU} % of a core during: ${disturbed.join(', ')}; those figures are low.`);
  }
  const checks = results.filter((r) => r.upstreamCheck && r.upstreamCheck !== 'ok');
  for (const r of checks) out.push(`warning: ${r.label}: ${r.upstreamCheck}`);

  // What limits the gateway, from the CPU figures at its best step; the floor's beside it.
  const main = gateways[0];
  const best = bestOf(main) ?? main?.steps.find((s) => s.count > 0);
  const floor = results.find((r) => r.key === 'floor');
  const floorBest = bestOf(floor);
  if (main && best) {
    out.push('');
    if (floor && floorBest) out.push(cpuPerRequest(floor, floorBest));
    out.push(cpuPerRequest(main, best));
    const largest = cpuParts(best)[0]!;
    // This VM never gets all its cores busy: the ceiling is the busiest any target got it in this run.
    const ceiling = Math.max(...results.flatMap((r) => r.steps.map((s) => s.machineBusy)));
    const saturated = best.machineBusy >= ceiling * 0.9;
    out.push(
      saturated
        ? `The machine's CPU is the limit (${fmt(best.machineBusy, 0)} %, against the ${fmt(ceiling, 0)} % the busiest step of this run reached), ` +
            `and ${largest.name} takes the largest share of it` +
            (best.serverCpu >= 85 ? '; the web process is also CPU-bound on its one event loop.' : '.')
        : best.serverCpu >= 85
          ? 'The web process is CPU-bound on its one event loop.'
          : 'Neither the machine nor the web process is saturated: the time goes in waiting (on Postgres, for the most part).',
    );
    out.push(PROFILE ? `CPU profiles: ${profileDir}` : 'Run with --profile for where the web process spends its CPU (a profile, not a guess).');
  }
  out.push(`total bench time ${fmt((Date.now() - started) / 1000, 0)} s`);
  return out.join('\n');
}

/** Each process's CPU during a step, largest first. */
function cpuParts(step: Step): { name: string; cpu: number }[] {
  return [
    { name: 'Postgres', cpu: step.pgCpu },
    { name: 'the web process', cpu: step.serverCpu },
    { name: 'the worker', cpu: step.auxCpu },
    { name: 'the load generator', cpu: step.loadCpu },
    { name: 'the stub', cpu: step.stubCpu },
  ]
    .filter((part) => part.cpu > 0)
    .sort((x, y) => y.cpu - x.cpu);
}

function cpuPerRequest(target: TargetResult, step: Step): string {
  const perRequest = (cpu: number) => (cpu * 10) / step.rps; // % of a core → ms of CPU per request
  return (
    `${target.label} at c=${step.concurrency} (${fmt(step.rps, 0)} req/s), CPU per request: ` +
    cpuParts(step).map((p) => `${p.name} ${fmt(perRequest(p.cpu), 2)} ms (${fmt(p.cpu, 0)} % of a core)`).join(', ') +
    `; the machine was ${fmt(step.machineBusy, 0)} % busy of ${CORES * 100} % (other work ${fmt(step.otherCpu, 0)} %).`
  );
}

// ---- clean-up -------------------------------------------------------------------------------

let cleaning: Promise<void> | undefined;
function cleanup(): Promise<void> {
  cleaning ??= (async () => {
    await stopAll().catch(() => undefined);
    for (const pool of [...benchPools, statsPool]) await pool?.end().catch(() => undefined);
    statsPool = undefined;
    for (const name of benchDatabases) {
      await withMaintenance((c) => c.query(`drop database if exists ${name} with (force)`)).catch((err: Error) =>
        log(`could not drop database ${name}: ${err.message}`),
      );
    }
    rmSync(tmp, { recursive: true, force: true });
  })();
  return cleaning;
}

let interrupted = 0;
const wasInterrupted = () => interrupted > 0;
for (const sig of ['SIGINT', 'SIGTERM'] as const) {
  process.on(sig, () => {
    interrupted++;
    if (interrupted > 1) {
      killAllNow();
      process.exit(130);
    }
    log(`\n${sig}: stopping every process the bench started and removing its files…`);
    void cleanup().finally(() => process.exit(130));
  });
}
process.on('exit', () => killAllNow());

// ---- main -----------------------------------------------------------------------------------

async function main(): Promise<number> {
  log(`bench:gateway${QUICK ? ' --quick' : ''}${PROFILE ? ' --profile' : ''}: temp files in ${tmp}`);
  if (profileDir) mkdirSync(profileDir, { recursive: true });

  stub = forkHelper('stub', helper('gateway-stub'));
  const { port: stubPort } = await nextMessage<{ type: 'ready'; port: number }>(stub.child, 'ready');
  const stubOrigin = `http://127.0.0.1:${stubPort}`;
  load = forkHelper('load', helper('gateway-load'));
  await nextMessage(load.child, 'ready');

  // Portkey installs (the first time: about a minute) while the database is set up; it must be up
  // before anything is measured, so that npm's work does not disturb the figures.
  const portkeyPort = await freePort();
  const portkey = selected('portkey') ? startPortkey(portkeyPort) : undefined;
  const portkeyStarted = portkey?.ready.then(
    () => undefined,
    (err: Error) => err,
  );

  statsPool = createPool(withDatabase(baseUrl, 'postgres'), 2);
  const catalogFile = writeCatalog(stubPort);
  if (portkey) log(`waiting for ${PORTKEY_PACKAGE} to be installed and listening…`);
  const portkeyFailure = await portkeyStarted;
  if (portkey && portkeyFailure) await stop(portkey.npx);

  const idle = await quietMachine(QUIET_WAIT_MS, true);
  const facts = `${await machineFacts()}\nbefore the run the machine was ${fmt(idle, 0)} % busy (of ${CORES * 100} %) with other work`;
  log(facts);
  if (idle > QUIET_BUSY) log('warning: the machine is not idle; figures will be low and noisy');

  log('starting and warming up every target…');
  const runs: Run[] = [];
  runs.push(
    await startRun({
      key: 'direct',
      label: 'direct to stub',
      origin: stubOrigin,
      headers: { 'content-type': 'application/json', authorization: 'Bearer sk-bench-stub' },
      serverPid: () => stub!.child.pid,
      viaStub: true,
    }),
  );
  const helpers: Managed[] = [];
  /** A proxy of ours in a process of its own, started and warmed up like the other targets. */
  const startHelper = async (key: string, label: string, env: NodeJS.ProcessEnv, apiKey: string) => {
    const managed = forkHelper(key, helper(`gateway-${key}`), { UPSTREAM: stubOrigin, ...env });
    helpers.push(managed);
    const { port } = await nextMessage<{ type: 'ready'; port: number }>(managed.child, 'ready');
    const headers = { 'content-type': 'application/json', authorization: `Bearer ${apiKey}` };
    runs.push(await startRun({ key, label, origin: `http://127.0.0.1:${port}`, headers, serverPid: () => managed.child.pid, viaStub: true }));
  };
  if (selected('passthrough')) await startHelper('passthrough', 'undici passthrough', {}, 'sk-bench-stub');
  if (selected('floor')) {
    const { apiKey, url, workspaceId, organizationId } = await createBenchDatabase(`${BENCH_DB_PREFIX}_floor`);
    const env = { DATABASE_URL: url, API_KEY: apiKey, WORKSPACE_ID: workspaceId, ORGANIZATION_ID: organizationId };
    await startHelper('floor', 'floor (Koa + durable usage)', env, apiKey);
  }
  const variants: GatewayVariant[] = [
    { key: 'gateway-warn', label: 'gateway (LOG_LEVEL=warn)', logLevel: 'warn', synchronousCommit: 'off' },
    { key: 'gateway-info', label: 'gateway (LOG_LEVEL=info)', logLevel: 'info', synchronousCommit: 'off' },
    { key: 'gateway-sync', label: 'gateway (warn, sync commit on)', logLevel: 'warn', synchronousCommit: 'on' },
  ].filter((variant) => selected(variant.key)) as GatewayVariant[];
  const gateways: Gateway[] = [];
  for (const variant of variants) gateways.push(await startGateway(variant, catalogFile, 'sk-bench-stub'));
  runs.push(...gateways.map((g) => g.run));
  const portkeyTarget: Target = {
    key: 'portkey',
    label: `Portkey ${PORTKEY_PACKAGE.split('@').at(-1)}`,
    origin: `http://127.0.0.1:${portkeyPort}`,
    headers: {
      'content-type': 'application/json',
      authorization: 'Bearer sk-bench-stub',
      'x-portkey-provider': 'openai',
      'x-portkey-custom-host': `${stubOrigin}/v1`,
    },
    serverPid: () => (portkey ? portkeyServerPid(portkey.npx) : undefined),
    viaStub: true,
  };
  if (portkey && portkeyFailure) {
    runs.push(newRun(portkeyTarget, `could not install or start ${PORTKEY_PACKAGE}: ${portkeyFailure.message}`));
    log(logTail(portkey.logFile));
  } else if (portkey) {
    runs.push(await startRun(portkeyTarget));
  }

  log('the steps, every target in turn at each concurrency');
  // The load window, so the profile summary can leave start-up out (same clock as V8's profiler).
  const fromUs = Number(process.hrtime.bigint() / 1000n);
  await measureInTurns(runs);
  const toUs = Number(process.hrtime.bigint() / 1000n);
  if (profileDir) {
    for (const variant of variants) writeFileSync(join(profileDir, `${variant.key}.cpuprofile.window.json`), JSON.stringify({ fromUs, toUs }));
  }
  for (const gateway of gateways) await finishGateway(gateway);
  for (const managed of helpers) await stop(managed);
  if (portkey) await stop(portkey.npx);

  process.stdout.write(`\n${report(facts)}\n`);

  if (profileDir) {
    const files = readdirSync(profileDir).filter((f) => f.endsWith('.cpuprofile'));
    process.stdout.write(`\nCPU profiles of the gateway's web process (one per variant) in ${profileDir}:\n`);
    for (const f of files) process.stdout.write(`  ${join(profileDir, f)}\n`);
    const main = files.find((f) => f.startsWith('gateway-warn')) ?? files[0];
    if (main) process.stdout.write(`\n${summarizeFile(join(profileDir, main), 25)}\n`);
    process.stdout.write(`\nsummarize another with: node dist/bench/gateway-profile-summary.js <file.cpuprofile>\n`);
  }

  const gatewayMeasured = results.some((r) => r.key === 'gateway-warn' && r.measured);
  return gatewayMeasured ? 0 : 1;
}

let code = 1;
try {
  code = await main();
} catch (err) {
  // After Ctrl-C the children are gone and main() fails on that: nothing to report then.
  if (wasInterrupted()) {
    await cleanup();
    process.exit(130);
  }
  log(`bench:gateway failed: ${(err as Error).stack ?? String(err)}`);
  if (results.length > 0) process.stdout.write(`\n(partial results)\n${report('')}\n`);
  code = results.some((r) => r.key === 'gateway-warn' && r.measured) ? 0 : 1;
} finally {
  await cleanup();
}
process.exit(code);
