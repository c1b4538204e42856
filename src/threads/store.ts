import type { Queryable } from '../db/pool.js';

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

/** Idempotent per (thread, request id, position): a retried job adds nothing twice. */
export async function appendToThreads(db: Queryable, appends: ThreadAppend[]): Promise<void> {
  await db.query(
    `with input as (
       select a.workspace_id, a.organization_id, a.thread, a.request_id, a.created_at, a.messages
         from jsonb_to_recordset($1::jsonb) as a(
                workspace_id uuid, organization_id uuid, thread text, request_id text, created_at timestamptz,
                messages jsonb)
     ), threads_upserted as (
       insert into threads (workspace_id, id, organization_id, created_at, updated_at)
       select distinct on (workspace_id, thread) workspace_id, thread, organization_id, created_at, created_at
         from input
        order by workspace_id, thread, created_at desc
       on conflict (workspace_id, id) do update set updated_at = greatest(threads.updated_at, excluded.updated_at)
       returning workspace_id, id
     )
     insert into thread_messages (workspace_id, thread_id, request_id, position, role, content, created_at)
     select i.workspace_id, i.thread, i.request_id, m.position - 1, m.message->>'role', m.message->'content', i.created_at
       from input i
       cross join lateral jsonb_array_elements(i.messages) with ordinality as m(message, position)
       join threads_upserted t on t.workspace_id = i.workspace_id and t.id = i.thread
     on conflict (workspace_id, thread_id, request_id, position) do nothing`,
    [JSON.stringify(appends)],
  );
}

export interface ThreadMessageRow {
  role: string;
  content: unknown;
  created_at: Date;
  request_id: string;
}

/** The thread's messages oldest first, or undefined when the workspace has no such thread. */
export async function findThread(db: Queryable, workspaceId: string, thread: string): Promise<ThreadMessageRow[] | undefined> {
  const { rows } = await db.query<ThreadMessageRow & { exists: boolean }>(
    `select m.role, m.content, m.created_at, m.request_id
       from threads t
       left join thread_messages m on m.workspace_id = t.workspace_id and m.thread_id = t.id
      where t.workspace_id = $1 and t.id = $2
      order by m.created_at, m.id`,
    [workspaceId, thread],
  );
  if (rows.length === 0) return undefined;
  return rows.filter((row) => row.role !== null);
}

export async function deleteThread(db: Queryable, workspaceId: string, thread: string): Promise<boolean> {
  const result = await db.query('delete from threads where workspace_id = $1 and id = $2', [workspaceId, thread]);
  return (result.rowCount ?? 0) > 0;
}
