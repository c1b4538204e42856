import type { Pool } from '../../db/pool.js';
import { notFound } from '../../errors.js';
import { findTraceDetail, listTraces, type TraceFilters } from '../../traces/store.js';
import { keysetPage } from '../cursor.js';
import type { Operations } from '../operations.js';
import { isTimePosition, optionalPeriod } from '../period.js';
import { presentTrace, presentTraceSummary } from '../presenters/trace.js';
import { principalOf } from '../state.js';

// Trace ids are request ids: any text of 1..255 characters.
const isTraceId = (id: string) => id.length > 0 && id.length <= 255;

export function traceRoutes(api: Operations, { pool }: { pool: Pool }): void {
  api.add('listTraces', async (ctx) => {
    const { cursor, limit, from, to, ...filters } = ctx.state.query as Omit<TraceFilters, 'from' | 'to'> & {
      from?: string;
      to?: string;
      cursor?: string;
      limit: number;
    };
    const period = optionalPeriod({ ...(from ? { from } : {}), ...(to ? { to } : {}) });
    const { rows, next_cursor } = await keysetPage(
      { ...(cursor !== undefined ? { cursor } : {}), limit },
      (value) => isTimePosition(value, isTraceId),
      (page) => listTraces(pool, principalOf(ctx).workspaceId, { ...filters, ...period }, page),
      (row) => ({ at: row.position_at, id: row.id }),
    );
    ctx.body = { data: rows.map(presentTraceSummary), next_cursor };
  });

  api.add('getTrace', async (ctx) => {
    const id = ctx.params.id!;
    const principal = principalOf(ctx);
    const trace = await findTraceDetail(pool, principal.workspaceId, id);
    if (!trace) throw notFound(`no trace ${id}`);
    ctx.body = presentTrace(trace, { memoryRead: principal.scopes.includes('memory.read') });
  });
}
