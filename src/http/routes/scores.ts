import type { Pool } from '../../db/pool.js';
import type { ScoreCreateRequest } from '../../generated/openapi.js';
import { recordScore } from '../../scores/scores.js';
import { listScores } from '../../scores/store.js';
import { decodeCursor, encodeCursor } from '../cursor.js';
import { requireScope } from '../middleware/auth.js';
import { jsonBody } from '../middleware/body.js';
import { isTimePosition } from '../period.js';
import { presentScore } from '../presenters/score.js';
import { createOnce, principalOf, type AppRouter } from '../state.js';
import type { Validator } from '../validation.js';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

export function scoreRoutes(
  router: AppRouter,
  { pool, validator, bodyLimitBytes }: { pool: Pool; validator: Validator; bodyLimitBytes: number },
): void {
  router.post('/scores', requireScope('scores.write'), jsonBody(bodyLimitBytes), validator.body('ScoreCreateRequest'), async (ctx) => {
    const body = ctx.state.body as ScoreCreateRequest;
    await createOnce(ctx, pool, { kind: 'scores', status: 201 }, async (db, principal) => ({
      data: presentScore(await recordScore(db, principal, body)),
    }));
  });

  // Reading scores needs traces.read, as the spec says: scores are part of what a trace shows.
  router.get('/scores', requireScope('traces.read'), validator.query('listScoresQuery'), async (ctx) => {
    const query = ctx.state.query as { trace_id?: string; cursor?: string; limit: number };
    const after = decodeCursor(query.cursor, (value) => isTimePosition(value, (id) => UUID.test(id)));
    const rows = await listScores(pool, principalOf(ctx).workspaceId, {
      ...(query.trace_id ? { traceId: query.trace_id } : {}),
      ...(after ? { after } : {}),
      limit: query.limit + 1,
    });
    const page = rows.slice(0, query.limit);
    const last = page[page.length - 1];
    ctx.body = {
      data: page.map(presentScore),
      next_cursor: rows.length > query.limit && last ? encodeCursor({ at: last.position_at, id: last.id }) : null,
    };
  });
}
