import type { Pool } from '../../db/pool.js';
import type { Catalog } from '../../gateway/catalog.js';
import type { LimitGate } from '../../limits/gate.js';
import { notFound } from '../../errors.js';
import { createDocument, findDocument, listDocuments, type NewDocument } from '../../memory/documents.js';
import { refuseIfMemoryCannotBeEmbedded } from '../../memory/embedder.js';
import { deleteDocumentEverywhere } from '../../memory/erasure.js';
import { isMicrosecondPosition, keysetPage } from '../cursor.js';
import type { Operations } from '../operations.js';
import { presentDocument } from '../presenters/document.js';
import type { Principal } from '../../tenancy/store.js';
import { createOnce, principalOf } from '../state.js';

export function documentRoutes(api: Operations, { pool, catalog, gate }: { pool: Pool; catalog: Catalog; gate: LimitGate }): void {
  api.add('ingestDocument', async (ctx) => {
    const body = ctx.state.body as NewDocument;
    const admit = async (principal: Principal) => {
      refuseIfMemoryCannotBeEmbedded(catalog, principal.settings);
      await gate.refuseIfBudgetSpent(principal);
    };
    await createOnce(ctx, pool, { kind: 'documents', status: 201, admit }, async (db, principal) => ({
      data: presentDocument(await createDocument(db, principal, body)),
    }));
  });

  api.add('listDocuments', async (ctx) => {
    const query = ctx.state.query as { collection?: string; cursor?: string; limit: number };
    const { rows, next_cursor } = await keysetPage(
      query,
      isMicrosecondPosition,
      (page) => listDocuments(pool, principalOf(ctx).workspaceId, { ...(query.collection !== undefined ? { collection: query.collection } : {}), ...page }),
      (row) => ({ us: row.position_us, id: row.id }),
    );
    ctx.body = { data: rows.map(presentDocument), next_cursor };
  });

  api.add('getDocument', async (ctx) => {
    const document = await findDocument(pool, principalOf(ctx).workspaceId, ctx.params.id!);
    if (!document) throw notFound(`no document ${ctx.params.id}`);
    ctx.body = { data: presentDocument(document) };
  });

  api.add('deleteDocument', async (ctx) => {
    if (!(await deleteDocumentEverywhere(pool, principalOf(ctx), ctx.params.id!))) {
      throw notFound(`no document ${ctx.params.id}`);
    }
    ctx.body = { deleted: true };
  });
}
