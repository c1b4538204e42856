import { expect } from 'chai';
import { runOnce } from 'graphile-worker';
import { loadConfig } from '../../src/config.js';
import { addJob, buildTaskList, workerLogger } from '../../src/jobs/registry.js';
import {
  countCacheResult,
  countFallback,
  countFirewallDetections,
  JOB_STATS_TTL_MS,
  observeUpstreamAttempt,
  renderMetrics,
  serveMetrics,
  upstreamOutcomeOf,
} from '../../src/metrics.js';
import { UpstreamError } from '../../src/gateway/providers/types.js';
import { api, startTestApp, type TestApp } from '../helpers/app.js';
import { waitFor } from '../helpers/db.js';

interface Sample {
  name: string;
  labels: Record<string, string>;
  value: number;
}

/** Parses the Prometheus text format's sample lines (comments and blank lines skipped). */
function parse(text: string): Sample[] {
  const samples: Sample[] = [];
  for (const line of text.split('\n')) {
    if (line === '' || line.startsWith('#')) continue;
    const match = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})? (\S+)$/.exec(line);
    if (!match) throw new Error(`not a sample line: ${line}`);
    const labels: Record<string, string> = {};
    for (const pair of (match[2] ?? '').matchAll(/([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"/g)) labels[pair[1]!] = pair[2]!;
    samples.push({ name: match[1]!, labels, value: Number(match[3]) });
  }
  return samples;
}

const find = (samples: Sample[], name: string, labels: Record<string, string> = {}) =>
  samples.filter((s) => s.name === name && Object.entries(labels).every(([k, v]) => s.labels[k] === v));

describe('GET /metrics', () => {
  let app: TestApp;
  let key: string;
  before(async () => {
    app = await startTestApp();
    key = (await app.key()).key;
  });
  after(async () => {
    await app.close();
  });

  const scrape = async () => {
    const response = await fetch(`${app.baseUrl}/metrics`);
    expect(response.status).to.equal(200);
    expect(response.headers.get('content-type')).to.match(/^text\/plain; version=0\.0\.4/);
    const text = await response.text();
    return { text, samples: parse(text) };
  };

  it('needs no key and exposes request counts and latency by route pattern and status, never raw ids', async () => {
    await api(app.baseUrl, '/v1/traces/some-secret-id-123', { key });
    await api(app.baseUrl, '/v1/traces/another-id-456', { key });
    await api(app.baseUrl, '/v1/traces/no-key-789');
    await api(app.baseUrl, '/v1/models', { key });
    await api(app.baseUrl, '/v1/nowhere/at-all', { key });
    const { text, samples } = await scrape();
    expect(text).to.not.include('some-secret-id-123');
    expect(text).to.not.include('/v1/nowhere');
    const notFound = find(samples, 'polder_http_requests_total', { method: 'GET', route: '/v1/traces/:id', status: '404' });
    expect(notFound).to.have.length(1);
    expect(notFound[0]!.value).to.be.at.least(2);
    expect(find(samples, 'polder_http_requests_total', { route: '/v1/traces/:id', status: '401' })[0]!.value).to.be.at.least(1);
    expect(find(samples, 'polder_http_requests_total', { route: '/v1/models', status: '200' })[0]!.value).to.be.at.least(1);
    expect(find(samples, 'polder_http_requests_total', { route: 'unmatched', status: '404' })[0]!.value).to.be.at.least(1);
    const buckets = find(samples, 'polder_http_request_duration_seconds_bucket', { route: '/v1/traces/:id', status: '404' });
    expect(buckets.length).to.be.above(5);
    expect(buckets.find((b) => b.labels.le === '+Inf')!.value).to.be.at.least(2);
    expect(find(samples, 'polder_http_request_duration_seconds_count', { route: '/v1/traces/:id', status: '404' })[0]!.value).to.be.at.least(2);
    // Node's own process metrics.
    expect(find(samples, 'process_cpu_user_seconds_total')).to.have.length(1);
    expect(find(samples, 'nodejs_eventloop_lag_seconds')).to.have.length(1);
    expect(find(samples, 'process_resident_memory_bytes')).to.have.length(1);
  });

  it('exposes what the chat pipeline reports: upstream latency, fallbacks, cache results, firewall detections', async () => {
    observeUpstreamAttempt('metrics-test-eu', 'ok', 0.12);
    observeUpstreamAttempt('metrics-test-eu', 'unavailable', 0.4);
    observeUpstreamAttempt('metrics-test-eu', 'not-an-outcome' as never, 0.1);
    expect(upstreamOutcomeOf(new UpstreamError('timeout', 'slow'))).to.equal('timeout');
    expect(upstreamOutcomeOf(new UpstreamError('connect', 'refused'))).to.equal('unavailable');
    expect(upstreamOutcomeOf(new UpstreamError('status', '503', { status: 503 }))).to.equal('unavailable');
    expect(upstreamOutcomeOf(new UpstreamError('status', '400', { status: 400 }))).to.equal('rejected');
    expect(upstreamOutcomeOf(new UpstreamError('aborted', 'gone'))).to.equal('aborted');
    expect(upstreamOutcomeOf(new Error('bug'))).to.equal('error');
    countFallback('metrics-test-eu', 'metrics-test-b');
    countFallback('metrics-test-eu', 'metrics-test-b');
    countCacheResult('HIT');
    countFirewallDetections({ EMAIL: 2, IBAN: 1, NOT_A_TYPE: 5 });
    const { samples } = await scrape();
    expect(find(samples, 'polder_upstream_request_duration_seconds_count', { provider: 'metrics-test-eu', outcome: 'ok' })[0]!.value).to.equal(1);
    expect(find(samples, 'polder_upstream_request_duration_seconds_sum', { provider: 'metrics-test-eu', outcome: 'ok' })[0]!.value).to.be.closeTo(0.12, 1e-9);
    expect(find(samples, 'polder_upstream_request_duration_seconds_count', { provider: 'metrics-test-eu', outcome: 'unavailable' })[0]!.value).to.equal(1);
    expect(find(samples, 'polder_upstream_request_duration_seconds_count', { provider: 'metrics-test-eu', outcome: 'error' })[0]!.value).to.equal(1);
    expect(find(samples, 'polder_upstream_fallbacks_total', { from_provider: 'metrics-test-eu', to_provider: 'metrics-test-b' })[0]!.value).to.equal(2);
    expect(find(samples, 'polder_chat_cache_results_total', { status: 'HIT' })[0]!.value).to.be.at.least(1);
    expect(find(samples, 'polder_chat_cache_results_total').map((s) => s.labels.status).sort()).to.deep.equal(['BYPASS', 'HIT', 'MISS']);
    expect(find(samples, 'polder_firewall_detections_total', { type: 'EMAIL' })[0]!.value).to.be.at.least(2);
    expect(find(samples, 'polder_firewall_detections_total', { type: 'IBAN' })[0]!.value).to.be.at.least(1);
    expect(find(samples, 'polder_firewall_detections_total', { type: 'NOT_A_TYPE' })).to.have.length(0);
  });

  it('exposes the job queue depth per task and the failed jobs', async () => {
    await addJob(app.db.pool, 'cache__expire', {} as never);
    await addJob(app.db.pool, 'cache__expire', {} as never);
    await addJob(app.db.pool, 'requests__prune', {}, { runAt: new Date(Date.now() + 3_600_000) });
    // A payload the task refuses, with one attempt: the worker fails it for good.
    await addJob(app.db.pool, 'memory__ingest_document', { document_id: 'not a uuid' } as never, { maxAttempts: 1 });
    // One pass of a real worker over the due jobs, then it exits (the later job stays queued).
    await runOnce({
      pgPool: app.db.pool,
      taskList: buildTaskList({ db: app.db.pool, catalog: app.catalog, adapters: app.adapters, replayRetentionHours: 24 }, app.log),
      logger: workerLogger(app.log),
    });
    // runOnce can resolve before the worker has written the failure back.
    await waitFor(
      async () =>
        (
          await app.db.pool.query(
            "select 1 from graphile_worker.jobs where task_identifier = 'memory__ingest_document' and attempts = 1 and last_error is not null and locked_at is null",
          )
        ).rowCount === 1,
      { what: 'the bad job to fail' },
    );
    await addJob(app.db.pool, 'cache__expire', {} as never);
    // A fresh scrape of this app's database (the queue is read at most once per JOB_STATS_TTL_MS).
    const text = await renderMetrics(app.db.pool, Date.now() + JOB_STATS_TTL_MS);
    const samples = parse(text);
    expect(find(samples, 'polder_job_queue_depth', { task: 'cache__expire' })[0]!.value).to.equal(1);
    expect(find(samples, 'polder_jobs_scheduled', { task: 'requests__prune' })[0]!.value).to.equal(1);
    expect(find(samples, 'polder_job_queue_depth', { task: 'memory__ingest_document' })[0]!.value).to.equal(0);
    expect(find(samples, 'polder_job_failures', { task: 'memory__ingest_document', state: 'failed' })[0]!.value).to.equal(1);
    expect(find(samples, 'polder_job_failures', { task: 'memory__ingest_document', state: 'retrying' })[0]!.value).to.equal(0);
    expect(find(samples, 'polder_job_stats_up')[0]!.value).to.equal(1);
  });

  it('exposes the age of the oldest job waiting for a worker, per task, computed at the scrape', async () => {
    const ago = (seconds: number) => new Date(Date.now() - seconds * 1000);
    // cache__expire: one job due 90 s ago (older than the one the test above left waiting).
    await addJob(app.db.pool, 'cache__expire', {} as never, { runAt: ago(90) });
    // memory__extract_facts: due 5 minutes ago but locked by a worker (running, not waiting), and
    // one due in an hour (scheduled, not waiting): nothing of it waits.
    await addJob(app.db.pool, 'memory__extract_facts', {} as never, { runAt: ago(300) });
    await app.db.pool.query(
      `update graphile_worker._private_jobs set locked_at = now(), locked_by = 'metrics-test'
        where task_id = (select id from graphile_worker._private_tasks where identifier = 'memory__extract_facts')`,
    );
    await addJob(app.db.pool, 'memory__extract_facts', {} as never, { runAt: new Date(Date.now() + 3_600_000) });

    // A fresh read of the queue (past the reads of the tests above), then a scrape 2 s later that
    // reuses it: the waiting job has grown 2 s older meanwhile, and the gauge says so.
    const at = Date.now() + 2 * JOB_STATS_TTL_MS;
    const fresh = parse(await renderMetrics(app.db.pool, at));
    const age = find(fresh, 'polder_job_oldest_waiting_age_seconds', { task: 'cache__expire' })[0]!.value;
    expect(age).to.be.within(89, 100);
    expect(find(fresh, 'polder_job_queue_depth', { task: 'cache__expire' })[0]!.value).to.equal(2);
    expect(find(fresh, 'polder_job_oldest_waiting_age_seconds', { task: 'memory__extract_facts' })[0]!.value).to.equal(0);
    expect(find(fresh, 'polder_job_queue_depth', { task: 'memory__extract_facts' })[0]!.value).to.equal(0);
    expect(find(fresh, 'polder_jobs_running', { task: 'memory__extract_facts' })[0]!.value).to.equal(1);
    expect(find(fresh, 'polder_jobs_scheduled', { task: 'memory__extract_facts' })[0]!.value).to.equal(1);
    // The job failed for good waits for nobody.
    expect(find(fresh, 'polder_job_oldest_waiting_age_seconds', { task: 'memory__ingest_document' })[0]!.value).to.equal(0);
    const later = parse(await renderMetrics(app.db.pool, at + 2_000));
    expect(find(later, 'polder_job_oldest_waiting_age_seconds', { task: 'cache__expire' })[0]!.value).to.be.closeTo(age + 2, 1e-6);

    // The same gauges on the web's GET /metrics, with their help text.
    const { text } = await scrape();
    expect(text).to.match(/^# HELP polder_job_oldest_waiting_age_seconds .+$/m);
    expect(text).to.match(/^# TYPE polder_job_oldest_waiting_age_seconds gauge$/m);
    expect(text).to.match(/^polder_job_oldest_waiting_age_seconds\{task="cache__expire"\} \d/m);
  });

  it('serves the same text on a bare listener, for the worker process (METRICS_PORT)', async () => {
    const listener = await serveMetrics(0, app.db.pool);
    try {
      const url = `http://127.0.0.1:${listener.port}`;
      const response = await fetch(`${url}/metrics`);
      expect(response.status).to.equal(200);
      expect(response.headers.get('content-type')).to.match(/^text\/plain; version=0\.0\.4/);
      const samples = parse(await response.text());
      expect(find(samples, 'polder_job_queue_depth', { task: 'cache__expire' })).to.have.length(1);
      expect(find(samples, 'polder_job_oldest_waiting_age_seconds', { task: 'cache__expire' })).to.have.length(1);
      expect(find(samples, 'process_resident_memory_bytes')).to.have.length(1);
      const elsewhere = await fetch(`${url}/v1/models`);
      await elsewhere.arrayBuffer();
      expect(elsewhere.status).to.equal(404);
      const posted = await fetch(`${url}/metrics`, { method: 'POST' });
      await posted.arrayBuffer();
      expect(posted.status).to.equal(404);
    } finally {
      await listener.close();
    }
    // The worker reads its port from METRICS_PORT, and has no listener without it.
    expect(loadConfig({}).metricsPort).to.equal(undefined);
    expect(loadConfig({ METRICS_PORT: '9464' }).metricsPort).to.equal(9464);
    expect(() => loadConfig({ METRICS_PORT: 'nine' })).to.throw(/METRICS_PORT/);
    expect(() => loadConfig({ METRICS_PORT: '70000' })).to.throw(/METRICS_PORT/);
  });

  it('reads the job queue at most once per few seconds, however often it is scraped', async () => {
    let queries = 0;
    const counting = {
      query: async () => {
        queries += 1;
        return { rows: [{ task: 'counting_task', ready: 3, scheduled: 0, running: 0, retrying: 0, failed: 0 }] };
      },
    } as never;
    const start = Date.now();
    await Promise.all([renderMetrics(counting, start), renderMetrics(counting, start + 10), renderMetrics(counting, start + JOB_STATS_TTL_MS - 1)]);
    expect(queries).to.equal(1);
    const text = await renderMetrics(counting, start + JOB_STATS_TTL_MS);
    expect(queries).to.equal(2);
    expect(find(parse(text), 'polder_job_queue_depth', { task: 'counting_task' })[0]!.value).to.equal(3);

    const failing = { query: async () => Promise.reject(new Error('database down')) } as never;
    const down = parse(await renderMetrics(failing));
    expect(find(down, 'polder_job_stats_up')[0]!.value).to.equal(0);
    expect(find(down, 'polder_job_queue_depth')).to.have.length(0);
  });
});
