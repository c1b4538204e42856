import type { Queryable } from '../db/pool.js';
import type { AuditEntry } from '../audit/store.js';
import type { ThreadAppend } from '../threads/store.js';
import type { TraceRecord } from '../traces/store.js';
import type { UsageRecord } from './usageStore.js';

// The outbox between the group commit and the settlements__drain job (sql/0007): one row per
// settled request, written on the request's path, moved into the real tables by the job.

export const SETTLEMENTS_CHANNEL = 'polder_settlements';

/** One key for every settlements__drain job, the triggered ones and the minutely cron one alike. */
export const DRAIN_JOB_KEY = 'settlements__drain';

/** What one finished (or failed) request leaves for the drain to write. */
export interface SettlementParts {
  usage: UsageRecord | null;
  trace: TraceRecord | null;
  audit: AuditEntry;
  thread: ThreadAppend | null;
}

/** A row as the group commit inserts it. */
export interface SettlementRecords extends SettlementParts {
  workspace_id: string;
  /** The id of the request the usage bills: taken until the usage row has landed (sql/0012). */
  request_id: string | null;
  /** The chat request's `user`: an erasure of that end-user drops the pending trace too. */
  end_user: string | null;
}

/** A row as the drain reads it: unchecked until the drain has checked it. */
export type PendingSettlement = { id: string } & Record<keyof SettlementParts, unknown>;

/**
 * Moves up to `limit` of the oldest rows into usage, traces, audit_log and thread messages inside
 * Postgres (sql/0011), in the caller's transaction; returns how many it took. It relies on the
 * tables' types and constraints: when one row breaks them, the whole batch fails and stays pending.
 */
export async function drainPendingSettlements(db: Queryable, limit: number): Promise<number> {
  const { rows } = await db.query<{ taken: number }>('select drain_pending_settlements($1) as taken', [limit]);
  return rows[0]?.taken ?? 0;
}

/**
 * Writes now, in the caller's transaction (sql/0019), the pending settlements of one request or
 * those appending to one thread, so that a trace or a thread can be read right after the answer.
 * Rows the tables refuse stay pending (the drain sets them aside).
 */
export async function landPendingSettlements(
  db: Queryable,
  workspaceId: string,
  of: { requestId: string } | { thread: string },
): Promise<void> {
  await db.query('select land_pending_settlements($1, $2, $3)', [
    workspaceId,
    'requestId' in of ? of.requestId : null,
    'thread' in of ? of.thread : null,
  ]);
}

/**
 * Locks and returns the oldest rows no other drain holds. `skip locked` lets two drains (a job and
 * the minutely sweep) share the backlog instead of waiting on each other.
 */
export async function lockPendingSettlements(db: Queryable, limit: number): Promise<PendingSettlement[]> {
  const { rows } = await db.query<PendingSettlement>(
    `select id, usage, trace, audit, thread
       from pending_settlements
      where failed_at is null
      order by id
      limit $1
        for update skip locked`,
    [limit],
  );
  return rows;
}

export async function deletePendingSettlements(db: Queryable, ids: string[]): Promise<void> {
  await db.query('delete from pending_settlements where id = any($1::bigint[])', [ids]);
}

/** Keeps a row the drain cannot write, with the reason, out of the way of the others. */
export async function markPendingSettlementFailed(db: Queryable, id: string, error: string): Promise<void> {
  await db.query('update pending_settlements set failed_at = now(), error = $2 where id = $1', [id, error]);
}

/**
 * An erasure of an end-user also reaches traces still on their way: they are dropped here, before
 * the drain writes them. A row a drain holds right now is waited for; its trace then is in
 * `traces`, where the erasure deletes it next.
 */
export async function dropPendingTracesOfEndUser(db: Queryable, workspaceId: string, endUser: string): Promise<number> {
  const result = await db.query(
    `update pending_settlements set trace = null
      where workspace_id = $1 and end_user = $2 and trace is not null`,
    [workspaceId, endUser],
  );
  return result.rowCount ?? 0;
}
