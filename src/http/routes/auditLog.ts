import { listAuditEntries, type AuditPosition } from '../../audit/store.js';
import type { Pool } from '../../db/pool.js';
import { keysetPage } from '../cursor.js';
import type { Operations } from '../operations.js';
import { presentAuditEntry } from '../presenters/auditEntry.js';
import { principalOf } from '../state.js';

const isPosition = (value: unknown): value is AuditPosition =>
  typeof value === 'object' &&
  value !== null &&
  typeof (value as AuditPosition).at === 'string' &&
  !Number.isNaN(Date.parse((value as AuditPosition).at)) &&
  typeof (value as AuditPosition).id === 'string' &&
  /^\d{1,18}$/.test((value as AuditPosition).id);

// To the microsecond: entries written in one statement share a millisecond, and a cursor cut to
// it would skip those after the page's last.
const positionOf = (row: { position_at: string; id: string }): AuditPosition => ({ at: row.position_at, id: row.id });

export function auditLogRoutes(api: Operations, { pool }: { pool: Pool }): void {
  api.add('listAuditLog', async (ctx) => {
    const query = ctx.state.query as { action?: string; cursor?: string; limit: number };
    const principal = principalOf(ctx);
    const { rows, next_cursor } = await keysetPage(
      query,
      isPosition,
      (page) => listAuditEntries(pool, principal, { ...(query.action ? { action: query.action } : {}), ...page }),
      positionOf,
    );
    ctx.body = { data: rows.map(presentAuditEntry), next_cursor };
  });
}
