import { deletedCounts, type Erasure } from '../../memory/erasure.js';
import type { FactRow, SubmissionRow } from '../../memory/facts.js';

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

export function presentSubmission(row: SubmissionRow) {
  const ended = row.facts_found !== null;
  return {
    id: row.id,
    status: row.status,
    user_ref: row.user_ref,
    extractor: row.extractor,
    facts: ended ? { found: row.facts_found, added: row.facts_added ?? 0, updated: row.facts_updated ?? 0, deleted: row.facts_deleted ?? 0 } : null,
    error: row.error,
    created_at: row.created_at.toISOString(),
    completed_at: row.completed_at?.toISOString() ?? null,
  };
}
