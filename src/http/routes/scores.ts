import type { Pool } from '../../db/pool.js';
import type { ScoreCreateRequest } from '../../generated/openapi.js';
import { recordScore } from '../../scores/scores.js';
import { listScores } from '../../scores/store.js';
import { keysetPage } from '../cursor.js';
import type { Operations } from '../operations.js';
import { isTimePosition } from '../period.js';
import { presentScore } from '../presenters/score.js';
import { createOnce, principalOf } from '../state.js';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

export function scoreRoutes(api: Operations, { pool }: { pool: Pool }): void {
  api.add('createScore', async (ctx) => {
    const body = ctx.state.body as ScoreCreateRequest;
    await createOnce(ctx, pool, { kind: 'scores', status: 201 }, async (db, principal) => ({
      data: presentScore(await recordScore(db, principal, body)),
    }));
  });

  // Reading scores needs traces.read, as the spec says: scores are part of what a trace shows.
  api.add('listScores', async (ctx) => {
    const query = ctx.state.query as { trace_id?: string; cursor?: string; limit: number };
    const { rows, next_cursor } = await keysetPage(
      query,
      (value) => isTimePosition(value, (id) => UUID.test(id)),
      (page) => listScores(pool, principalOf(ctx).workspaceId, { ...(query.trace_id ? { traceId: query.trace_id } : {}), ...page }),
      (row) => ({ at: row.position_at, id: row.id }),
    );
    ctx.body = { data: rows.map(presentScore), next_cursor };
  });
}
