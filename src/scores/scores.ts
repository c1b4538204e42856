import type { PoolClient } from '../db/pool.js';
import { notFound } from '../errors.js';
import { actedBy, recordAudit } from '../audit/entries.js';
import type { Principal } from '../tenancy/store.js';
import { insertScore, type ScoreRow, type ScoreValue } from './store.js';

/**
 * Scores a trace of the acting key's workspace, audited in the same transaction (the caller's: the
 * route's runOnce). An unknown trace id is a 404 although it comes in the body (where a bad field
 * is usually a 422): the spec says so for this operation, and it reads as "that trace is not
 * here", the same answer as GET /traces/{id}. A trace of another workspace gets the very same
 * answer, revealing nothing.
 */
export async function recordScore(
  db: PoolClient,
  principal: Principal,
  input: { trace_id: string; name: string; value: ScoreValue; comment?: string },
): Promise<ScoreRow> {
  const score = await insertScore(db, principal, input);
  if (!score) throw notFound(`no trace ${input.trace_id}`);
  await recordAudit(db, {
    ...actedBy(principal),
    action: 'score.created',
    target: input.trace_id,
    details: { score_id: score.id, name: score.name, value: score.value },
  });
  return score;
}
