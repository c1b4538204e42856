import type { DocumentRow } from '../../memory/documents.js';

/** A document as ingest answers it, in GET and in listings (all of its fields, as GET shows them); `error` only when there is one to tell (a failed ingest, or a failed attempt before a retry). */
export function presentDocument(row: DocumentRow) {
  return {
    id: row.id,
    title: row.title,
    status: row.status,
    chunk_count: row.chunk_count,
    token_count: row.token_count,
    created_at: row.created_at.toISOString(),
    source: row.source,
    collection: row.collection,
    ...(row.error !== null ? { error: row.error } : {}),
  };
}
