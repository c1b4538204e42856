import type { Pool } from '../../db/pool.js';
import { notFound } from '../../errors.js';
import {
  createDocument,
  deleteDocument,
  findDocument,
  listDocuments,
  type DocumentPosition,
  type NewDocument,
} from '../../memory/documents.js';
import { decodeCursor, encodeCursor } from '../cursor.js';
import { jsonBody } from '../middleware/body.js';
import { requireScope } from '../middleware/auth.js';
import { presentCreatedDocument, presentDocument } from '../presenters/document.js';
import { createOnce, principalOf, type AppRouter } from '../state.js';
import type { Validator } from '../validation.js';

const isPosition = (value: unknown): value is DocumentPosition =>
  typeof value === 'object' &&
  value !== null &&
  typeof (value as DocumentPosition).us === 'string' &&
  /^\d{1,18}$/.test((value as DocumentPosition).us) &&
  typeof (value as DocumentPosition).id === 'string' &&
  /^[0-9a-f-]{36}$/.test((value as DocumentPosition).id);

export function documentRoutes(
  router: AppRouter,
  { pool, validator, bodyLimitBytes }: { pool: Pool; validator: Validator; bodyLimitBytes: number },
): void {
  router.post(
    '/memory/documents',
    requireScope('memory.write'),
    jsonBody(bodyLimitBytes),
    validator.body('DocumentIngestRequest'),
    async (ctx) => {
      const body = ctx.state.body as NewDocument;
      await createOnce(ctx, pool, { kind: 'documents', status: 201 }, async (db, principal) => ({
        data: presentCreatedDocument(await createDocument(db, principal, body)),
      }));
    },
  );

  router.get('/memory/documents', requireScope('memory.read'), validator.query('listDocumentsQuery'), async (ctx) => {
    const query = ctx.state.query as { collection?: string; cursor?: string; limit: number };
    const after = decodeCursor(query.cursor, isPosition);
    const rows = await listDocuments(pool, principalOf(ctx).workspaceId, {
      ...(query.collection !== undefined ? { collection: query.collection } : {}),
      ...(after ? { after } : {}),
      limit: query.limit + 1,
    });
    const page = rows.slice(0, query.limit);
    const last = page[page.length - 1];
    ctx.body = {
      data: page.map(presentDocument),
      next_cursor: rows.length > query.limit && last ? encodeCursor({ us: last.position_us, id: last.id }) : null,
    };
  });

  router.get('/memory/documents/:id', requireScope('memory.read'), async (ctx) => {
    const document = await findDocument(pool, principalOf(ctx).workspaceId, ctx.params.id!);
    if (!document) throw notFound(`no document ${ctx.params.id}`);
    ctx.body = { data: presentDocument(document) };
  });

  router.delete('/memory/documents/:id', requireScope('memory.write'), async (ctx) => {
    if (!(await deleteDocument(pool, principalOf(ctx).workspaceId, ctx.params.id!))) {
      throw notFound(`no document ${ctx.params.id}`);
    }
    ctx.body = { deleted: true };
  });
}
