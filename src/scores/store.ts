import type { Queryable } from '../db/pool.js';
import { storableJson } from '../db/storable.js';

// SQL for scores: judgements (a number, a string or a boolean) given to a traced answer.

export type ScoreValue = number | string | boolean;

export interface ScoreRow {
  id: string;
  trace_id: string;
  name: string;
  value: ScoreValue;
  comment: string | null;
  created_at: Date;
  /** created_at to the microsecond, for the next page's cursor. */
  position_at: string;
}

const COLUMNS = `id, trace_id, name, value, comment, created_at,
  to_char(created_at at time zone 'utc', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"') as position_at`;

/**
 * Scores a trace of the workspace. The trace is looked up in the same statement, so a trace id
 * of another workspace (or none at all) inserts nothing and returns undefined.
 */
export async function insertScore(
  db: Queryable,
  scope: { organizationId: string; workspaceId: string; keyId: string },
  score: { trace_id: string; name: string; value: ScoreValue; comment?: string },
): Promise<ScoreRow | undefined> {
  const { rows } = await db.query<ScoreRow>(
    `insert into scores (organization_id, workspace_id, trace_id, key_id, name, value, comment)
     select $1, t.workspace_id, t.id, $4, $5, $6::jsonb, $7
       from traces t
      where t.workspace_id = $2 and t.id = $3
     returning ${COLUMNS}`,
    [
      scope.organizationId,
      scope.workspaceId,
      score.trace_id,
      scope.keyId,
      score.name,
      storableJson(score.value),
      score.comment ?? null,
    ],
  );
  return rows[0];
}

/** Where the previous page ended: the exact created_at (microseconds, UTC) and the id. */
export interface ScorePosition {
  at: string;
  id: string;
}

/** A page of the workspace's scores, newest first, optionally of one trace. */
export async function listScores(
  db: Queryable,
  workspaceId: string,
  query: { traceId?: string; after?: ScorePosition; limit: number },
): Promise<ScoreRow[]> {
  const { rows } = await db.query<ScoreRow>(
    `select ${COLUMNS}
       from scores
      where workspace_id = $1
        and ($2::text is null or trace_id = $2)
        and ($3::timestamptz is null or (created_at, id) < ($3::timestamptz, $4::uuid))
      order by created_at desc, id desc
      limit $5`,
    [workspaceId, query.traceId ?? null, query.after?.at ?? null, query.after?.id ?? null, query.limit],
  );
  return rows;
}
