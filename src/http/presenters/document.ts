import type { DocumentRow } from '../../memory/documents.js';

/** The ingest answer: what is known before the job ran. */
export function presentCreatedDocument(row: DocumentRow) {
  return { id: row.id, title: row.title, status: row.status, chunk_count: row.chunk_count, token_count: row.token_count };
}

/** A document in GET and in listings; `error` only when there is one to tell (a failed ingest, or a failed attempt before a retry). */
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
