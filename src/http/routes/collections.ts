import type { Pool } from '../../db/pool.js';
import { notFound } from '../../errors.js';
import { createCollection, listCollections } from '../../memory/collections.js';
import { deleteCollectionEverywhere } from '../../memory/erasure.js';
import type { Operations } from '../operations.js';
import { presentCollection } from '../presenters/collection.js';
import { createOnce, principalOf } from '../state.js';

export function collectionRoutes(api: Operations, { pool }: { pool: Pool }): void {
  api.add('createCollection', async (ctx) => {
    const { name } = ctx.state.body as { name: string };
    await createOnce(ctx, pool, { kind: 'collections', status: 201 }, async (db, principal) => ({
      data: presentCollection(await createCollection(db, principal, name)),
    }));
  });

  api.add('listCollections', async (ctx) => {
    const collections = await listCollections(pool, principalOf(ctx).workspaceId);
    ctx.body = { data: collections.map(presentCollection) };
  });

  api.add('deleteCollection', async (ctx) => {
    const slug = ctx.params.slug!;
    if (!(await deleteCollectionEverywhere(pool, principalOf(ctx), slug))) throw notFound(`no collection ${slug}`);
    ctx.body = { deleted: true };
  });
}
