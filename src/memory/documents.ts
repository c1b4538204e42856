import type { PoolClient, Queryable } from '../db/pool.js';
import type { MicrosecondPosition } from '../http/cursor.js';
import { validationFailed } from '../errors.js';
import { addJob } from '../jobs/registry.js';

// Documents of a workspace: what the API creates, lists and deletes, and the status moves of the
// ingest job (queued → processing → ready | failed). Every query is scoped by workspace.

export type DocumentStatus = 'queued' | 'processing' | 'ready' | 'failed';

export interface DocumentRow {
  id: string;
  title: string;
  status: DocumentStatus;
  chunk_count: number | null;
  token_count: number | null;
  source: string | null;
  error: string | null;
  created_at: Date;
  collection: string;
}

/** Where a listing page ends: the last row's creation instant (in microseconds) and id. */
export type DocumentPosition = MicrosecondPosition;

export interface NewDocument {
  title: string;
  text: string;
  source?: string | null;
  collection: string;
}

interface Scope {
  organizationId: string;
  workspaceId: string;
}

/**
 * Attempts of one ingest job. Failures of the embedding provider are retried with graphile-
 * worker's backoff (about 3 s, 7 s, 20 s, 55 s, 2.5 min, 7 min, 18 min): half an hour, as fact
 * extraction has. With five, attempts made while the provider's circuit was still open (which cost
 * nothing and called nobody) spent the retries of an outage of a minute and a half, and the
 * documents of its start failed for good. A worker killed mid-ingest also spends one.
 */
export const INGEST_MAX_ATTEMPTS = 8;

export const ingestJobKey = (documentId: string) => `memory__ingest_document:${documentId}`;

// Ids are uuids; anything else cannot name a document, so it is a 404 without a query (and
// without the cast error Postgres would raise).
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
export const isDocumentId = (id: string) => UUID.test(id);

const COLUMNS = `d.id, d.title, d.status, d.chunk_count, d.token_count, d.source, d.error, d.created_at,
       c.slug as collection`;

/**
 * Stores the document as queued and enqueues its ingest job. Run it in a transaction (the route's
 * runOnce), so that either both exist or neither does. A collection the workspace does not have is
 * a 422 on `collection`.
 *
 * The collection row is locked (`for key share`, the lock the foreign key check takes too) in the
 * same statement that reads it: a delete of the collection that is under way makes the lock wait
 * for it and then find no row, so the upload is a 422 like any unknown collection, never a foreign
 * key violation; a delete that comes later waits for this transaction and takes the document with it.
 */
export async function createDocument(client: PoolClient, scope: Scope, input: NewDocument): Promise<DocumentRow> {
  const { rows } = await client.query<DocumentRow>(
    `with target as (
       select id, slug from collections where workspace_id = $2 and slug = $3 for key share
     ), inserted as (
       insert into documents (organization_id, workspace_id, collection_id, title, source, text)
       select $1, $2, target.id, $4, $5, $6 from target
       returning *
     )
     select d.id, d.title, d.status, d.chunk_count, d.token_count, d.source, d.error, d.created_at,
            target.slug as collection
       from inserted d cross join target`,
    [scope.organizationId, scope.workspaceId, input.collection, input.title, input.source ?? null, input.text],
  );
  const document = rows[0];
  if (!document) throw validationFailed({ collection: ['is not a collection of this workspace'] });
  await addJob(
    client,
    'memory__ingest_document',
    { document_id: document.id, workspace_id: scope.workspaceId },
    { jobKey: ingestJobKey(document.id), maxAttempts: INGEST_MAX_ATTEMPTS },
  );
  return document;
}

export async function findDocument(db: Queryable, workspaceId: string, id: string): Promise<DocumentRow | undefined> {
  if (!isDocumentId(id)) return undefined;
  const { rows } = await db.query<DocumentRow>(
    `select ${COLUMNS}
       from documents d join collections c on c.id = d.collection_id
      where d.workspace_id = $1 and d.id = $2`,
    [workspaceId, id],
  );
  return rows[0];
}

/**
 * One page, optionally of one collection (an unknown slug is a 422), newest first, (created_at, id) descending: a stable order in which a cursor names
 * an exact position. The position is kept in microseconds because a JS Date would drop them,
 * and rows created within one millisecond would then be skipped or repeated.
 */
export async function listDocuments(
  db: Queryable,
  workspaceId: string,
  page: { collection?: string; after?: DocumentPosition; limit: number },
): Promise<(DocumentRow & { position_us: string })[]> {
  let collectionId: string | null = null;
  if (page.collection !== undefined) {
    const found = await db.query<{ id: string }>('select id from collections where workspace_id = $1 and slug = $2', [
      workspaceId,
      page.collection,
    ]);
    collectionId = found.rows[0]?.id ?? null;
    // Filtering by a collection the workspace does not have is a mistake to report, not an empty page.
    if (!collectionId) throw validationFailed({ collection: ['is not a collection of this workspace'] });
  }
  const { rows } = await db.query<DocumentRow & { position_us: string }>(
    `select ${COLUMNS},
            (extract(epoch from d.created_at) * 1000000)::bigint::text as position_us
       from documents d join collections c on c.id = d.collection_id
      where d.workspace_id = $1
        and ($2::uuid is null or d.collection_id = $2)
        and ($3::bigint is null
             or (d.created_at, d.id) < ('epoch'::timestamptz + $3::bigint * interval '1 microsecond', $4::uuid))
      order by d.created_at desc, d.id desc
      limit $5`,
    [workspaceId, collectionId, page.after?.us ?? null, page.after?.id ?? null, page.limit],
  );
  return rows;
}

/** Deletes the document and its chunks. An ingest job still running for it finds it gone. */
export async function deleteDocument(db: Queryable, workspaceId: string, id: string): Promise<boolean> {
  if (!isDocumentId(id)) return false;
  const result = await db.query('delete from documents where workspace_id = $1 and id = $2', [workspaceId, id]);
  return (result.rowCount ?? 0) > 0;
}

// ---- the ingest job's side ------------------------------------------------------------------

export interface ClaimedDocument {
  id: string;
  organization_id: string;
  workspace_id: string;
  collection_id: string;
  text: string;
}

/**
 * Moves the document to processing and returns what the job needs, or undefined when there is
 * nothing to do: the document was deleted, or an earlier run of this job already made it ready
 * (its process died after the commit but before graphile-worker recorded the job as done).
 */
export async function claimDocument(db: Queryable, workspaceId: string, id: string): Promise<ClaimedDocument | undefined> {
  const { rows } = await db.query<ClaimedDocument>(
    `update documents set status = 'processing', updated_at = now()
      where workspace_id = $1 and id = $2 and status <> 'ready'
      returning id, organization_id, workspace_id, collection_id, text`,
    [workspaceId, id],
  );
  return rows[0];
}

/**
 * Marks the document ready, in the caller's transaction (so it shows only with its chunks), and
 * says whether it still exists. The update also locks the row until that transaction ends: a
 * delete waits for it, and a delete that came first makes this false, so the job never writes
 * chunks for (or resurrects) a deleted document.
 */
export async function markReady(
  db: Queryable,
  workspaceId: string,
  id: string,
  result: { chunkCount: number; tokenCount: number; tsConfig: string },
): Promise<boolean> {
  const { rowCount } = await db.query(
    `update documents
        set status = 'ready', chunk_count = $3, token_count = $4, ts_config = $5::regconfig, error = null,
            updated_at = now()
      where workspace_id = $1 and id = $2`,
    [workspaceId, id, result.chunkCount, result.tokenCount, result.tsConfig],
  );
  return (rowCount ?? 0) > 0;
}

/**
 * `failed` with the reason, or back to `queued` while a retry is pending, with what the attempt
 * met: a caller polling the document tells a failing ingest from a slow queue (it showed `queued`
 * and nothing else for minutes of retries). Never touches a ready one; says whether it changed one.
 */
export async function markUnfinished(db: Queryable, workspaceId: string, id: string, outcome: { status: 'failed' | 'queued'; error: string }): Promise<boolean> {
  const { rowCount } = await db.query(
    `update documents set status = $3, error = $4, updated_at = now()
      where workspace_id = $1 and id = $2 and status <> 'ready'`,
    [workspaceId, id, outcome.status, outcome.error],
  );
  return (rowCount ?? 0) > 0;
}
