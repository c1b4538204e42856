import type { Pool } from '../../db/pool.js';
import { notFound } from '../../errors.js';
import { deleteThread, findThread } from '../../threads/store.js';
import { requireScope } from '../middleware/auth.js';
import { principalOf, type AppRouter } from '../state.js';

export function threadRoutes(router: AppRouter, { pool }: { pool: Pool }): void {
  router.get('/recall/threads/:thread', requireScope('memory.read'), async (ctx) => {
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

  router.delete('/memory/threads/:thread', requireScope('memory.write'), async (ctx) => {
    const thread = ctx.params.thread!;
    if (!(await deleteThread(pool, principalOf(ctx).workspaceId, thread))) throw notFound(`no thread ${thread}`);
    ctx.body = { deleted: true };
  });
}
