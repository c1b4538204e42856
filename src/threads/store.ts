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
  /** The end-user the chat named (`user`): an erasure of them deletes the thread. */
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

/** The threads that chats naming the end-user (`user`) wrote to, whole: they are held about them. */
export async function deleteThreadsOfEndUser(db: Queryable, workspaceId: string, endUser: string): Promise<number> {
  const result = await db.query(
    `delete from threads
      where workspace_id = $1
        and id in (select thread_id from thread_messages where workspace_id = $1 and end_user = $2)`,
    [workspaceId, endUser],
  );
  return result.rowCount ?? 0;
}
