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
  /** The end-user the chat named (`user`): an erasure of them deletes these messages (and the thread when nothing else is left). */
  end_user: string | null;
  messages: ThreadMessageInput[];
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

/**
 * What a thread holds about the end-user: the messages of the chats that named them (`user`), the
 * assistant's replies to them included (an append tags all its messages with the chat's end-user).
 * Other end-users' messages in the same thread stay, and a thread goes only when nothing is left
 * in it. Counts the threads the erasure touched: deleted, or left with fewer messages.
 *
 * The touched threads are locked first (in id order), so that a chat appending to one of them
 * meanwhile either lands before (and its messages are seen and kept) or after (and recreates the
 * thread if it was deleted): a thread is never deleted from under a message it does not see.
 */
export async function deleteThreadsOfEndUser(db: Queryable, workspaceId: string, endUser: string): Promise<number> {
  const { rows } = await db.query<{ id: string }>(
    `select t.id from threads t
      where t.workspace_id = $1
        and t.id in (select thread_id from thread_messages where workspace_id = $1 and end_user = $2)
      order by t.id
        for update`,
    [workspaceId, endUser],
  );
  if (rows.length === 0) return 0;
  const touched = rows.map((r) => r.id);
  await db.query('delete from thread_messages where workspace_id = $1 and end_user = $2 and thread_id = any($3::text[])', [
    workspaceId,
    endUser,
    touched,
  ]);
  await db.query(
    `delete from threads t
      where t.workspace_id = $1 and t.id = any($2::text[])
        and not exists (select 1 from thread_messages m where m.workspace_id = t.workspace_id and m.thread_id = t.id)`,
    [workspaceId, touched],
  );
  return touched.length;
}
