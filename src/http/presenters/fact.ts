import { deletedCounts, type Erasure } from '../../memory/erasure.js';
import type { FactRow } from '../../memory/facts.js';

export function presentFact(row: FactRow) {
  return {
    id: row.id,
    user_ref: row.user_ref,
    content: row.content,
    ...(row.score !== undefined ? { score: row.score } : {}),
    created_at: row.created_at.toISOString(),
    updated_at: row.updated_at.toISOString(),
  };
}

export function presentErasure(erasure: Erasure) {
  return {
    user_ref: erasure.userRef,
    erased_at: erasure.erasedAt.toISOString(),
    deleted: deletedCounts(erasure),
  };
}
