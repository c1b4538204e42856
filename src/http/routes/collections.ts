import type { Pool } from '../../db/pool.js';
import { notFound } from '../../errors.js';
import { createCollection, deleteCollection, listCollections } from '../../memory/collections.js';
import { jsonBody } from '../middleware/body.js';
import { requireScope } from '../middleware/auth.js';
import { presentCollection } from '../presenters/collection.js';
import { createOnce, principalOf, type AppRouter } from '../state.js';
import type { Validator } from '../validation.js';

export function collectionRoutes(
  router: AppRouter,
  { pool, validator, bodyLimitBytes }: { pool: Pool; validator: Validator; bodyLimitBytes: number },
): void {
  router.post(
    '/recall/collections',
    requireScope('memory.write'),
    jsonBody(bodyLimitBytes),
    validator.body('CollectionCreateRequest'),
    async (ctx) => {
      const { name } = ctx.state.body as { name: string };
      await createOnce(ctx, pool, { kind: 'collections', status: 201 }, async (db, principal) => ({
        data: presentCollection(await createCollection(db, principal, name)),
      }));
    },
  );

  router.get('/recall/collections', requireScope('memory.read'), async (ctx) => {
    const collections = await listCollections(pool, principalOf(ctx).workspaceId);
    ctx.body = { data: collections.map(presentCollection) };
  });

  router.delete('/recall/collections/:slug', requireScope('memory.write'), async (ctx) => {
    const slug = ctx.params.slug!;
    if (!(await deleteCollection(pool, principalOf(ctx).workspaceId, slug))) throw notFound(`no collection ${slug}`);
    ctx.body = { deleted: true };
  });
}
