import { listAuditEntries, type AuditPosition } from '../../audit/store.js';
import type { Pool } from '../../db/pool.js';
import { decodeCursor, encodeCursor } from '../cursor.js';
import { requireScope } from '../middleware/auth.js';
import { presentAuditEntry } from '../presenters/auditEntry.js';
import { principalOf, type AppRouter } from '../state.js';
import type { Validator } from '../validation.js';

const isPosition = (value: unknown): value is AuditPosition =>
  typeof value === 'object' &&
  value !== null &&
  typeof (value as AuditPosition).at === 'string' &&
  !Number.isNaN(Date.parse((value as AuditPosition).at)) &&
  typeof (value as AuditPosition).id === 'string' &&
  /^\d{1,18}$/.test((value as AuditPosition).id);

const positionOf = (row: { at: Date; id: string }): AuditPosition => ({ at: row.at.toISOString(), id: row.id });

export function auditLogRoutes(router: AppRouter, { pool, validator }: { pool: Pool; validator: Validator }): void {
  router.get('/audit-log', requireScope('audit.read'), validator.query('listAuditLogQuery'), async (ctx) => {
    const query = ctx.state.query as { action?: string; cursor?: string; limit: number };
    const principal = principalOf(ctx);
    const after = decodeCursor(query.cursor, isPosition);
    const rows = await listAuditEntries(pool, principal, {
      ...(query.action ? { action: query.action } : {}),
      ...(after ? { after } : {}),
      limit: query.limit + 1,
    });
    const page = rows.slice(0, query.limit);
    ctx.body = {
      data: page.map(presentAuditEntry),
      next_cursor: rows.length > query.limit ? encodeCursor(positionOf(page[page.length - 1]!)) : null,
    };
  });
}
