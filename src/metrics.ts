import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from 'prom-client';
import type { Queryable } from './db/pool.js';
import { ENTITY_TYPES } from './firewall/types.js';
import { UpstreamError } from './gateway/providers/types.js';

// The process's Prometheus metrics, served at GET /metrics. One registry per process; the app
// and the chat pipeline call the plain functions below. They sit on the hot path, so each label
// set's child is looked up once and kept, and every label takes values from a bounded set: a
// route pattern (never a raw URL with ids), a status, a catalogue provider, a fixed outcome.

export const registry = new Registry();
// CPU, memory, event-loop lag, GC, handles: what Bram checks first when a process misbehaves.
collectDefaultMetrics({ register: registry });

// ---- HTTP -------------------------------------------------------------------------------------

const httpRequests = new Counter({
  name: 'polder_http_requests_total',
  help: 'HTTP requests answered, by method, matched route pattern and status.',
  labelNames: ['method', 'route', 'status'] as const,
  registers: [registry],
});

const httpDuration = new Histogram({
  name: 'polder_http_request_duration_seconds',
  help: 'Time from receiving an HTTP request to the end of its handling (a stream: until it ends), by method, matched route pattern and status.',
  labelNames: ['method', 'route', 'status'] as const,
  buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120],
  registers: [registry],
});

const METHODS = new Set(['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS']);
/** The route label of a request no router matched: its URL is never a label. */
export const UNMATCHED_ROUTE = 'unmatched';

const httpChildren = new Map<string, { count: Counter.Internal; duration: Histogram.Internal<'method' | 'route' | 'status'> }>();

/** Counts and times one HTTP request; `route` is the matched route pattern (or UNMATCHED_ROUTE). */
export function observeHttpRequest(method: string, route: string, status: number, seconds: number): void {
  const m = METHODS.has(method) ? method : 'OTHER';
  const key = `${m} ${status} ${route}`;
  let child = httpChildren.get(key);
  if (!child) {
    const labels = { method: m, route, status: String(status) };
    child = { count: httpRequests.labels(labels), duration: httpDuration.labels(labels) };
    httpChildren.set(key, child);
  }
  child.count.inc();
  child.duration.observe(seconds);
}

// ---- Upstream providers -----------------------------------------------------------------------

export const UPSTREAM_OUTCOMES = ['ok', 'unavailable', 'timeout', 'rejected', 'aborted', 'error'] as const;
export type UpstreamOutcome = (typeof UPSTREAM_OUTCOMES)[number];

const upstreamDuration = new Histogram({
  name: 'polder_upstream_request_duration_seconds',
  help: 'Time of each attempt at a provider until it answered or failed, by provider and outcome (ok, unavailable, timeout, rejected, aborted, error).',
  labelNames: ['provider', 'outcome'] as const,
  buckets: [0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120],
  registers: [registry],
});

const fallbacks = new Counter({
  name: 'polder_upstream_fallbacks_total',
  help: 'Times the chain moved on from an unavailable provider to the next candidate, by the provider left and the one tried next.',
  labelNames: ['from_provider', 'to_provider'] as const,
  registers: [registry],
});

// Providers come from the operator's catalogue, so they are few; the cap only guards against a
// caller passing something else by mistake.
const MAX_PROVIDERS = 200;
const providers = new Set<string>();
function providerLabel(provider: string): string {
  if (providers.has(provider)) return provider;
  if (providers.size >= MAX_PROVIDERS) return 'other';
  providers.add(provider);
  return provider;
}

/**
 * The outcome of a failed attempt, for observeUpstreamAttempt: a timeout, the client gone
 * (aborted), unavailable (what moves the chain on: connection errors, 408, 429, 5xx, a broken
 * stream), rejected (any other 4xx, which stops it), or error (not an upstream failure at all).
 */
export function upstreamOutcomeOf(err: unknown): UpstreamOutcome {
  if (!(err instanceof UpstreamError)) return 'error';
  if (err.kind === 'timeout') return 'timeout';
  if (err.kind === 'aborted') return 'aborted';
  return err.retryable ? 'unavailable' : 'rejected';
}

const upstreamChildren = new Map<string, Histogram.Internal<'provider' | 'outcome'>>();

/** One attempt at a provider: `outcome` one of UPSTREAM_OUTCOMES (anything else counts as error). */
export function observeUpstreamAttempt(provider: string, outcome: UpstreamOutcome, seconds: number): void {
  const o = (UPSTREAM_OUTCOMES as readonly string[]).includes(outcome) ? outcome : 'error';
  const key = `${o} ${provider}`;
  let child = upstreamChildren.get(key);
  if (!child) {
    child = upstreamDuration.labels({ provider: providerLabel(provider), outcome: o });
    upstreamChildren.set(key, child);
  }
  child.observe(seconds);
}

const fallbackChildren = new Map<string, Counter.Internal>();

/** The chain gave up on `fromProvider` and tries `toProvider` next. */
export function countFallback(fromProvider: string, toProvider: string): void {
  const key = `${fromProvider}\n${toProvider}`;
  let child = fallbackChildren.get(key);
  if (!child) {
    child = fallbacks.labels({ from_provider: providerLabel(fromProvider), to_provider: providerLabel(toProvider) });
    fallbackChildren.set(key, child);
  }
  child.inc();
}

// ---- Circuit breakers (src/gateway/breaker.ts) ------------------------------------------------

const circuitState = new Gauge({
  name: 'polder_upstream_circuit_state',
  help: 'The circuit breaker of each provider endpoint in this process: 0 closed, 1 half-open (one probe may go), 2 open (skipped). A provider appears once it has been called.',
  labelNames: ['provider'] as const,
  registers: [registry],
});

const circuitOpens = new Counter({
  name: 'polder_upstream_circuit_opens_total',
  help: 'Times the circuit of a provider endpoint opened in this process, by provider and reason: failures (consecutive failures), probe_failed (the half-open probe failed), rate_limited (a 429 with retry-after).',
  labelNames: ['provider', 'reason'] as const,
  registers: [registry],
});

export type CircuitOpenReason = 'failures' | 'probe_failed' | 'rate_limited';

/** The state of a provider endpoint's circuit: 0 closed, 1 half-open, 2 open. */
export function setCircuitState(provider: string, value: 0 | 1 | 2): void {
  circuitState.labels({ provider: providerLabel(provider) }).set(value);
}

export function countCircuitOpen(provider: string, reason: CircuitOpenReason): void {
  circuitOpens.labels({ provider: providerLabel(provider), reason }).inc();
}

// ---- Response cache and firewall --------------------------------------------------------------

const cacheResults = new Counter({
  name: 'polder_chat_cache_results_total',
  help: 'Chat requests by response-cache result, as the X-Cache header says it (HIT, MISS, BYPASS).',
  labelNames: ['status'] as const,
  registers: [registry],
});
const CACHE_STATUSES = ['HIT', 'MISS', 'BYPASS'] as const;
const cacheChildren = new Map(CACHE_STATUSES.map((status) => [status as string, cacheResults.labels({ status })]));
// Present at 0 from the start, so a hit ratio can be computed before the first hit.
for (const child of cacheChildren.values()) child.inc(0);

export function countCacheResult(status: 'HIT' | 'MISS' | 'BYPASS'): void {
  cacheChildren.get(status)?.inc();
}

const limitRefusals = new Counter({
  name: 'polder_limit_refusals_total',
  help: 'Requests refused by a rate limit (429) or a credit budget (402), by the limit and the level it is set on.',
  labelNames: ['limit', 'level'] as const,
  registers: [registry],
});

export function countLimitRefusal(
  limit: 'requests_per_minute' | 'tokens_per_minute' | 'credits_per_day' | 'credits_per_month',
  level: 'key' | 'workspace' | 'organization',
): void {
  limitRefusals.labels({ limit, level }).inc();
}

const firewallDetections = new Counter({
  name: 'polder_firewall_detections_total',
  help: 'Personal data masked by the firewall, by entity type (counts only, never values).',
  labelNames: ['type'] as const,
  registers: [registry],
});
const firewallChildren = new Map(ENTITY_TYPES.map((type) => [type as string, firewallDetections.labels({ type })]));
for (const child of firewallChildren.values()) child.inc(0);

/** The counts of one request's firewall scan (Firewall.stats().counts); unknown types are ignored. */
export function countFirewallDetections(counts: Partial<Record<string, number>>): void {
  for (const type in counts) {
    const n = counts[type];
    if (n !== undefined && n > 0) firewallChildren.get(type)?.inc(n);
  }
}

// ---- Webhooks (worker) ------------------------------------------------------------------------

const webhookAttempts = new Counter({
  name: 'polder_webhook_attempts_total',
  help: 'Webhook delivery attempts by outcome: delivered, retry (failed, another attempt is scheduled) or failed (no attempt left).',
  labelNames: ['outcome'] as const,
  registers: [registry],
});
const WEBHOOK_OUTCOMES = ['delivered', 'retry', 'failed'] as const;
const webhookChildren = new Map(WEBHOOK_OUTCOMES.map((outcome) => [outcome as string, webhookAttempts.labels({ outcome })]));
for (const child of webhookChildren.values()) child.inc(0);

export function countWebhookAttempt(outcome: (typeof WEBHOOK_OUTCOMES)[number]): void {
  webhookChildren.get(outcome)?.inc();
}

// ---- Job queue (graphile-worker) --------------------------------------------------------------

const jobQueueDepth = new Gauge({
  name: 'polder_job_queue_depth',
  help: 'Jobs due to run and waiting for a worker (run_at reached, not locked, attempts left), by task. What the worker is scaled by.',
  labelNames: ['task'] as const,
  registers: [registry],
});
const jobsScheduled = new Gauge({
  name: 'polder_jobs_scheduled',
  help: 'Jobs waiting for a later run_at (retries backing off, scheduled work), by task.',
  labelNames: ['task'] as const,
  registers: [registry],
});
const jobsRunning = new Gauge({
  name: 'polder_jobs_running',
  help: 'Jobs locked by a worker, by task.',
  labelNames: ['task'] as const,
  registers: [registry],
});
const jobFailures = new Gauge({
  name: 'polder_job_failures',
  help: 'Jobs whose last attempt failed, by task: state "retrying" (attempts left) or "failed" (no attempts left; stays until removed).',
  labelNames: ['task', 'state'] as const,
  registers: [registry],
});
const jobOldestWaitingAge = new Gauge({
  name: 'polder_job_oldest_waiting_age_seconds',
  help: 'Seconds since the oldest job waiting for a worker (as polder_job_queue_depth counts them) became due, by task; 0 when none waits. With the depth, what the worker is scaled by: it grows when the workers fall behind, however long the jobs are.',
  labelNames: ['task'] as const,
  registers: [registry],
});
const jobStatsUp = new Gauge({
  name: 'polder_job_stats_up',
  help: '1 when the job queue could be read for this scrape, 0 when the query failed (the job gauges are then empty).',
  registers: [registry],
});

interface JobStats {
  task: string;
  ready: number;
  scheduled: number;
  running: number;
  retrying: number;
  failed: number;
  /** Seconds from the oldest waiting job's run_at to the read, by the database's clock (0: none waits). */
  oldest_waiting_age?: number;
}

/** One scan of the queue; graphile_worker.jobs is a view over the job rows. */
async function loadJobStats(db: Queryable): Promise<JobStats[]> {
  const { rows } = await db.query<JobStats>(
    `select task_identifier as task,
            count(*) filter (where locked_at is null and attempts < max_attempts and run_at <= now())::int as ready,
            count(*) filter (where locked_at is null and attempts < max_attempts and run_at > now())::int as scheduled,
            count(*) filter (where locked_at is not null)::int as running,
            count(*) filter (where last_error is not null and attempts < max_attempts)::int as retrying,
            count(*) filter (where attempts >= max_attempts)::int as failed,
            coalesce(extract(epoch from now() - min(run_at) filter (
              where locked_at is null and attempts < max_attempts and run_at <= now())), 0)::float8 as oldest_waiting_age
       from graphile_worker.jobs
      group by task_identifier`,
  );
  return rows;
}

/** A scrape reads the queue at most once per this many milliseconds; scrapes in between reuse it. */
export const JOB_STATS_TTL_MS = 5000;
const jobStatsCache = new WeakMap<Queryable, { at: number; stats: Promise<JobStats[]> }>();
// Tasks seen once stay reported (at 0 when their jobs are gone) rather than vanish from the graph.
const seenTasks = new Set<string>();

async function refreshJobGauges(db: Queryable, now: number): Promise<void> {
  let entry = jobStatsCache.get(db);
  if (!entry || now - entry.at >= JOB_STATS_TTL_MS) {
    entry = { at: now, stats: loadJobStats(db) };
    jobStatsCache.set(db, entry);
  }
  let stats: JobStats[];
  try {
    stats = await entry.stats;
  } catch {
    jobStatsCache.delete(db);
    for (const gauge of [jobQueueDepth, jobsScheduled, jobsRunning, jobFailures, jobOldestWaitingAge]) gauge.reset();
    jobStatsUp.set(0);
    return;
  }
  const byTask = new Map(stats.map((s) => [s.task, s]));
  for (const s of stats) seenTasks.add(s.task);
  for (const task of seenTasks) {
    const s = byTask.get(task);
    jobQueueDepth.set({ task }, s?.ready ?? 0);
    jobsScheduled.set({ task }, s?.scheduled ?? 0);
    jobsRunning.set({ task }, s?.running ?? 0);
    jobFailures.set({ task, state: 'retrying' }, s?.retrying ?? 0);
    jobFailures.set({ task, state: 'failed' }, s?.failed ?? 0);
    // Computed at the scrape: the age read with the queue, plus the time since that read (a scrape
    // between two reads sees the waiting job grow older, as it does).
    const age = s && s.ready > 0 ? Number(s.oldest_waiting_age ?? 0) + Math.max(0, now - entry.at) / 1000 : 0;
    jobOldestWaitingAge.set({ task }, age);
  }
  jobStatsUp.set(1);
}

export const metricsContentType = registry.contentType;

/** The Prometheus text of this process, with the job queue read from `db` (cached for a few seconds). */
export async function renderMetrics(db: Queryable, now = Date.now()): Promise<string> {
  await refreshJobGauges(db, now);
  return registry.metrics();
}

// ---- A /metrics listener for processes without an HTTP API (the worker) -----------------------

export interface MetricsListener {
  readonly port: number;
  close(): Promise<void>;
}

/**
 * Serves GET /metrics (the same text as web's) on `port`, and nothing else: the worker process
 * starts it when METRICS_PORT is set, so that its process metrics and the job queue gauges can be
 * scraped where no web process runs. Port 0 picks a free port (tests).
 */
export async function serveMetrics(port: number, db: Queryable, onError: (err: unknown) => void = () => undefined): Promise<MetricsListener> {
  const server: Server = createServer((req, res) => {
    const path = (req.url ?? '').split('?')[0];
    if (path !== '/metrics' || (req.method !== 'GET' && req.method !== 'HEAD')) {
      res.writeHead(404, { 'content-type': 'text/plain' }).end('not found\n');
      return;
    }
    renderMetrics(db).then(
      (text) => {
        res.writeHead(200, { 'content-type': metricsContentType });
        res.end(req.method === 'HEAD' ? undefined : text);
      },
      (err: unknown) => {
        onError(err);
        res.writeHead(500, { 'content-type': 'text/plain' }).end('metrics unavailable\n');
      },
    );
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, () => {
      server.off('error', reject);
      resolve();
    });
  });
  return {
    port: (server.address() as AddressInfo).port,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
