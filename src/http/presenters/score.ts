import type { ScoreRow } from '../../scores/store.js';

export function presentScore(row: ScoreRow) {
  return {
    id: row.id,
    trace_id: row.trace_id,
    name: row.name,
    value: row.value,
    comment: row.comment,
    created_at: row.created_at.toISOString(),
  };
}
