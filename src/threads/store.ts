import type { Pool, Queryable } from '../db/pool.js';
import { withTransaction } from '../db/transaction.js';
import { storableJson } from '../db/storable.js';

export interface ThreadMessageInput {
  role: string;
  content: unknown;
}

export interface ThreadAppend {
  workspace_id: string;
  organization_id: string;
  thread: string;
  request_id: string;
  created_at: string;
  messages: ThreadMessageInput[];
}

/** Idempotent per (thread, request id, position): a retried job adds nothing twice. The mapping is sql/0011's. */
export async function appendToThreads(db: Queryable, appends: ThreadAppend[]): Promise<void> {
  await db.query('select append_to_threads($1::json)', [storableJson(appends)]);
}

export interface ThreadMessageRow {
  role: string;
  content: unknown;
  created_at: Date;
  request_id: string;
}

// A thread's messages are those landed and those still pending (sql/0018). One statement reads
// both from one snapshot, and the drain moves a row from one to the other in one transaction, so
// each message is read exactly once.
const THREAD_MESSAGES_SQL = `
  select role, content, created_at, request_id
    from (select m.role, m.content, m.created_at, m.request_id, 0 as pending, m.id as seq, 0::bigint as position
            from thread_messages m
           where m.workspace_id = $1 and m.thread_id = $2
          union all
          select e.message->>'role', (e.message->'content')::jsonb, (p.thread->>'created_at')::timestamptz,
                 p.thread->>'request_id', 1, p.id, e.position
            from pending_settlements p
            cross join lateral json_array_elements(p.thread->'messages') with ordinality as e(message, position)
           where p.workspace_id = $1 and p.thread->>'thread' = $2 and p.thread is not null and p.failed_at is null
         ) messages
   order by created_at, pending, seq, position`;

/** The thread's messages oldest first, or undefined when the workspace has no such thread. */
export async function findThread(db: Queryable, workspaceId: string, thread: string): Promise<ThreadMessageRow[] | undefined> {
  const { rows } = await db.query<ThreadMessageRow>(THREAD_MESSAGES_SQL, [workspaceId, thread]);
  if (rows.length > 0) return rows;
  const { rows: found } = await db.query('select 1 from threads where workspace_id = $1 and id = $2', [workspaceId, thread]);
  return found.length > 0 ? [] : undefined;
}

/**
 * Deletes the thread with its messages, those still on their way included: they would otherwise
 * bring it back when the drain writes them. Returns whether there was anything to delete.
 */
export async function deleteThread(pool: Pool, workspaceId: string, thread: string): Promise<boolean> {
  return withTransaction(pool, async (db) => {
    // Pending first: an append a drain is writing right now is waited for, and has then landed,
    // where the delete below (a statement with a newer snapshot) finds it.
    const dropped = await db.query(
      `update pending_settlements set thread = null
        where workspace_id = $1 and thread->>'thread' = $2 and thread is not null`,
      [workspaceId, thread],
    );
    const deleted = await db.query('delete from threads where workspace_id = $1 and id = $2', [workspaceId, thread]);
    return (dropped.rowCount ?? 0) + (deleted.rowCount ?? 0) > 0;
  });
}
