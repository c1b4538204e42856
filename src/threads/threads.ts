import type { Queryable } from '../db/pool.js';
import { landPendingSettlements } from '../metering/pendingSettlements.js';
import { deleteThread, findThread, type ThreadMessageRow } from './store.js';

// A chat's thread messages are written by the settlements drain, ~100 ms after the answer. A
// thread read or deleted before that first writes the appends still on their way: a chat is in
// its thread as soon as its answer came, and a thread deleted right after a chat does not come
// back when the drain would have written that chat's messages. A drain holding one of them is
// waited for, and has then written it, where the read or the delete after it finds it.

/** The thread's messages oldest first, or undefined when the workspace has no such thread. */
export async function threadOf(db: Queryable, workspaceId: string, thread: string): Promise<ThreadMessageRow[] | undefined> {
  await landPendingSettlements(db, workspaceId, { thread });
  return findThread(db, workspaceId, thread);
}

/** Deletes the thread and its messages, those on their way included; false when there was none. */
export async function forgetThread(db: Queryable, workspaceId: string, thread: string): Promise<boolean> {
  await landPendingSettlements(db, workspaceId, { thread });
  return deleteThread(db, workspaceId, thread);
}
