import type { Pool } from '../../db/pool.js';
import { notFound } from '../../errors.js';
import { deleteThreadAudited } from '../../memory/erasure.js';
import { findThread } from '../../threads/store.js';
import type { Operations } from '../operations.js';
import { principalOf } from '../state.js';

export function threadRoutes(api: Operations, { pool }: { pool: Pool }): void {
  api.add('getThread', async (ctx) => {
    const thread = ctx.params.thread!;
    const messages = await findThread(pool, principalOf(ctx).workspaceId, thread);
    if (!messages) throw notFound(`no thread ${thread}`);
    ctx.body = {
      id: thread,
      messages: messages.map((m) => ({
        role: m.role,
        content: m.content,
        created_at: m.created_at.toISOString(),
        request_id: m.request_id,
      })),
    };
  });

  api.add('deleteThread', async (ctx) => {
    const thread = ctx.params.thread!;
    if (!(await deleteThreadAudited(pool, principalOf(ctx), thread))) throw notFound(`no thread ${thread}`);
    ctx.body = { deleted: true };
  });
}
