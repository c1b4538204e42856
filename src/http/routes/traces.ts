import type { Pool } from '../../db/pool.js';
import { notFound } from '../../errors.js';
import { findTraceDetail, listTraces, type TraceFilters } from '../../traces/store.js';
import { decodeCursor, encodeCursor } from '../cursor.js';
import { requireScope } from '../middleware/auth.js';
import { isTimePosition, optionalPeriod } from '../period.js';
import { presentTrace, presentTraceSummary } from '../presenters/trace.js';
import { principalOf, type AppRouter } from '../state.js';
import type { Validator } from '../validation.js';

// Trace ids are request ids: any text of 1..255 characters.
const isTraceId = (id: string) => id.length > 0 && id.length <= 255;

export function traceRoutes(router: AppRouter, { pool, validator }: { pool: Pool; validator: Validator }): void {
  router.get('/traces', requireScope('traces.read'), validator.query('listTracesQuery'), async (ctx) => {
    const { cursor, limit, from, to, ...filters } = ctx.state.query as Omit<TraceFilters, 'from' | 'to'> & {
      from?: string;
      to?: string;
      cursor?: string;
      limit: number;
    };
    const after = decodeCursor(cursor, (value) => isTimePosition(value, isTraceId));
    const rows = await listTraces(
      pool,
      principalOf(ctx).workspaceId,
      { ...filters, ...optionalPeriod({ ...(from ? { from } : {}), ...(to ? { to } : {}) }) },
      { ...(after ? { after } : {}), limit: limit + 1 },
    );
    const page = rows.slice(0, limit);
    const last = page[page.length - 1];
    ctx.body = {
      data: page.map(presentTraceSummary),
      next_cursor: rows.length > limit && last ? encodeCursor({ at: last.position_at, id: last.id }) : null,
    };
  });

  router.get('/traces/:id', requireScope('traces.read'), async (ctx) => {
    const id = ctx.params.id!;
    const trace = await findTraceDetail(pool, principalOf(ctx).workspaceId, id);
    if (!trace) throw notFound(`no trace ${id}`);
    ctx.body = presentTrace(trace);
  });
}
