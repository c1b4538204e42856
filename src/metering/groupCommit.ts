import pg from 'pg';
import type { AuditEntry } from '../audit/store.js';
import { jobSpec, type JobSpec } from '../jobs.js';
import type { TraceRecord } from '../traces/store.js';
import type { ThreadAppend } from '../threads/store.js';
import type { CachedResponse } from '../gateway/responseCache.js';
import type { RequestKind, StoredResponse } from './requestIds.js';
import type { UsageRecord } from './usageStore.js';

/** Everything a finished request leaves behind, written before its caller sees the answer. */
export interface Settlement {
  /** Absent for a request that failed: it is traced and audited, not stored or billed. */
  request?: {
    workspace_id: string;
    organization_id: string;
    request_id: string;
    kind: RequestKind;
    body_hash: string;
    response: StoredResponse;
  };
  usage?: UsageRecord;
  trace?: TraceRecord;
  audit: AuditEntry;
  thread?: ThreadAppend;
  /** A fresh answer for the response cache. */
  cache?: { workspace_id: string; cache_key: string; response: CachedResponse; ttl_seconds: number };
}

interface Waiter {
  settlement: Settlement;
  done: boolean;
  error?: unknown;
}

// Largest batch in one statement; the next leader takes the rest.
const MAX_BATCH = 500;

// One statement is one transaction and one round trip: it stores the replayable responses and
// enqueues one job per kind of record, all in one add_jobs call (each add_job call costs about as
// much as the rest of the statement). Data-modifying CTEs always run; the jobs CTE runs because
// the final select reads it.
const SETTLE_SQL = `
  with stored as (
    insert into requests (workspace_id, request_id, organization_id, kind, body_hash, state, response, completed_at)
    select r.workspace_id, r.request_id, r.organization_id, r.kind, decode(r.body_hash, 'hex'), 'completed',
           r.response, now()
      from jsonb_to_recordset($1::jsonb) as r(
             workspace_id uuid, request_id text, organization_id uuid, kind text, body_hash text, response jsonb)
    on conflict (workspace_id, request_id) do update
       set state = 'completed', response = excluded.response, completed_at = excluded.completed_at
     where requests.state = 'running'
    returning 1
  ),
  cached as (
    insert into response_cache (workspace_id, cache_key, response, expires_at)
    select c.workspace_id, decode(c.cache_key, 'hex'), c.response, now() + make_interval(secs => c.ttl_seconds)
      from jsonb_to_recordset($3::jsonb) as c(workspace_id uuid, cache_key text, response jsonb, ttl_seconds integer)
    on conflict (workspace_id, cache_key) do update
       set response = excluded.response, created_at = now(), expires_at = excluded.expires_at
    returning 1
  ),
  jobs as (
    select graphile_worker.add_jobs(array(
      select (j.identifier, j.payload, null, null, null, null, null, null)::graphile_worker.job_spec
        from json_to_recordset($2::json) as j(identifier text, payload json)
    )) as job
  )
  select (select count(*) from stored) as stored, (select count(*) from cached) as cached,
         (select count(*) from jobs) as jobs`;

/**
 * The group-commit writer. Requests that finish while a commit is in flight wait and share the
 * next one, so the cost of a durable commit is paid once per batch, not once per request.
 *
 * It writes through its own connection, whose `synchronous_commit` is chosen here. With `off`,
 * a commit returns once it is in the WAL buffer: a crash of this process loses nothing that was
 * acknowledged; only a crash of Postgres itself within ~3 × wal_writer_delay (600 ms) could lose
 * the newest batches. bench/gateway measures both settings.
 */
export class GroupCommitter {
  private readonly queue: Waiter[] = [];
  private flushing: Promise<void> | undefined;
  private readonly pool: pg.Pool;

  constructor(connectionString: string, { synchronousCommit = 'off' }: { synchronousCommit?: 'on' | 'off' } = {}) {
    this.pool = new pg.Pool({
      connectionString,
      max: 1,
      application_name: 'polder-settle',
      options: `-c synchronous_commit=${synchronousCommit}`,
    });
    this.pool.on('error', () => undefined);
  }

  async settle(settlement: Settlement): Promise<void> {
    const waiter: Waiter = { settlement, done: false };
    this.queue.push(waiter);
    while (!waiter.done) {
      await (this.flushing ?? this.startFlush());
    }
    if (waiter.error) throw waiter.error;
  }

  async close(): Promise<void> {
    while (this.flushing) await this.flushing;
    await this.pool.end();
  }

  private startFlush(): Promise<void> {
    const flush = this.flushBatch().finally(() => {
      this.flushing = undefined;
    });
    this.flushing = flush;
    return flush;
  }

  private async flushBatch(): Promise<void> {
    const batch = this.queue.splice(0, MAX_BATCH);
    try {
      await this.write(batch.map((w) => w.settlement));
    } catch (err) {
      for (const waiter of batch) waiter.error = err;
    }
    for (const waiter of batch) waiter.done = true;
  }

  private async write(batch: Settlement[]): Promise<void> {
    const jobs: JobSpec[] = [];
    const records = batch.flatMap((s) => (s.usage ? [s.usage] : []));
    if (records.length > 0) jobs.push(jobSpec('usage__record', { records }));
    jobs.push(jobSpec('audit__record', { entries: batch.map((s) => s.audit) }));
    const traces = batch.flatMap((s) => (s.trace ? [s.trace] : []));
    if (traces.length > 0) jobs.push(jobSpec('trace__record', { traces }));
    const appends = batch.flatMap((s) => (s.thread ? [s.thread] : []));
    if (appends.length > 0) jobs.push(jobSpec('thread__append', { appends }));
    // Named, so each connection parses and plans this long statement once, not on every batch.
    await this.pool.query({ name: 'polder-settle', text: SETTLE_SQL, values: [
      JSON.stringify(batch.flatMap((s) => (s.request ? [s.request] : []))),
      JSON.stringify(jobs),
      JSON.stringify(batch.flatMap((s) => (s.cache ? [s.cache] : []))),
    ] });
  }
}
