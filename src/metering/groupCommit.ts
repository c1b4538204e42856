import pg from 'pg';
import type { AuditEntry } from '../audit/store.js';
import { storableJson } from '../db/storable.js';
import type { CachedResponse } from '../gateway/responseCache.js';
import type { Logger } from '../logger.js';
import type { ThreadAppend } from '../threads/store.js';
import type { TraceRecord } from '../traces/store.js';
import { CommitAnnouncer } from './commitAnnouncer.js';
import type { SettlementRecords } from './pendingSettlements.js';
import type { SettledRequest } from './requestIds.js';
import type { UsageRecord } from './usageStore.js';

/** Everything a finished request leaves behind, written before its caller sees the answer. */
export interface Settlement {
  workspaceId: string;
  /** The caller chose the request id: its answer, kept for a retry to replay. */
  request?: SettledRequest;
  /** What the request is billed; its request id is then taken for good (a failed request's stays free for a retry). */
  usage?: UsageRecord;
  trace?: TraceRecord;
  audit: AuditEntry;
  thread?: ThreadAppend;
  /** A fresh answer for the response cache. */
  cache?: { workspace_id: string; key: Buffer; response: CachedResponse; ttl_seconds: number };
}

interface Waiter {
  settlement: Settlement;
  settled: (error?: unknown) => void;
}

// Largest batch in one statement; the next leader takes the rest.
const MAX_BATCH = 500;

// One statement is one transaction and one round trip. It stores the answers kept for replay (of
// caller-chosen request ids) and the fresh cache entries, and leaves one pending_settlements row per
// request for the settlements__drain job, which writes usage, traces, audit and threads off the
// request's path. Inserting those rows costs a fraction of enqueueing jobs (graphile_worker.add_jobs
// took ~0.8 ms per call here). It notifies nobody: the CommitAnnouncer does, at most every 100 ms.
// Data-modifying CTEs always run, whether the final select reads them or not; the answers kept for
// replay are written by complete_requests (sql/0017), which runOnce calls too.
const SETTLE_SQL = `
  with pending as (
    insert into pending_settlements (workspace_id, request_id, end_user, usage, trace, audit, thread)
    select s.workspace_id, s.request_id, s.end_user, s.usage, s.trace, s.audit, s.thread
      from json_to_recordset($2::json) as s(
             workspace_id uuid, request_id text, end_user text, usage json, trace json, audit json, thread json)
  ),
  cached as (
    insert into response_cache (workspace_id, cache_key, response, expires_at)
    select c.workspace_id, decode(c.cache_key, 'base64'), c.response, now() + make_interval(secs => c.ttl_seconds)
      from json_to_recordset($3::json) as c(workspace_id uuid, cache_key text, response json, ttl_seconds integer)
    on conflict (workspace_id, cache_key) do update
       set response = excluded.response, created_at = now(), expires_at = excluded.expires_at
  )
  select complete_requests($1::json)`;

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
  private readonly announcer: CommitAnnouncer;
  private closing: Promise<void> | undefined;

  constructor(
    connectionString: string,
    { synchronousCommit = 'off', log }: { synchronousCommit?: 'on' | 'off'; log?: Logger } = {},
  ) {
    // One connection makes the largest batches. On the 2-core bench machine a second one (batches
    // in flight at once) made smaller batches and no more requests per second (bench/README.md).
    this.pool = new pg.Pool({
      connectionString,
      max: 1,
      application_name: 'polder-settle',
      options: `-c synchronous_commit=${synchronousCommit}`,
    });
    this.pool.on('error', () => undefined);
    this.announcer = new CommitAnnouncer(
      (statement) => this.pool.query(statement),
      (err) => log?.warn({ err }, 'could not announce settled requests; retrying'),
    );
  }

  async settle(settlement: Settlement): Promise<void> {
    const done = new Promise<void>((resolve, reject) => {
      this.queue.push({ settlement, settled: (error) => (error === undefined ? resolve() : reject(error)) });
    });
    this.startFlush();
    await done;
  }

  /** Waits for the batches in flight and announces them; safe to call more than once. */
  close(): Promise<void> {
    this.closing ??= (async () => {
      while (this.flushing) await this.flushing;
      await this.announcer.flush();
      await this.pool.end();
    })();
    return this.closing;
  }

  /** Those who arrive while a batch commits share the next one, started when it is done. */
  private startFlush(): void {
    if (this.flushing || this.queue.length === 0) return;
    this.flushing = this.flushBatch(this.queue.splice(0, MAX_BATCH)).finally(() => {
      this.flushing = undefined;
      this.startFlush();
    });
  }

  /** Never rejects: each waiter hears its batch's outcome. */
  private async flushBatch(batch: Waiter[]): Promise<void> {
    let error: unknown;
    try {
      await this.write(batch.map((w) => w.settlement));
    } catch (err) {
      error = err ?? new Error('the settle statement failed');
    }
    for (const waiter of batch) waiter.settled(error);
  }

  private async write(batch: Settlement[]): Promise<void> {
    const cache = batch.flatMap((s) => (s.cache ? [s.cache] : []));
    const pending = batch.map(
      (s): SettlementRecords => ({
        workspace_id: s.workspaceId,
        request_id: s.usage?.request_id ?? null,
        end_user: s.trace?.end_user ?? null,
        usage: s.usage ?? null,
        trace: s.trace ?? null,
        audit: s.audit,
        thread: s.thread ?? null,
      }),
    );
    // Named, so each connection parses and plans this long statement once, not on every batch.
    await this.pool.query({ name: 'polder-settle', text: SETTLE_SQL, values: [
      storableJson(batch.flatMap((s) => (s.request ? [s.request] : []))),
      storableJson(pending),
      storableJson(cache.map(({ key, ...entry }) => ({ ...entry, cache_key: key.toString('base64') }))),
    ] });
    this.announcer.committed(cache.map((entry) => entry.key));
  }
}
