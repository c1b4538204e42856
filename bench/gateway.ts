/**
 * What the gateway adds, against a zero-delay upstream, next to two floors (a bare undici
 * passthrough, and the design's own: Koa with one group-committed usage row per request, with
 * `synchronous_commit` off and on) and a reference (Portkey's open-source gateway), all measured in
 * one run under the same load on the same machine; then, for the gateway, the WAL an answered chat
 * writes and whether an answered chat keeps its usage row when Postgres crashes.
 *
 *   npm run bench:gateway                 # full run (~7–8 min)
 *   npm run bench:gateway -- --quick      # smoke run: short windows, concurrency 1, 4, 16
 *   npm run bench:gateway -- --profile    # also writes the gateway's V8 CPU profiles and summarizes one
 *   npm run bench:gateway -- --only=floor-durable,gateway   # just these targets (and the stub)
 *   npm run bench:gateway -- --no-durability                # leave Postgres running throughout
 *
 * Processes (each its own, so that no two share an event loop and each one's CPU shows):
 *  - stub:         bench/gateway-stub.ts, POST /v1/chat/completions → a fixed small completion;
 *  - load:         bench/gateway-load.ts, closed-loop generator on an undici Pool;
 *  - passthrough:  bench/gateway-passthrough.ts, node:http + undici Pool to the stub;
 *  - floors:       bench/gateway-floor.ts, ARCHITECTURE.md's prototype: Koa, key map, Ajv, undici,
 *                  a group-committed usage row, twice: synchronous_commit off, and on ("durable"),
 *                  each on its own bench database;
 *  - gateway:      the Procfile's web and worker commands (node flags included), on a fresh
 *                  database and a one-model catalogue pointing at the stub, in three variants:
 *                  the default settings (durable metering, LOG_LEVEL=warn), sync commit off and
 *                  LOG_LEVEL=info; plus a row in which the default variant's processes are sent
 *                  one body again and again (every answer from the response cache; not checked);
 *  - Portkey:      npx -y @portkey-ai/gateway@1.15.2 --headless, from a temp directory.
 *
 * Every target is started first and answers the same number of requests, not recorded (V8
 * compiles its hot paths meanwhile). Then all get the same steps, in turns: concurrency 1, 2, 4, …
 * 128, each step a warm-up then a measuring window, taken by every target still going, twice, the
 * best round kept; a target stops once p99 reaches 50 ms or req/s stays below 90 % of its best
 * step. Each gateway variant has its own fresh database and worker. After the steps: a window at
 * c=32 on the default variant whose WAL is read back with pg_walinspect, and last (it stops the
 * shared Postgres server) the durability check: load at c=16 during which Postgres is stopped in
 * immediate mode and started again; every answered request id must have its usage row. Every
 * process started here is ended here, and the temp files and the bench databases are removed,
 * also on Ctrl-C or an error; a Postgres server the bench stopped is started again.
 * Exit status 1 only when our gateway could not be measured.
 */
import { execFile } from 'node:child_process';
import { closeSync, mkdtempSync, mkdirSync, openSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { cpus, release, tmpdir, totalmem } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import pg from 'pg';
import { request } from 'undici';
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
  waitHttpOk,
  type Managed,
} from './gateway-procs.js';
import { benchDatabaseUrl, withMaintenanceClient } from './bench-postgres.js';
import { writeStubCatalog } from './stub-catalog.js';

// ---- settings -------------------------------------------------------------------------------

const TARGET_KEYS = ['direct', 'passthrough', 'floor', 'floor-durable', 'gateway', 'gateway-limits', 'gateway-off', 'gateway-info', 'gateway-hit', 'portkey'];
const OPTIONS = ['--quick', '--profile', '--durability', '--no-durability'];
const args = new Set(process.argv.slice(2));
const QUICK = args.has('--quick');
const PROFILE = args.has('--profile');
/** On by default: it stops the shared Postgres server for a second or two, so it can be left out. */
const DURABILITY = !args.has('--no-durability');
/** `--only=floor,gateway`: measure just these targets (the stub is always measured, as the base of "added"). */
let only: Set<string> | undefined;
for (const a of args) {
  if (a.startsWith('--only=')) {
    only = new Set(['direct', ...a.slice('--only='.length).split(',')]);
    // The cache-hit row is sent to the default variant's processes: it brings that row along.
    if (only.has('gateway-hit')) only.add('gateway');
    const unknown = [...only].filter((key) => !TARGET_KEYS.includes(key));
    if (unknown.length === 0) continue;
    process.stderr.write(`bench:gateway: unknown target ${unknown.join(', ')} (known: ${TARGET_KEYS.join(', ')})\n`);
    process.exit(2);
  }
  if (!OPTIONS.includes(a)) {
    process.stderr.write(`bench:gateway: unknown option ${a} (known: ${OPTIONS.join(', ')}, --only=<targets>)\n`);
    process.exit(2);
  }
}
if (args.has('--durability') && args.has('--no-durability')) {
  process.stderr.write('bench:gateway: --durability and --no-durability contradict each other\n');
  process.exit(2);
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
/** The WAL of an answered chat is read over one window at this concurrency (ARCHITECTURE.md quotes c32). */
const WAL_CONCURRENCY = 32;
const WAL_WINDOW_MS = QUICK ? 1000 : 2000;
/** The durability check: load at this concurrency for this long, Postgres stopped this far into it. */
const CRASH_CONCURRENCY = 16;
const CRASH_LOAD_MS = QUICK ? 3000 : 5000;
const CRASH_AT_MS = QUICK ? 1000 : 2000;
/** After Postgres is back, the web process must answer /readyz (and a chat) within this. */
const READY_AFTER_RESTART_MS = 20_000;
const POSTGRES_BACK_TIMEOUT_MS = 60_000;
/**
 * Postgres 15 publishes a connected backend's counters (pg_stat_database, pg_stat_wal) up to
 * PGSTAT_IDLE_INTERVAL (10 s) after its last transaction when that came less than a second after
 * its previous report, as under load; a backend that exits publishes at once. No view says when
 * it happened, so readings of processes that stay connected wait that long after their last load.
 */
const STATS_PUBLISH_MS = 10_500;

const TARGETS = {
  portkeyRatio: 3.5,
  passthroughShare: 0.4,
  /** Added p50 at c=1 over the durable floor's. */
  addedOverDurableFloorMs: 0.15,
  postgresCpuPerRequestUs: 110,
  webCpuPerRequestMs: 0.18,
  rssMiB: 250,
};

const CORES = cpus().length;
const here = dirname(fileURLToPath(import.meta.url)); // dist/bench
const helper = (name: string) => join(here, `${name}.js`);
const execFileAsync = promisify(execFile);
/** Differs per run, so that no body of this run is in the response cache of an earlier one. */
const RUN_NONCE = Math.random().toString(36).slice(2, 10);

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
  /** What else pgPerRequest counts (the cache-hit row shares the default variant's database). */
  pgPerRequestNote?: string;
  /** What the gateway's web and worker logged at level error or above during the steps, most frequent first. */
  logErrors?: string[];
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
  /** The same body for every request, answered from the response cache (the cache-hit row). */
  body?: string;
}

/** What an answered chat writes to the WAL (the default variant, one window at WAL_CONCURRENCY). */
interface WalPerChat {
  label: string;
  answered: number;
  rps: number;
  errors: number;
  /** Per answered request, from pg_walinspect (this database's records and the transactions' own). */
  records?: number;
  bytes?: number;
  fullPageBytes?: number;
  commitRecords?: number;
  parts?: WalPart[];
  /** Why there is no breakdown (pg_walinspect missing, …). */
  walinspectNote?: string;
  /** Per answered request, from the statistics views: this database's commits, the whole server's WAL. */
  transactions?: number;
  walSyncs?: number;
  serverWalRecords?: number;
  serverWalBytes?: number;
}

interface WalPart {
  relation: string;
  rmgr: string;
  /** Per answered request. */
  records: number;
  bytes: number;
  /** Records per answered request by record type (INSERT, DELETE, INSERT_LEAF, COMMIT, …). */
  types: Map<string, number>;
}

/** One gateway variant's answered requests against its usage table, across a Postgres crash. */
interface DurabilityResult {
  key: string;
  label: string;
  /** Set when the check could not run at all. */
  skipped?: string;
  stoppedAtMs?: number;
  /** From the stop until Postgres accepted connections again. */
  downMs?: number;
  /** When Postgres accepted connections again, ms after the load began. */
  backAtMs?: number;
  answered?: number;
  answeredWithoutId?: number;
  errors?: number;
  failureSpanMs?: [number, number];
  /** Answered requests with no row in usage. */
  lost?: number;
  /** Of the lost, those still waiting in pending_settlements (the outbox of the code before issue 17). */
  lostStillPending?: number;
  webAlive?: boolean;
  webExit?: string;
  /** The last lines of the log of a process that died. */
  deathLogs: string[];
  /** After Postgres accepted connections again. */
  readyAfterMs?: number;
  chatAfterMs?: number;
  afterRestartProblems: string[];
  workerAlive?: boolean;
  workerExit?: string;
}

const results: TargetResult[] = [];
const durabilityResults: DurabilityResult[] = [];
let walPerChat: WalPerChat | undefined;
let durabilityNote: string | undefined;

// ---- the run --------------------------------------------------------------------------------

const tmp = mkdtempSync(join(tmpdir(), 'polder-bench-gateway-'));
const profileDir = PROFILE ? join(tmpdir(), `polder-bench-profile-${new Date().toISOString().replace(/[:.]/g, '-')}`) : undefined;
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

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

interface ChatAnswer {
  status: number;
  text: string;
  cache: string | undefined;
}

/** One chat request, as the load generator sends them. */
async function chat(target: Target, body: string): Promise<ChatAnswer> {
  const res = await request(`${target.origin}/v1/chat/completions`, {
    method: 'POST',
    headers: target.headers,
    body,
    headersTimeout: 15_000,
    bodyTimeout: 15_000,
  });
  const text = await res.body.text();
  const cache = res.headers['x-cache'];
  return { status: res.statusCode, text, cache: Array.isArray(cache) ? cache[0] : cache };
}

const isCompletion = (answer: ChatAnswer) => answer.status === 200 && answer.text.includes('"choices"');

/** A prompt no earlier request had. */
const freshBody = (what: string) =>
  JSON.stringify({ model: MODEL, messages: [{ role: 'user', content: `${what} ${RUN_NONCE} ${Date.now()} ${Math.random()}` }] });

/** One request with a prompt of its own; throws with the answer when it is not a 200 completion. */
async function probe(target: Target): Promise<void> {
  const answer = await chat(target, freshBody('probe'));
  if (!isCompletion(answer)) throw new Error(`probe answered HTTP ${answer.status}: ${answer.text.slice(0, 400)}`);
}

/**
 * Sends the cache-hit target's one body until the gateway answers it from its response cache (the
 * first answer stores it); returns how many were answered.
 */
async function primeCache(target: Target, body: string, timeoutMs = 10_000): Promise<number> {
  const deadline = Date.now() + timeoutMs;
  for (let sent = 1; ; sent++) {
    const answer = await chat(target, body);
    if (!isCompletion(answer)) throw new Error(`priming the response cache answered HTTP ${answer.status}: ${answer.text.slice(0, 300)}`);
    if (answer.cache === 'HIT') return sent;
    if (Date.now() > deadline) {
      throw new Error(`the same body was still answered with X-Cache: ${answer.cache ?? '(none)'} after ${sent} requests in ${timeoutMs / 1000} s`);
    }
    await sleep(50);
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
    ...(target.body ? { body: target.body, expectCacheHit: true } : {}),
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
    const { rows } = await statsPool.query<{ pid: number; ours: boolean; client: boolean }>(
      `select pid, coalesce(datname = any($1::text[]), true) as ours, backend_type = 'client backend' as client
         from pg_stat_activity where pid <> pg_backend_pid()`,
      [benchDatabases],
    );
    // Four gateways with a pool of 20 each, their workers and the floors come near a default
    // max_connections of 100 on a server others use too; a refused connection is a 500 in a step.
    const clients = rows.filter((r) => r.client);
    connectionPeak.ours = Math.max(connectionPeak.ours, clients.filter((r) => r.ours).length);
    connectionPeak.total = Math.max(connectionPeak.total, clients.length + 1); // + this one
    return rows.filter((r) => r.ours).map((r) => r.pid);
  } catch {
    return [];
  }
}

/** The most client connections seen at the start of or after a step: the bench's, and the server's in all. */
const connectionPeak = { ours: 0, total: 0 };
/** max_connections less the slots reserved for superusers: what the gateway's connections can take. */
let connectionLimit: number | undefined;

async function readConnectionLimit(): Promise<void> {
  try {
    const { rows } = await statsPool!.query<{ max: number; reserved: number }>(
      `select current_setting('max_connections')::int as max, current_setting('superuser_reserved_connections')::int as reserved`,
    );
    const r = rows[0];
    if (r) connectionLimit = r.max - r.reserved;
  } catch {
    // reported as unknown
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
  /** Answers before the first step: the probe, the cache priming, the warm-up. */
  setupAnswers: number;
  /** Answers with X-Cache: HIT in all rounds of all steps. */
  cacheHits: number;
  /** Date.now() when the target's last load (and what its worker had to write after it) ended. */
  lastLoadAt: number;
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
  return {
    target,
    result,
    done: note !== undefined,
    upstream: 0,
    belowBest: 0,
    answered: 0,
    setupAnswers: 0,
    cacheHits: 0,
    lastLoadAt: Date.now(),
    ...(afterStep ? { afterStep } : {}),
  };
}

/** Probes the target and warms it up; a target that does not answer is reported, not measured. */
async function startRun(target: Target, afterStep?: () => Promise<void>): Promise<Run> {
  let setupAnswers = 0;
  try {
    await probe(target);
    setupAnswers++;
    if (target.body) setupAnswers += await primeCache(target, target.body);
  } catch (err) {
    return newRun(target, `not measured: ${(err as Error).message}`);
  }
  const run = newRun(target, undefined, afterStep);
  // The same number of requests for every target before its first step, so that each is measured
  // running, not while V8 still compiles its hot paths (the gateway's c=1 p50 was ~0.5 ms higher
  // in its first second than after a few thousand requests).
  const warm = await runLoadStep(target, JIT_WARMUP_CONCURRENCY, { warmupMs: 0, windowMs: 120_000, maxRequests: JIT_WARMUP_REQUESTS });
  run.result.warmupAnswers = warm.totalOk;
  run.setupAnswers = setupAnswers + warm.totalOk;
  await run.afterStep?.();
  run.lastLoadAt = Date.now();
  return run;
}

/** One round of a step. */
async function takeStep(run: Run, concurrency: number, round: number): Promise<Step> {
  const { target } = run;
  const servedBefore = target.viaStub ? await stubServed() : 0;
  const step = await steadyStep(target, concurrency);
  run.answered += step.totalOk;
  run.cacheHits += step.cacheHits;
  if (target.viaStub) run.upstream += (await stubServed()) - servedBefore;
  await run.afterStep?.();
  run.lastLoadAt = Date.now();
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
    // Fewer upstream calls would mean answers served from a cache; on the cache-hit row, any
    // upstream call is a request the cache did not answer.
    const { upstream, answered, cacheHits } = run;
    if (target.body) {
      result.upstreamCheck = upstream === 0 ? 'ok' : `${upstream} of ${answered} answers went upstream instead of coming from the cache`;
    } else if (upstream < answered || cacheHits > 0) {
      result.upstreamCheck = `only ${upstream} of ${answered} answers went upstream, and ${cacheHits} said X-Cache: HIT (the prompts were to be all distinct)`;
    } else {
      result.upstreamCheck = 'ok';
    }
    if (result.upstreamCheck !== 'ok') log(`  ${target.label}: ${result.upstreamCheck}`);
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
  await withMaintenanceClient(async (client) => {
    await client.query(`drop database if exists ${name} with (force)`);
    await client.query(`create database ${name}`);
  });
  benchDatabases.push(name);
  const url = benchDatabaseUrl(name);
  const pool = createPool(url, 2);
  benchPools.add(pool);
  await migrate(pool);
  const created = await createKey(pool, { organization: 'bench', workspace: 'bench', kind: 'organization' });
  return { pool, url, apiKey: created.key, workspaceId: created.workspace_id, organizationId: created.organization_id };
}

/** Limits far above what the bench sends, at every level, so each request is checked and none refused. */
async function setGenerousLimits(pool: Pool, workspaceId: string, organizationId: string): Promise<void> {
  const rates = 1_000_000_000;
  const credits = 10_000_000_000;
  await pool.query(
    `update api_keys set requests_per_minute = $1, tokens_per_minute = $1, credits_per_day = $2, credits_per_month = $2`,
    [rates, credits],
  );
  await pool.query(
    `insert into scope_limits (scope_kind, scope_id, organization_id, requests_per_minute, tokens_per_minute, credits_per_day, credits_per_month)
     values ('workspace', $1, $2, $3, $3, $4, $4), ('organization', $2, $2, $3, $3, $4, $4)`,
    [workspaceId, organizationId, rates, credits],
  );
}

// Until issue 17 the web process left one pending_settlements row per request for the worker's
// drain to write; from it on, that table is gone and the worker has only its other jobs. The bench
// measures both, so it asks which schema it has (a query naming a missing table does not parse).
const JOBS_DUE_SQL = `select count(*) as n from graphile_worker.jobs where run_at <= now() and attempts < max_attempts`;
const JOBS_DUE_AND_PENDING_SQL = `
  select (select count(*) from graphile_worker.jobs where run_at <= now() and attempts < max_attempts)
       + (select count(*) from pending_settlements where failed_at is null) as n`;

async function hasPendingSettlements(pool: Pool): Promise<boolean> {
  const { rows } = await pool.query<{ present: boolean }>(`select to_regclass('pending_settlements') is not null as present`);
  return rows[0]?.present === true;
}

/** Jobs due, and (before issue 17) settled requests the drain has not yet written. */
async function backlogOf(gateway: Pick<Gateway, 'pool' | 'outbox'>): Promise<number> {
  const { rows } = await gateway.pool.query<{ n: string }>(gateway.outbox ? JOBS_DUE_AND_PENDING_SQL : JOBS_DUE_SQL);
  return Number(rows[0]?.n ?? 0);
}

/** Lets the worker write what a step left, so that it does not load the next target's step. */
async function drainBacklog(gateway: Pick<Gateway, 'pool' | 'outbox'>, label: string, timeoutMs = 30_000): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  let backlog = await backlogOf(gateway);
  while (backlog > 0 && Date.now() < deadline) {
    await sleep(50);
    backlog = await backlogOf(gateway);
  }
  if (backlog > 0) log(`  (${label}: the worker still has ${backlog} jobs or settled requests to write after ${timeoutMs / 1000} s; going on)`);
  return backlog === 0;
}

interface GatewayVariant {
  key: string;
  label: string;
  logLevel: 'warn' | 'info';
  /** Set explicitly, so that a variant means the same against code whose default is off and code whose default is on. */
  synchronousCommit: 'on' | 'off';
  /** Every limit set, on the key, the workspace and the organization, too high to refuse: what checking them costs. */
  limits?: boolean;
}

const VARIANTS: GatewayVariant[] = [
  { key: 'gateway', label: 'gateway (durable, warn)', logLevel: 'warn', synchronousCommit: 'on' },
  { key: 'gateway-limits', label: 'gateway (durable, every limit set)', logLevel: 'warn', synchronousCommit: 'on', limits: true },
  { key: 'gateway-off', label: 'gateway (sync commit off)', logLevel: 'warn', synchronousCommit: 'off' },
  { key: 'gateway-info', label: 'gateway (durable, info)', logLevel: 'info', synchronousCommit: 'on' },
];
/**
 * The cache-hit row: the default variant's own processes, sent one body again and again. Not a
 * variant of its own: a fourth web process with its pool of 20 and a fourth worker took a default
 * max_connections of 100 to its limit on a shared server (refused connections were 500s).
 */
const HIT_ROW = { key: 'gateway-hit', label: 'gateway cache hits (durable, warn)' };

interface Gateway {
  variant: GatewayVariant;
  run: Run;
  /** The default variant's cache-hit row, on the same processes and database. */
  hitRun?: Run;
  /** The bench's own connections to the variant's database; replaced after a Postgres restart. */
  pool: Pool;
  url: string;
  database: string;
  /** The schema before issue 17: a pending_settlements outbox the worker drains. */
  outbox: boolean;
  web?: Managed;
  worker?: Managed;
  logFile: string;
  workerLogFile: string;
  activityBefore: DbActivity | undefined;
  stop: () => Promise<void>;
}

/**
 * One variant on its own fresh database, with its own worker and web process (the Procfile's
 * commands, node flags included): the tables' growth under one variant must not slow another.
 */
async function startGateway(variant: GatewayVariant, catalogFile: string, stubKey: string): Promise<Gateway> {
  const database = `${BENCH_DB_PREFIX}_${variant.key.replace(/\W/g, '_')}`;
  const { pool, url, apiKey, workspaceId, organizationId } = await createBenchDatabase(database);
  const outbox = await hasPendingSettlements(pool);
  if (variant.limits) await setGenerousLimits(pool, workspaceId, organizationId);
  const env: NodeJS.ProcessEnv = { ...npxEnv(), DATABASE_URL: url, CATALOG_FILE: catalogFile, STUB_KEY: stubKey };
  const workerLogFile = join(tmp, `worker-${variant.key}.log`);
  const workerFd = openSync(workerLogFile, 'a');
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
  const hitTarget: Target | undefined =
    variant.key === 'gateway' && selected(HIT_ROW.key)
      ? { ...target, ...HIT_ROW, body: freshBody('Bench: the same question every time.') }
      : undefined;
  // Without its run yet: the run's after-step drain reads the gateway's current pool.
  const starting: Omit<Gateway, 'run'> = {
    variant,
    pool,
    url,
    database,
    outbox,
    web,
    worker,
    logFile,
    workerLogFile,
    activityBefore: undefined,
    stop: stopBoth,
  };
  try {
    await waitHttpOk(`${target.origin}/readyz`, web, 30_000);
  } catch (err) {
    const note = `not measured: ${(err as Error).message}`;
    const run = newRun(target, note);
    const hitRun = hitTarget ? newRun(hitTarget, note) : undefined;
    log(logTail(logFile));
    await stopBoth();
    return Object.assign(starting, { run, ...(hitRun ? { hitRun } : {}) });
  }
  starting.activityBefore = await dbActivity(database);
  const drain = async () => {
    await drainBacklog(starting, variant.label);
  };
  const run = await startRun(target, drain);
  const hitRun = hitTarget ? await startRun(hitTarget, drain) : undefined;
  if (run.done || hitRun?.done) log(logTail(logFile));
  return Object.assign(starting, { run, ...(hitRun ? { hitRun } : {}) });
}

/** When the variant's processes last had load (its cache-hit row's included). */
const lastLoadOf = (gateway: Gateway) => Math.max(gateway.run.lastLoadAt, gateway.hitRun?.lastLoadAt ?? 0);

/**
 * The errors a pino log holds (level ≥ 50), as "message: error message ×count", most frequent
 * first: a 500 the load generator saw is only "internal error", the reason is in the log.
 */
function logErrorsOf(file: string, top = 3): string[] {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch {
    return [];
  }
  const counts = new Map<string, number>();
  for (const line of text.split('\n')) {
    if (!line.startsWith('{')) {
      // an uncaught exception prints plain text: keep its first line
      if (/^\w*Error\b/.test(line)) counts.set(line.slice(0, 300), (counts.get(line.slice(0, 300)) ?? 0) + 1);
      continue;
    }
    try {
      const entry = JSON.parse(line) as { level?: number; msg?: string; err?: { message?: string } };
      if ((entry.level ?? 0) < 50) continue;
      const what = `${entry.msg ?? '(no message)'}${entry.err?.message ? `: ${entry.err.message}` : ''}`.slice(0, 300);
      counts.set(what, (counts.get(what) ?? 0) + 1);
    } catch {
      // a line cut short: not an error entry we can read
    }
  }
  return [...counts]
    .sort((x, y) => y[1] - x[1])
    .slice(0, top)
    .map(([what, n]) => `${what} ×${n}`);
}

/** Reads what the variant's processes logged as errors so far (the steps'), before anything else happens to them. */
function collectLogErrors(gateway: Gateway): void {
  const web = gateway.hitRun ? `web (which also served ${gateway.hitRun.target.label})` : 'web';
  const errors = [
    ...logErrorsOf(gateway.logFile).map((e) => `${web}: ${e}`),
    ...logErrorsOf(gateway.workerLogFile).map((e) => `worker: ${e}`),
  ];
  if (errors.length > 0) gateway.run.result.logErrors = errors;
}

const originOf = (gateway: Gateway) => gateway.run.target.origin;
const isAlive = (m: Managed | undefined) => m !== undefined && m.child.exitCode === null && m.child.signalCode === null;
const exitOf = (m: Managed | undefined) => (m ? (m.child.signalCode ?? `exit code ${m.child.exitCode}`) : 'not started');

/** Postgres' work per answered request in a variant's database (its worker's jobs, and its cache-hit row's requests, included). */
function setActivity(gateway: Gateway, activityAfter: DbActivity | undefined): void {
  const { run, hitRun, activityBefore } = gateway;
  const result = run.result;
  const answered = run.answered + run.setupAnswers + (hitRun ? hitRun.answered + hitRun.setupAnswers : 0);
  if (hitRun) result.pgPerRequestNote = `${hitRun.target.label} included`;
  if (activityBefore && activityAfter && result.measured && answered > 0) {
    result.pgPerRequest = {
      commits: (activityAfter.commits - activityBefore.commits) / answered,
      inserted: (activityAfter.inserted - activityBefore.inserted) / answered,
      updated: (activityAfter.updated - activityBefore.updated) / answered,
      deleted: (activityAfter.deleted - activityBefore.deleted) / answered,
    };
  }
}

/** Stops a variant's processes and reads its counters, which its backends publish as they exit. */
async function finishGateway(gateway: Gateway): Promise<void> {
  await gateway.stop();
  await backendsGone(gateway.database);
  setActivity(gateway, await dbActivity(gateway.database));
  benchPools.delete(gateway.pool);
  await gateway.pool.end().catch(() => undefined);
}

/** Reads a running variant's counters once its backends have published them (STATS_PUBLISH_MS). */
async function readActivityOfRunning(gateway: Gateway): Promise<void> {
  await countersPublishedSince(lastLoadOf(gateway));
  setActivity(gateway, await dbActivity(gateway.database));
}

async function countersPublishedSince(lastLoadAt: number): Promise<void> {
  const wait = lastLoadAt + STATS_PUBLISH_MS - Date.now();
  if (wait > 0) await sleep(wait);
}

/** Waits (10 s at most) until no backend is connected to the database any more. */
async function backendsGone(database: string, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const { rows } = await statsPool!.query<{ n: number }>('select count(*)::int as n from pg_stat_activity where datname = $1', [database]);
    if ((rows[0]?.n ?? 0) === 0 || Date.now() > deadline) return;
    await sleep(50);
  }
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

// ---- WAL per answered chat ------------------------------------------------------------------

// Every WAL record between two LSNs, attributed to the relation of its first block reference
// ("blkref #0: rel <tablespace>/<database>/<relfilenode> …"). Kept: the records of this database's
// relations, and those with no relation (commit records, …) unless their transaction wrote in
// another database (the server is shared). xid is compared as text: it has no ordering operator.
const WAL_BREAKDOWN_SQL = `
  with records as (
    select xid::text as xid, resource_manager as rmgr, record_type, record_length, fpi_length,
           regexp_match(block_ref, 'rel (\\d+)/(\\d+)/(\\d+)') as rel
      from pg_get_wal_records_info($1::pg_lsn, $2::pg_lsn)
  ),
  here as (select oid from pg_database where datname = current_database()),
  elsewhere as (
    select distinct xid from records
     where rel is not null and rel[2]::oid not in (0, (select oid from here)) and xid <> '0'
  )
  select rel[1] as tablespace, rel[3] as relfilenode, rmgr, record_type,
         count(*)::int as records, sum(record_length)::bigint as bytes, sum(fpi_length)::bigint as fpi_bytes
    from records r
   where case when rel is null then xid not in (select xid from elsewhere)
              else rel[2]::oid = (select oid from here) end
   group by 1, 2, 3, 4`;

// Relation names of relfilenodes in this database (tablespace 0 = the database's default), a
// TOAST table or its index named after the table it belongs to.
const RELATION_NAMES_SQL = `
  select f.tablespace::text as tablespace, f.node::text as relfilenode,
         c.oid::regclass::text as name,
         coalesce(owner.oid::regclass::text, index_owner.oid::regclass::text) as toast_of,
         c.relkind::text as kind
    from unnest($1::oid[], $2::oid[]) as f(tablespace, node)
    left join pg_class c on c.oid = pg_filenode_relation(
           case when f.tablespace = (select dattablespace from pg_database where datname = current_database()) then 0 else f.tablespace end,
           f.node)
    left join pg_class owner on owner.reltoastrelid = c.oid
    left join pg_index i on i.indexrelid = c.oid
    left join pg_class index_owner on index_owner.reltoastrelid = i.indrelid`;

interface WalCounters {
  commits: number;
  walRecords: number;
  walBytes: number;
  walSyncs: number;
}

async function walCounters(database: string): Promise<WalCounters | undefined> {
  try {
    const { rows } = await statsPool!.query<{ commits: string; wal_records: string; wal_bytes: string; wal_sync: string }>(
      `select (select xact_commit from pg_stat_database where datname = $1) as commits, wal_records, wal_bytes, wal_sync
         from pg_stat_wal`,
      [database],
    );
    const r = rows[0];
    return r
      ? { commits: Number(r.commits), walRecords: Number(r.wal_records), walBytes: Number(r.wal_bytes), walSyncs: Number(r.wal_sync) }
      : undefined;
  } catch {
    return undefined;
  }
}

/**
 * The WAL an answered chat writes, on the default variant: one window at WAL_CONCURRENCY (its own,
 * not a step: the gateway may have stopped stepping before c=32), then whatever the worker writes
 * for it. WAL records and bytes from pg_walinspect, by relation and resource manager; transactions
 * from pg_stat_database; WAL syncs from pg_stat_wal (the whole server's).
 */
async function measureWal(gateway: Gateway): Promise<WalPerChat> {
  const { run, pool, database, variant } = gateway;
  log(`WAL per answered chat: ${variant.label}, ${WAL_WINDOW_MS / 1000} s at c=${WAL_CONCURRENCY}…`);
  let walinspectNote: string | undefined;
  try {
    await pool.query('create extension if not exists pg_walinspect');
  } catch (err) {
    walinspectNote = `pg_walinspect is not available (${(err as Error).message}): no breakdown by relation`;
    log(`  ${walinspectNote}`);
  }
  // The counters must hold everything before the window, the steps' included.
  await countersPublishedSince(lastLoadOf(gateway));
  const before = await walCounters(database);
  const startLsn = (await pool.query<{ lsn: string }>('select pg_current_wal_insert_lsn()::text as lsn')).rows[0]!.lsn;
  const step = await runLoadStep(run.target, WAL_CONCURRENCY, { warmupMs: 0, windowMs: WAL_WINDOW_MS, maxRequests: MAX_REQUESTS_PER_STEP });
  await run.afterStep?.();
  const loadEnded = Date.now();
  run.lastLoadAt = loadEnded;
  const endLsn = (await pool.query<{ lsn: string }>('select pg_current_wal_insert_lsn()::text as lsn')).rows[0]!.lsn;
  const answered = step.totalOk;
  const wal: WalPerChat = { label: variant.label, answered, rps: step.rps, errors: step.errors + step.warmupErrors };
  if (answered === 0) {
    wal.walinspectNote = 'no request was answered in the window';
    return wal;
  }
  if (walinspectNote) {
    wal.walinspectNote = walinspectNote;
  } else {
    try {
      await walFlushedTo(pool, endLsn);
      Object.assign(wal, await walBreakdown(pool, startLsn, endLsn, answered));
    } catch (err) {
      wal.walinspectNote = `pg_walinspect could not read the window: ${(err as Error).message}`;
    }
  }
  await countersPublishedSince(loadEnded);
  const after = await walCounters(database);
  if (before && after) {
    wal.transactions = (after.commits - before.commits) / answered;
    wal.walSyncs = (after.walSyncs - before.walSyncs) / answered;
    wal.serverWalRecords = (after.walRecords - before.walRecords) / answered;
    wal.serverWalBytes = (after.walBytes - before.walBytes) / answered;
  }
  log(`  ${fmt(answered, 0)} answered (${fmt(step.rps, 0)} req/s), ${fmt(wal.records ?? wal.serverWalRecords, 1)} WAL records per answered chat`);
  return wal;
}

/** pg_walinspect reads only WAL already flushed; with synchronous_commit off the tail may still be in memory for ~200 ms. */
async function walFlushedTo(pool: Pool, lsn: string, timeoutMs = 5_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const { rows } = await pool.query<{ flushed: boolean }>('select pg_current_wal_flush_lsn() >= $1::pg_lsn as flushed', [lsn]);
    if (rows[0]?.flushed) return;
    if (Date.now() > deadline) throw new Error(`the WAL up to ${lsn} was not flushed within ${timeoutMs / 1000} s`);
    await sleep(20);
  }
}

async function walBreakdown(
  pool: Pool,
  startLsn: string,
  endLsn: string,
  answered: number,
): Promise<Pick<WalPerChat, 'records' | 'bytes' | 'fullPageBytes' | 'commitRecords' | 'parts'>> {
  const { rows } = await pool.query<{
    tablespace: string | null;
    relfilenode: string | null;
    rmgr: string;
    record_type: string;
    records: number;
    bytes: string;
    fpi_bytes: string;
  }>(WAL_BREAKDOWN_SQL, [startLsn, endLsn]);
  const relations = rows.filter((r) => r.relfilenode !== null);
  const names = await pool.query<{ tablespace: string; relfilenode: string; name: string | null; toast_of: string | null; kind: string | null }>(
    RELATION_NAMES_SQL,
    [relations.map((r) => r.tablespace), relations.map((r) => r.relfilenode)],
  );
  const nameOf = new Map(
    names.rows.map((n) => {
      const name =
        n.name === null
          ? `relfilenode ${n.relfilenode} (no longer there)`
          : n.toast_of !== null
            ? `${n.kind === 'i' ? 'TOAST index' : 'TOAST'} of ${n.toast_of}`
            : n.name;
      return [`${n.tablespace}/${n.relfilenode}`, name];
    }),
  );
  const grouped = new Map<string, WalPart>();
  for (const r of rows) {
    const relation =
      r.relfilenode !== null
        ? (nameOf.get(`${r.tablespace}/${r.relfilenode}`) ?? `relfilenode ${r.relfilenode}`)
        : r.rmgr === 'Transaction'
          ? 'commit records'
          : 'other';
    const key = `${relation}\0${r.rmgr}`;
    const part = grouped.get(key) ?? { relation, rmgr: r.rmgr, records: 0, bytes: 0, types: new Map<string, number>() };
    part.records += r.records / answered;
    part.bytes += Number(r.bytes) / answered;
    part.types.set(r.record_type, (part.types.get(r.record_type) ?? 0) + r.records / answered);
    grouped.set(key, part);
  }
  const parts = [...grouped.values()].sort((x, y) => y.records - x.records || y.bytes - x.bytes);
  const sum = (f: (r: (typeof rows)[number]) => number) => rows.reduce((total, r) => total + f(r), 0) / answered;
  return {
    records: sum((r) => r.records),
    bytes: sum((r) => Number(r.bytes)),
    fullPageBytes: sum((r) => Number(r.fpi_bytes)),
    commitRecords: sum((r) => (r.relfilenode === null && r.rmgr === 'Transaction' ? r.records : 0)),
    parts,
  };
}

// ---- durability across a Postgres crash -----------------------------------------------------

/** The local cluster serving DATABASE_URL, for pg_ctlcluster (Debian's wrapper): version and name. */
interface Cluster {
  version: string;
  name: string;
}

/** True while the bench has stopped Postgres and not yet seen it accept connections again. */
let postgresStoppedByUs: Cluster | undefined;

async function localCluster(): Promise<Cluster | string> {
  const host = new URL(benchDatabaseUrl('postgres')).hostname;
  if (!['127.0.0.1', 'localhost', '::1', '[::1]', ''].includes(host)) return `Postgres is not on this machine (${host})`;
  // The server says which configuration it runs with: /etc/postgresql/<version>/<cluster>/postgresql.conf on Debian.
  const configFile = await withMaintenanceClient(async (c) => (await c.query<{ config_file: string }>('show config_file')).rows[0]?.config_file ?? '');
  const match = /^\/etc\/postgresql\/([^/]+)\/([^/]+)\/postgresql\.conf$/.exec(configFile);
  if (!match) return `cannot tell the cluster from its configuration file ${configFile} (pg_ctlcluster needs /etc/postgresql/<version>/<cluster>)`;
  return { version: match[1]!, name: match[2]! };
}

async function pgCtlCluster(cluster: Cluster, action: 'stop' | 'start', extra: string[] = []): Promise<void> {
  await execFileAsync('pg_ctlcluster', ['--skip-systemctl-redirect', cluster.version, cluster.name, action, ...extra], { timeout: 120_000 });
}

/**
 * Polls (every 100 ms, up to timeoutMs, or until `givenUp`) until Postgres answers a query (crash
 * recovery comes first); returns when it did.
 */
async function postgresAccepting(timeoutMs: number, givenUp: () => boolean = () => false): Promise<number | undefined> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const client = new pg.Client({ connectionString: benchDatabaseUrl('postgres'), connectionTimeoutMillis: 2_000 });
    client.on('error', () => undefined);
    try {
      await client.connect();
      await client.query('select 1');
      return Date.now();
    } catch {
      // refused, or "the database system is starting up"
    } finally {
      await client.end().catch(() => undefined);
    }
    if (Date.now() > deadline || givenUp()) return undefined;
    await sleep(100);
  }
}

/**
 * Starts a Postgres the bench stopped (also from the clean-up), and returns when it accepted
 * connections; says so loudly when it cannot. The server is polled while pg_ctlcluster runs (the
 * wrapper checks on it only every 0.5 s, then waits for it to settle: ~2 s after it accepts), and
 * `whileStarting` runs from the moment it accepts, alongside the wrapper.
 */
async function startPostgresAgain(cluster: Cluster, whileStarting: (acceptedAt: number) => Promise<void> = async () => undefined): Promise<number | undefined> {
  for (let attempt = 1; attempt <= 3; attempt++) {
    let failed = false;
    const starting = pgCtlCluster(cluster, 'start').catch((err: Error) => {
      failed = true;
      // also when it is running already (an earlier attempt got there late): then it accepts below
      log(`pg_ctlcluster ${cluster.version} ${cluster.name} start failed (attempt ${attempt}): ${err.message.trim()}`);
    });
    const acceptedAt = await postgresAccepting(POSTGRES_BACK_TIMEOUT_MS, () => failed);
    const [, observed] = await Promise.allSettled([starting, acceptedAt === undefined ? Promise.resolve() : whileStarting(acceptedAt)]);
    if (observed.status === 'rejected') throw observed.reason;
    const accepting = acceptedAt ?? (await postgresAccepting(2_000));
    if (accepting !== undefined) {
      postgresStoppedByUs = undefined;
      if (acceptedAt === undefined) await whileStarting(accepting);
      return accepting;
    }
  }
  log(`POSTGRES ${cluster.version}/${cluster.name} IS NOT RUNNING: start it with pg_ctlcluster --skip-systemctl-redirect ${cluster.version} ${cluster.name} start`);
  return undefined;
}

/** Polls an HTTP URL until it answers 200 or the time is up; the process serving it must stay alive. */
async function okWithin(url: string, web: Managed | undefined, timeoutMs: number, send: () => Promise<boolean>): Promise<number | string> {
  const started = Date.now();
  let last = 'no answer';
  for (;;) {
    if (!isAlive(web)) return `the web process exited (${exitOf(web)})`;
    try {
      if (await send()) return Date.now() - started;
      last = 'not 200';
    } catch (err) {
      last = (err as Error).message;
    }
    if (Date.now() - started > timeoutMs) return `no 200 from ${url} within ${timeoutMs / 1000} s (last: ${last})`;
    await sleep(100);
  }
}

/** One /readyz; it may wait as long as the check does (a short timeout would time the retries, not the gateway). */
async function readyzOk(gateway: Gateway): Promise<boolean> {
  const res = await request(`${originOf(gateway)}/readyz`, { headersTimeout: READY_AFTER_RESTART_MS, bodyTimeout: READY_AFTER_RESTART_MS });
  await res.body.text();
  return res.statusCode === 200;
}

/** The load generator runs one step; `onWindow` is called when its window starts. */
async function loadRun(spec: RunSpec, onWindow: () => void): Promise<StepResult> {
  const child = load!.child;
  const listener = (msg: { type?: string; id?: number }) => {
    if (msg?.type === 'window' && msg.id === spec.id) onWindow();
  };
  child.on('message', listener);
  try {
    const done = nextMessage<{ type: 'result' | 'failed'; id: number; result?: StepResult; message?: string }>(
      child,
      ['result', 'failed'],
      spec.warmupMs + spec.windowMs + POSTGRES_BACK_TIMEOUT_MS + 60_000,
    );
    child.send({ type: 'run', ...spec });
    const reply = await done;
    if (reply.type === 'failed' || !reply.result) throw new Error(`load generator failed: ${reply.message}`);
    return reply.result;
  } finally {
    child.off('message', listener);
  }
}

/**
 * Load on one variant while Postgres is stopped in immediate mode (its processes killed, what it
 * had in memory lost: a crash, for the WAL) and started again; then every request id answered
 * 200 must have its usage row. Errors while Postgres is down are expected and counted apart.
 */
async function durabilityCheck(gateway: Gateway, cluster: Cluster): Promise<DurabilityResult> {
  const { variant } = gateway;
  const result: DurabilityResult = { key: variant.key, label: variant.label, afterRestartProblems: [], deathLogs: [] };
  if (!isAlive(gateway.web) || !isAlive(gateway.worker)) {
    result.skipped = `not run: before it the web process was ${isAlive(gateway.web) ? 'alive' : `gone (${exitOf(gateway.web)})`} and the worker ${isAlive(gateway.worker) ? 'alive' : `gone (${exitOf(gateway.worker)})`}`;
    return result;
  }
  const readyBefore = await okWithin(`${originOf(gateway)}/readyz`, gateway.web, READY_AFTER_RESTART_MS, () => readyzOk(gateway));
  if (typeof readyBefore === 'string') {
    result.skipped = `not run: the web process was not ready before it: ${readyBefore}`;
    return result;
  }
  log(`durability: ${variant.label}, ${CRASH_LOAD_MS / 1000} s at c=${CRASH_CONCURRENCY}, Postgres stopped -m immediate at ${CRASH_AT_MS / 1000} s…`);
  // Crash recovery replays the WAL written since the last checkpoint: without one, all the
  // bench's (Postgres was down 9 s, 4.7 s of it redo), with one only the check's own.
  await withMaintenanceClient((c) => c.query('checkpoint')).catch((err: Error) => log(`  (no checkpoint before the crash: ${err.message})`));
  const spec: RunSpec = {
    id: ++runId,
    origin: originOf(gateway),
    path: '/v1/chat/completions',
    headers: gateway.run.target.headers,
    model: MODEL,
    concurrency: CRASH_CONCURRENCY,
    warmupMs: 0,
    windowMs: CRASH_LOAD_MS,
    maxRequests: 2_000_000,
    recordRequestIds: true,
  };
  let windowStarted: (at: number) => void = () => undefined;
  const windowStart = new Promise<number>((resolve) => (windowStarted = resolve));
  const loadDone = loadRun(spec, () => windowStarted(Date.now()));
  /** How soon the web process serves again once Postgres accepts connections, while the load still runs. */
  const observeRecovery = async (backAt: number) => {
    const readyAfter = await okWithin(`${originOf(gateway)}/readyz`, gateway.web, READY_AFTER_RESTART_MS, () => readyzOk(gateway));
    if (typeof readyAfter === 'number') result.readyAfterMs = msSince(backAt);
    else result.afterRestartProblems.push(`/readyz: ${readyAfter}`);
    const chatAfter = await okWithin(`${originOf(gateway)}/v1/chat/completions`, gateway.web, READY_AFTER_RESTART_MS, async () =>
      isCompletion(await chat(gateway.run.target, freshBody('after the restart'))),
    );
    if (typeof chatAfter === 'number') result.chatAfterMs = msSince(backAt);
    else result.afterRestartProblems.push(`a chat request: ${chatAfter}`);
  };
  const crash = (async () => {
    const t0 = await windowStart;
    await sleep(Math.max(0, t0 + CRASH_AT_MS - Date.now()));
    postgresStoppedByUs = cluster;
    const stoppedAt = Date.now();
    await pgCtlCluster(cluster, 'stop', ['-m', 'immediate']);
    result.stoppedAtMs = stoppedAt - t0;
    const backAt = await startPostgresAgain(cluster, async (acceptedAt) => {
      result.downMs = acceptedAt - stoppedAt;
      result.backAtMs = acceptedAt - t0;
      await observeRecovery(acceptedAt);
    });
    if (backAt === undefined) throw new Error('Postgres did not start again');
  })();
  // Both must settle before anything else happens, whichever fails.
  const [loaded, crashed] = await Promise.allSettled([loadDone, crash]);
  if (crashed.status === 'rejected') throw crashed.reason;
  if (loaded.status === 'rejected') throw loaded.reason;
  const step = loaded.value;
  result.answered = step.totalOk;
  result.answeredWithoutId = step.answeredWithoutId ?? 0;
  result.errors = step.errors + step.warmupErrors;
  if (step.failureSpanMs) result.failureSpanMs = step.failureSpanMs;

  // The bench's own connections died with the server.
  await replacePools(gateway);
  result.webAlive = isAlive(gateway.web);
  if (!result.webAlive) result.webExit = exitOf(gateway.web);
  result.workerAlive = isAlive(gateway.worker);
  if (!result.workerAlive) result.workerExit = exitOf(gateway.worker);

  // Before issue 17 usage rows are written by the worker's drain: give it the time it needs.
  if (result.workerAlive && !(await drainBacklog(gateway, variant.label))) result.afterRestartProblems.push('the worker did not write its backlog within 30 s');
  const ids = step.answeredIds ?? [];
  // The column is named apart from usage.id: inside the subquery a bare "id" would be usage's own.
  const { rows } = await gateway.pool.query<{ lost: number }>(
    `select count(*)::int as lost from unnest($1::text[]) as answered(request_id)
      where not exists (select 1 from usage u where u.request_id = answered.request_id)`,
    [ids],
  );
  result.lost = rows[0]?.lost ?? 0;
  if (result.lost > 0 && gateway.outbox) {
    const pending = await gateway.pool.query<{ n: number }>(
      `select count(*)::int as n from unnest($1::text[]) as answered(request_id)
        where not exists (select 1 from usage u where u.request_id = answered.request_id)
          and exists (select 1 from pending_settlements p where p.request_id = answered.request_id)`,
      [ids],
    );
    result.lostStillPending = pending.rows[0]?.n ?? 0;
  }
  if (!result.webAlive) result.deathLogs.push(`the web process's log ends:\n${readableLogTail(gateway.logFile)}`);
  if (!result.workerAlive) result.deathLogs.push(`the worker's log ends:\n${readableLogTail(gateway.workerLogFile)}`);
  log(`  ${durabilityLine(result)}`);
  return result;
}

const msSince = (at: number) => Date.now() - at;

/**
 * The end of a log for the report: a pino entry as its level, message and error message (an
 * entry can hold a whole serialized pg client), plain text (an uncaught exception) as it is.
 */
function readableLogTail(file: string, lines = 16): string {
  return logTail(file, lines)
    .split('\n')
    .map((line) => {
      if (!line.startsWith('{')) return line;
      try {
        const entry = JSON.parse(line) as { level?: number; msg?: string; err?: { message?: string } };
        return `[level ${entry.level ?? '?'}] ${entry.msg ?? ''}${entry.err?.message ? `: ${entry.err.message}` : ''}`;
      } catch {
        return line.slice(0, 300);
      }
    })
    .join('\n');
}

/** New connections for the bench after a Postgres restart (the old ones are dead). */
async function replacePools(gateway: Gateway): Promise<void> {
  const old = gateway.pool;
  benchPools.delete(old);
  await old.end().catch(() => undefined);
  gateway.pool = createPool(gateway.url, 2);
  benchPools.add(gateway.pool);
  const oldStats = statsPool;
  statsPool = createPool(benchDatabaseUrl('postgres'), 2);
  await oldStats?.end().catch(() => undefined);
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
    pgVersion = await withMaintenanceClient(async (c) => (await c.query<{ server_version: string }>('show server_version')).rows[0]?.server_version ?? '?');
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
  if (results.some((r) => r.key === HIT_ROW.key)) {
    out.push(
      `(${HIT_ROW.label}: the processes of gateway (durable, warn) sent one body again and again, every answer an X-Cache: HIT (any other is an error); not in the checks)`,
    );
  }
  for (const r of results) if (!r.measured) out.push(`${r.label}: ${r.note ?? 'not measured'}`);
  for (const r of results) {
    const a = r.pgPerRequest;
    if (!a) continue;
    out.push(
      `${r.label}: per request${r.pgPerRequestNote ? ` (${r.pgPerRequestNote})` : ''}, Postgres committed ${fmt(a.commits, 2)} transactions and inserted ${fmt(a.inserted, 1)}, ` +
        `updated ${fmt(a.updated, 1)}, deleted ${fmt(a.deleted, 1)} rows (web and worker, in the bench database)`,
    );
  }
  if (connectionPeak.total > 0) {
    out.push(
      `Postgres connections at the steps: at most ${connectionPeak.ours} of the bench's, ${connectionPeak.total} in all on the server ` +
        `(max_connections less the superusers' reserve: ${connectionLimit ?? '?'})`,
    );
    if (connectionLimit !== undefined && connectionPeak.total >= connectionLimit - 2) {
      out.push(`warning: the server was at or near its connection limit: a step's errors may be refused connections ("too many clients"), not the target's`);
    }
  }
  for (const d of durabilityResults) out.push(durabilityLine(d));
  if (durabilityNote) out.push(`durability: ${durabilityNote}`);
  out.push('');
  if (walPerChat) out.push(walReport(walPerChat), '');

  // The checks, for each gateway variant, and for the floors: what the design itself reaches here.
  const gateways = results.filter((r) => r.key.startsWith('gateway') && r.key !== HIT_ROW.key);
  const checked = results.filter((r) => r.key === 'floor' || r.key === 'floor-durable' || gateways.includes(r));
  const portkey = bestOf(results.find((r) => r.key === 'portkey'));
  const passthrough = bestOf(results.find((r) => r.key === 'passthrough'));
  const durableFloor = results.find((r) => r.key === 'floor-durable');
  const durableFloorC1 = c1Of(durableFloor);
  const durableFloorAdded = durableFloorC1 && d1 ? durableFloorC1.p50 - d1.p50 : undefined;
  const verdict = (ok: boolean | undefined) => (ok === undefined ? 'n/a' : ok ? 'PASS' : 'MISS');
  const checkRows: string[][] = [];
  /** Per check, whether the durable floor meets it (a target it misses, no gateway built on the design meets here). */
  const floorMisses: string[] = [];
  const addCheck = (name: string, target: string, f: (g: TargetResult) => [string, boolean | undefined]) => {
    checkRows.push([
      name,
      target,
      ...checked.map((g) => {
        if (!g.measured) return 'not measured';
        const [value, ok] = f(g);
        if (g === durableFloor && ok === false) floorMisses.push(name);
        return ok === undefined && value.startsWith('(') ? value : `${value} ${verdict(ok)}`;
      }),
    ]);
  };
  addCheck('req/s ÷ Portkey req/s', `≥ ${TARGETS.portkeyRatio}×`, (g) => {
    const b = bestOf(g);
    if (!portkey) return ['Portkey not measured', undefined];
    if (!b) return ['no step with p99 < 50 ms', false];
    const ratio = b.rps / portkey.rps;
    return [`${fmt(ratio, 2)}×`, ratio >= TARGETS.portkeyRatio];
  });
  addCheck('req/s ÷ passthrough req/s', `≥ ${TARGETS.passthroughShare * 100} %`, (g) => {
    const b = bestOf(g);
    if (!passthrough) return ['passthrough not measured', undefined];
    if (!b) return ['no step with p99 < 50 ms', false];
    const share = b.rps / passthrough.rps;
    return [`${fmt(share * 100, 0)} %`, share >= TARGETS.passthroughShare];
  });
  const addedLimit = durableFloorAdded === undefined ? undefined : durableFloorAdded + TARGETS.addedOverDurableFloorMs;
  addCheck(
    'added p50 at c=1',
    addedLimit === undefined
      ? `≤ durable floor + ${TARGETS.addedOverDurableFloorMs} ms`
      : `≤ ${fmt(addedLimit, 3)} ms (durable floor + ${TARGETS.addedOverDurableFloorMs})`,
    (g) => {
      const s1 = c1Of(g);
      if (!s1 || !d1) return ['—', undefined];
      const added = s1.p50 - d1.p50;
      return [`${fmt(added, 3)} ms`, addedLimit === undefined ? undefined : added <= addedLimit];
    },
  );
  addCheck('Postgres CPU per request', `≤ ${TARGETS.postgresCpuPerRequestUs} µs`, (g) => {
    const b = bestOf(g);
    if (!b) return ['no step with p99 < 50 ms', false];
    const us = cpuMsPerRequest(b.pgCpu, b) * 1000;
    return [`${fmt(us, 0)} µs`, us <= TARGETS.postgresCpuPerRequestUs];
  });
  addCheck('web CPU per request', `≤ ${TARGETS.webCpuPerRequestMs} ms`, (g) => {
    const b = bestOf(g);
    if (!b) return ['no step with p99 < 50 ms', false];
    const ms = cpuMsPerRequest(b.serverCpu, b);
    return [`${fmt(ms, 3)} ms`, ms <= TARGETS.webCpuPerRequestMs];
  });
  addCheck('peak RSS of web', `≤ ${TARGETS.rssMiB} MB`, (g) =>
    g.rssMiB === undefined ? ['—', undefined] : [`${fmt(g.rssMiB, 0)} MiB`, g.rssMiB <= TARGETS.rssMiB],
  );
  addCheck('answered, no usage row after crash', '0 (default settings)', (g) => {
    const d = durabilityResults.find((r) => r.key === g.key);
    if (!d) return g.key === 'gateway' ? [DURABILITY ? '(not run)' : '(not run: --no-durability)', undefined] : ['(—)', undefined];
    if (d.lost === undefined) return ['(not run)', undefined];
    // Only the default settings promise durability; `off` is measured for comparison.
    return g.key === 'gateway' ? [fmt(d.lost, 0), d.lost === 0] : [`(${fmt(d.lost, 0)}: no target)`, undefined];
  });
  if (checked.length > 0) {
    out.push(
      table(
        ['check', 'target', ...checked.map((g) => g.label)],
        checkRows,
        [false, false, ...checked.map(() => false)],
      ),
    );
    out.push(`(CPU per request at each target's best step; Postgres = the bench databases' backends and the server's own processes)`);
    if (floorMisses.length > 0) {
      out.push(
        `${durableFloor!.label} misses: ${floorMisses.join('; ')}. On this machine no gateway built on this design meets ${floorMisses.length === 1 ? 'that target' : 'those targets'}.`,
      );
    }
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
  for (const r of results) {
    if (r.logErrors) out.push(`warning: ${r.label} logged errors during the steps: ${r.logErrors.join('; ')}`);
  }

  // What limits the gateway, from the CPU figures at its best step; the floors' beside it.
  const main = gateways.find((r) => r.key === 'gateway') ?? gateways[0];
  const best = bestOf(main) ?? main?.steps.find((s) => s.count > 0);
  if (main && best) {
    out.push('');
    for (const key of ['floor', 'floor-durable']) {
      const floor = results.find((r) => r.key === key);
      const floorBest = bestOf(floor);
      if (floor && floorBest) out.push(cpuPerRequest(floor, floorBest));
    }
    out.push(cpuPerRequest(main, best));
    const hits = results.find((r) => r.key === HIT_ROW.key);
    const hitsBest = bestOf(hits);
    if (hits && hitsBest) out.push(cpuPerRequest(hits, hitsBest));
    const largest = cpuParts(best)[0]!;
    // This VM never gets all its cores busy: the ceiling is the busiest any target got it in this run.
    const ceiling = Math.max(...results.flatMap((r) => r.steps.map((s) => s.machineBusy)));
    const saturated = best.machineBusy >= ceiling * 0.9;
    out.push(
      saturated
        ? `The machine's CPU is the limit of ${main.label} (${fmt(best.machineBusy, 0)} %, against the ${fmt(ceiling, 0)} % the busiest step of this run reached), ` +
            `and ${largest.name} takes the largest share of it` +
            (best.serverCpu >= 85 ? '; the web process is also CPU-bound on its one event loop.' : '.')
        : best.serverCpu >= 85
          ? `The web process of ${main.label} is CPU-bound on its one event loop.`
          : `Neither the machine nor the web process of ${main.label} is saturated: the time goes in waiting (on Postgres, for the most part).`,
    );
    out.push(PROFILE ? `CPU profiles: ${profileDir}` : 'Run with --profile for where the web process spends its CPU (a profile, not a guess).');
  }
  out.push(`total bench time ${fmt((Date.now() - started) / 1000, 0)} s`);
  return out.join('\n');
}

/** % of one core during a step → ms of CPU per answered request. */
const cpuMsPerRequest = (cpu: number, step: Step) => (cpu * 10) / step.rps;

function durabilityLine(d: DurabilityResult): string {
  const head = `durability, ${d.label}`;
  if (d.skipped) return `${head}: ${d.skipped}`;
  const span = d.failureSpanMs ? ` (between ${fmt(d.failureSpanMs[0] / 1000, 1)} s and ${fmt(d.failureSpanMs[1] / 1000, 1)} s)` : '';
  const verdict = d.key === 'gateway' ? (d.lost === 0 ? ' (PASS)' : ' (MISS)') : ' (for comparison)';
  const pending = d.lostStillPending ? `, ${fmt(d.lostStillPending, 0)} of them still in pending_settlements` : '';
  const withoutId = d.answeredWithoutId ? `; ${fmt(d.answeredWithoutId, 0)} answers had no X-Request-Id and could not be looked up` : '';
  const lines = [
    `${head}: ${fmt(CRASH_LOAD_MS / 1000, 0)} s at c=${CRASH_CONCURRENCY}, Postgres stopped -m immediate at ${fmt((d.stoppedAtMs ?? NaN) / 1000, 1)} s ` +
      `and accepting connections again at ${fmt((d.backAtMs ?? NaN) / 1000, 1)} s: ` +
      `${fmt(d.answered, 0)} answered, ${fmt(d.errors, 0)} errors${span}, ` +
      `${fmt(d.lost, 0)} answered without a usage row${pending}${verdict}${withoutId}`,
  ];
  const web = d.webAlive
    ? `web process alive${d.readyAfterMs !== undefined ? `, /readyz 200 ${fmt(d.readyAfterMs / 1000, 2)} s after Postgres accepted connections` : ''}` +
      `${d.chatAfterMs !== undefined ? `, a chat answered 200 ${fmt(d.chatAfterMs / 1000, 2)} s after` : ''}`
    : `WEB PROCESS DIED (${d.webExit}) when Postgres restarted: a product bug`;
  const worker = d.workerAlive ? 'worker alive' : `WORKER DIED (${d.workerExit}) when Postgres restarted: a product bug`;
  lines.push(`  after the restart: ${web}; ${worker}${d.afterRestartProblems.length > 0 ? `; ${d.afterRestartProblems.join('; ')}` : ''}`);
  for (const deathLog of d.deathLogs) lines.push(deathLog.replace(/^/gm, '    '));
  return lines.join('\n');
}

function walReport(w: WalPerChat): string {
  const out: string[] = [];
  const perChat = (x: number | undefined, digits: number) => fmt(x, digits);
  out.push(
    `WAL per answered chat, ${w.label}: ${fmt(WAL_WINDOW_MS / 1000, 0)} s at c=${WAL_CONCURRENCY} and what the worker wrote after it, ` +
      `${fmt(w.answered, 0)} answered (${fmt(w.rps, 0)} req/s, ${w.errors} errors)`,
  );
  out.push(
    `  ${perChat(w.records, 1)} WAL records, ${perChat(w.bytes, 0)} bytes (full-page images ${perChat(w.fullPageBytes, 0)}), ` +
      `${perChat(w.commitRecords, 2)} commit records (pg_walinspect, this database's); ` +
      `${perChat(w.transactions, 2)} transactions (xact_commit), ${perChat(w.walSyncs, 3)} WAL syncs (the whole server's); ` +
      `the whole server (other databases' work included) wrote ${perChat(w.serverWalRecords, 1)} records, ${perChat(w.serverWalBytes, 0)} bytes (pg_stat_wal)`,
  );
  out.push('  (ARCHITECTURE.md, 2026-11-25, c32: 22.5 WAL records, 0.17 transactions, 0.03 WAL syncs per answered chat)');
  if (w.walinspectNote) out.push(`  ${w.walinspectNote}`);
  if (w.parts && w.parts.length > 0) {
    out.push(
      table(
        ['relation', 'resource manager', 'records per chat', 'bytes per chat', 'record types (records per chat)'],
        w.parts.map((p) => [
          p.relation,
          p.rmgr,
          fmt(p.records, 2),
          fmt(p.bytes, 0),
          [...p.types]
            .sort((x, y) => y[1] - x[1])
            .map(([type, records]) => `${type} ${fmt(records, 2)}`)
            .join(', '),
        ]),
        [false, false, true, true, false],
      )
        .split('\n')
        .map((line) => `  ${line}`)
        .join('\n'),
    );
  }
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
  const perRequest = (cpu: number) => cpuMsPerRequest(cpu, step);
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
    // Interrupted between stopping Postgres and seeing it back: the shared server must not stay down.
    if (postgresStoppedByUs) await startPostgresAgain(postgresStoppedByUs).catch((err: Error) => log(`could not start Postgres again: ${err.message}`));
    for (const pool of [...benchPools, statsPool]) await pool?.end().catch(() => undefined);
    statsPool = undefined;
    for (const name of benchDatabases) {
      await withMaintenanceClient((c) => c.query(`drop database if exists ${name} with (force)`)).catch((err: Error) =>
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
  log(`bench:gateway${QUICK ? ' --quick' : ''}${PROFILE ? ' --profile' : ''}${DURABILITY ? '' : ' --no-durability'}: temp files in ${tmp}`);
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

  statsPool = createPool(benchDatabaseUrl('postgres'), 2);
  await readConnectionLimit();
  const catalogFile = writeStubCatalog(tmp, stubPort, MODEL);
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
  const startHelper = async (key: string, script: string, label: string, env: NodeJS.ProcessEnv, apiKey: string) => {
    const managed = forkHelper(key, helper(script), { UPSTREAM: stubOrigin, ...env });
    helpers.push(managed);
    const { port } = await nextMessage<{ type: 'ready'; port: number }>(managed.child, 'ready');
    const headers = { 'content-type': 'application/json', authorization: `Bearer ${apiKey}` };
    runs.push(await startRun({ key, label, origin: `http://127.0.0.1:${port}`, headers, serverPid: () => managed.child.pid, viaStub: true }));
  };
  if (selected('passthrough')) await startHelper('passthrough', 'gateway-passthrough', 'undici passthrough', {}, 'sk-bench-stub');
  const floors = [
    { key: 'floor', label: 'floor (sync commit off)', synchronousCommit: 'off' },
    { key: 'floor-durable', label: 'floor (durable)', synchronousCommit: 'on' },
  ].filter((floor) => selected(floor.key));
  for (const floor of floors) {
    const { pool, apiKey, url, workspaceId, organizationId } = await createBenchDatabase(`${BENCH_DB_PREFIX}_${floor.key.replace(/\W/g, '_')}`);
    // The floor has its own connection; the server's slots are scarce with every target started (see HIT_ROW).
    benchPools.delete(pool);
    await pool.end();
    const env = { DATABASE_URL: url, API_KEY: apiKey, WORKSPACE_ID: workspaceId, ORGANIZATION_ID: organizationId, SYNCHRONOUS_COMMIT: floor.synchronousCommit };
    await startHelper(floor.key, 'gateway-floor', floor.label, env, apiKey);
  }
  const variants = VARIANTS.filter((variant) => selected(variant.key));
  const gateways: Gateway[] = [];
  for (const variant of variants) gateways.push(await startGateway(variant, catalogFile, 'sk-bench-stub'));
  runs.push(...gateways.flatMap((g) => (g.hitRun ? [g.run, g.hitRun] : [g.run])));
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

  for (const gateway of gateways) collectLogErrors(gateway);
  // What is done with stops now: it must take no CPU during the WAL window, and Postgres is about
  // to go down under it. A stopped variant's backends publish their counters as they exit.
  for (const managed of helpers) await stop(managed);
  if (portkey) await stop(portkey.npx);
  const measured = (g: Gateway) => g.run.result.measured;
  const crashKeys = DURABILITY ? ['gateway', 'gateway-off'] : [];
  const kept = gateways.filter((g) => measured(g) && (g.variant.key === 'gateway' || crashKeys.includes(g.variant.key)));
  for (const gateway of gateways) if (!kept.includes(gateway)) await finishGateway(gateway);
  for (const gateway of kept) await readActivityOfRunning(gateway);

  const main = kept.find((g) => g.variant.key === 'gateway');
  if (main) walPerChat = await measureWal(main);

  // Last: it stops the shared Postgres server, and resets its statistics.
  const crashed = kept.filter((g) => crashKeys.includes(g.variant.key));
  if (!DURABILITY) durabilityNote = 'not run (--no-durability)';
  else if (crashed.length === 0) durabilityNote = 'not run: neither gateway nor gateway-off was measured';
  else {
    const cluster = await localCluster().catch((err: Error) => `cannot find the Postgres cluster: ${err.message}`);
    if (typeof cluster === 'string') durabilityNote = `not run: ${cluster}`;
    else for (const gateway of crashed) durabilityResults.push(await durabilityCheck(gateway, cluster));
  }
  for (const gateway of kept) {
    await gateway.stop();
    benchPools.delete(gateway.pool);
    await gateway.pool.end().catch(() => undefined);
  }

  process.stdout.write(`\n${report(facts)}\n`);

  if (profileDir) {
    const files = readdirSync(profileDir).filter((f) => f.endsWith('.cpuprofile'));
    process.stdout.write(`\nCPU profiles of the gateway's web process (one per variant) in ${profileDir}:\n`);
    for (const f of files) process.stdout.write(`  ${join(profileDir, f)}\n`);
    const mainProfile = files.find((f) => f === 'gateway.cpuprofile') ?? files[0];
    if (mainProfile) process.stdout.write(`\n${summarizeFile(join(profileDir, mainProfile), 25)}\n`);
    process.stdout.write(`\nsummarize another with: node dist/bench/gateway-profile-summary.js <file.cpuprofile>\n`);
  }

  return gatewayMissing() ? 1 : 0;
}

/** Our gateway (the default variant) was asked for and could not be measured. */
const gatewayMissing = () => selected('gateway') && !results.some((r) => r.key === 'gateway' && r.measured);

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
  code = gatewayMissing() ? 1 : 0;
} finally {
  await cleanup();
}
process.exit(code);
