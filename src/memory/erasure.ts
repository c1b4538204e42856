import type { Logger } from 'pino';
import type { Pool, PoolClient, Queryable } from '../db/pool.js';
import { awaitRecordsBegunBefore } from '../metering/writeRecords.js';
import { withTransaction } from '../db/transaction.js';
import { actedBy, recordAudit } from '../audit/entries.js';
import { recordMemoryErased } from '../webhooks/events.js';
import type { Principal } from '../tenancy/store.js';
import { deleteTracesOfEndUser } from '../traces/store.js';
import { deleteThread, deleteThreadsOfEndUser } from '../threads/store.js';
import { deleteResponsesOfEndUser } from '../doors/responses/store.js';
import { deleteCollection } from './collections.js';
import { deleteDocument } from './documents.js';
import { forgetFact, lockEndUser, removeExtractionJobs } from './facts.js';

// The right to erasure: one call removes everything the workspace holds about one end-user:
// their facts (with their embeddings and text-search vectors, which live in the same rows), every
// submission, including those still queued or being extracted, the traces of the calls that named
// them, their messages in threads (a thread goes when nothing else is left in it; other end-users'
// messages stay), the answers kept for replay and the response-cache entries of those calls (sql/0022). Nothing may reappear: the erasure holds the end-user lock that an
// extraction's write step also takes, and deletes the submissions that the write step re-checks
// under that lock (see extraction.ts).
// Forgetting one fact, or deleting a document or a collection, reaches the same stores for what was
// retrieved from it: the kept answers, stored responses and cache entries that hold its text.

export interface Erasure {
  userRef: string;
  erasedAt: Date;
  facts: number;
  submissions: number;
  /** Chat traces that named the end-user (`user`): masked, but still about them. */
  traces: number;
  /** Threads that held messages of chats that named the end-user: deleted, or left with the others' messages. */
  threads: number;
  /** Answers kept for a retry to replay. */
  replays: number;
  cacheEntries: number;
  /** Responses stored by the Responses door for calls that named the end-user. */
  responses: number;
  /** Earlier audit entries that named the end-user: kept, with the name taken out. */
  auditEntries: number;
}

type Actor = Pick<Principal, 'organizationId' | 'workspaceId' | 'keyId' | 'kind'>;

export async function eraseEndUser(pool: Pool, actor: Actor, userRef: string, log: Logger): Promise<Erasure> {
  // What a request could retrieve about the end-user goes first, with the mark: a request that
  // begins after them finds nothing of theirs, and a records statement that begins after the mark
  // writes nothing about the end-user; one already running (its snapshot older than the mark) has
  // committed before the erasure looks, so the erasure deletes what it wrote. The mark keeps what
  // this step removed until the last step reports it, should that one fail and be retried.
  await withTransaction(pool, async (db) => markErased(db, actor.workspaceId, userRef, await forgetFactsOf(db, actor.workspaceId, userRef)));
  const { rows } = await pool.query<{ now: Date }>('select clock_timestamp() as now');
  if (!(await awaitRecordsBegunBefore(pool, rows[0]!.now))) {
    log.warn('erasure: records statements still running after 5 s; erasing without them');
  }
  return withTransaction(pool, (db) => eraseEndUserIn(db, actor, userRef));
}

/** The end-user's facts and submissions, under the end-user lock an extraction's write step takes too. */
async function forgetFactsOf(db: PoolClient, workspaceId: string, userRef: string): Promise<{ facts: number; submissions: number }> {
  await lockEndUser(db, { workspaceId, userRef });
  const facts = await db.query('delete from facts where workspace_id = $1 and user_ref = $2', [workspaceId, userRef]);
  const submissions = await db.query<{ id: string }>('delete from fact_submissions where workspace_id = $1 and user_ref = $2 returning id', [workspaceId, userRef]);
  await removeExtractionJobs(db, submissions.rows.map((row) => row.id));
  return { facts: facts.rowCount ?? 0, submissions: submissions.rowCount ?? 0 };
}

/**
 * The erasure inside the caller's transaction (which must commit for it to count), counting what
 * earlier steps of it removed (kept with its mark). The audit entry is written in the same
 * transaction: there is no erasure without its record, nor a record of an erasure that rolled back.
 */
export async function eraseEndUserIn(db: PoolClient, actor: Actor, userRef: string): Promise<Erasure> {
  // The end-user lock before the mark's row, in the order the first step takes them: two erasures
  // of one end-user at once (a retried call, two workers of a privacy pipeline) deadlocked on them.
  await lockEndUser(db, { workspaceId: actor.workspaceId, userRef });
  const forgotten = await takeForgotten(db, actor.workspaceId, userRef);
  const { facts, submissions } = await forgetFactsOf(db, actor.workspaceId, userRef);
  const traces = await deleteTracesOfEndUser(db, actor.workspaceId, userRef);
  const threads = await deleteThreadsOfEndUser(db, actor.workspaceId, userRef);
  const responses = await deleteResponsesOfEndUser(db, actor.workspaceId, userRef);
  const answers = await db.query<{ replays: number; cache_entries: number }>(
    // The ids the end-user's requests were sent under are kept, emptied (no answer, no body hash,
    // no end-user): a retry under one is refused (422, not kept for replay) rather than run anew,
    // which for a fact submission (billed under its own id, not the caller's) stored the fact again
    // (docs/decisions/0034-an-erased-end-users-request-ids-stay-taken.md).
    `with replays as (
       update requests
          set state = 'completed', response = null, body_hash = '\\x'::bytea, end_user = null, fact_ids = null,
              completed_at = coalesce(completed_at, now())
        where workspace_id = $1 and end_user = $2
       returning 1
     ), cache_entries as (
       delete from response_cache where workspace_id = $1 and end_user = $2 returning 1
     )
     select (select count(*) from replays)::int as replays, (select count(*) from cache_entries)::int as cache_entries`,
    [actor.workspaceId, userRef],
  );
  const auditEntries = await forgetEndUserInAuditLog(db, actor.workspaceId, userRef);
  const erasure: Erasure = {
    userRef,
    erasedAt: new Date(),
    facts: forgotten.facts + facts,
    submissions: forgotten.submissions + submissions,
    traces,
    threads,
    replays: answers.rows[0]!.replays,
    cacheEntries: answers.rows[0]!.cache_entries,
    responses,
    auditEntries,
  };
  await recordAudit(db, {
    organization_id: actor.organizationId,
    workspace_id: actor.workspaceId,
    at: erasure.erasedAt.toISOString(),
    actor: { key_id: actor.keyId, kind: actor.kind },
    action: 'memory.erased',
    // The caller's own reference for its end-user: the proof of which erasure was done.
    target: userRef,
    details: {
      facts: erasure.facts,
      submissions: erasure.submissions,
      traces: erasure.traces,
      threads: erasure.threads,
      replays: erasure.replays,
      cache_entries: erasure.cacheEntries,
      responses: erasure.responses,
      audit_entries_anonymised: erasure.auditEntries,
    },
  });
  await recordMemoryErased(db, actor, { userRef, deleted: deletedCounts(erasure) });
  // Last, as close to the commit as it can be: requests naming them that are still running write
  // nothing about them when they finish (sql/0029, writeRecords.ts).
  await markErased(db, actor.workspaceId, userRef);
  return erasure;
}

/**
 * Takes the end-user's reference out of the workspace's earlier audit entries (a chat's or an
 * embeddings call's `user`, an extraction's `user_ref`; sql/0032): the entries stay, as the record
 * of what each key did, marked `user_erased`. The erasure's own entry keeps the reference: it is
 * the proof of which erasure was done.
 */
async function forgetEndUserInAuditLog(db: PoolClient, workspaceId: string, userRef: string): Promise<number> {
  const { rowCount } = await db.query(
    `update audit_log
        set details = details - 'user' - 'user_ref' || '{"user_erased": true}'
      where workspace_id = $1 and details ?| array['user', 'user_ref']
        and coalesce(details ->> 'user', details ->> 'user_ref') = $2`,
    [workspaceId, userRef],
  );
  return rowCount ?? 0;
}

/**
 * Requests naming the end-user that began before now write nothing about them (sql/0029,
 * writeRecords.ts). `forgotten` is what this step of the erasure removed, kept until its last step
 * reports it (sql/0041).
 */
async function markErased(db: Queryable, workspaceId: string, userRef: string, forgotten = { facts: 0, submissions: 0 }): Promise<void> {
  await db.query(
    `insert into end_user_erasures (workspace_id, user_ref, erased_at, facts_pending, submissions_pending)
     values ($1, $2, clock_timestamp(), $3, $4)
     on conflict (workspace_id, user_ref) do update
        set erased_at = excluded.erased_at,
            facts_pending = end_user_erasures.facts_pending + excluded.facts_pending,
            submissions_pending = end_user_erasures.submissions_pending + excluded.submissions_pending`,
    [workspaceId, userRef, forgotten.facts, forgotten.submissions],
  );
}

/** What earlier steps of the erasure removed, taken from its mark (given back should the transaction roll back). */
async function takeForgotten(db: Queryable, workspaceId: string, userRef: string): Promise<{ facts: number; submissions: number }> {
  const { rows } = await db.query<{ facts: number; submissions: number }>(
    `update end_user_erasures e
        set facts_pending = 0, submissions_pending = 0
       from (select facts_pending, submissions_pending from end_user_erasures
              where workspace_id = $1 and user_ref = $2 for update) before
      where e.workspace_id = $1 and e.user_ref = $2
      returning before.facts_pending as facts, before.submissions_pending as submissions`,
    [workspaceId, userRef],
  );
  return rows[0] ?? { facts: 0, submissions: 0 };
}

/** What an erasure removed, per store, as its answer and its memory.erased event show it. */
export function deletedCounts(erasure: Erasure) {
  return {
    facts: erasure.facts,
    submissions: erasure.submissions,
    threads: erasure.threads,
    traces: erasure.traces,
    replays: erasure.replays,
    cache_entries: erasure.cacheEntries,
    responses: erasure.responses,
  };
}

/**
 * DELETE /memory/facts/{id}: the fact, and every kept answer, stored response and cache entry it
 * was retrieved into (a replay would otherwise hand it back verbatim in `sources[].text`). False
 * when the workspace holds no such fact.
 */
export async function forgetFactEverywhere(pool: Pool, principal: Principal, factId: string): Promise<boolean> {
  return auditedDeletion(pool, principal, { action: 'fact.forgotten', target: factId }, async (db) => {
    const workspaceId = principal.workspaceId;
    if (!(await forgetFact(db, workspaceId, factId))) return false;
    await forgetAnswersHoldingFact(db, workspaceId, factId);
    return true;
  });
}

/**
 * The answers kept for replay, cached and stored that a fact was retrieved into: forgotten with
 * the fact, and with its old text when it is corrected (factCorrection.ts).
 */
export async function forgetAnswersHoldingFact(db: PoolClient, workspaceId: string, factId: string): Promise<void> {
  await db.query(
    `with replays as (
       delete from requests where workspace_id = $1 and fact_ids @> array[$2::uuid]
     )
     delete from response_cache where workspace_id = $1 and fact_ids @> array[$2::uuid]`,
    [workspaceId, factId],
  );
  await forgetAnswersHolding(db, workspaceId, { type: 'fact', id: factId });
}

/** DELETE /recall/collections/{slug}: the collection, its documents, and the answers they were retrieved into. */
export async function deleteCollectionEverywhere(pool: Pool, principal: Principal, slug: string): Promise<boolean> {
  return auditedDeletion(pool, principal, { action: 'collection.deleted', target: slug }, async (db) => {
    const documentIds = await deleteCollection(db, principal.workspaceId, slug);
    if (!documentIds) return false;
    await forgetAnswersHolding(db, principal.workspaceId, { type: 'chunk', collection: slug });
    await forgetCachedAnswersOf(db, principal.workspaceId, documentIds);
    return true;
  });
}

/** DELETE /memory/documents/{id}: the document, its chunks, and the answers they were retrieved into. */
export async function deleteDocumentEverywhere(pool: Pool, principal: Principal, documentId: string): Promise<boolean> {
  return auditedDeletion(pool, principal, { action: 'document.deleted', target: documentId }, async (db) => {
    if (!(await deleteDocument(db, principal.workspaceId, documentId))) return false;
    await forgetAnswersHolding(db, principal.workspaceId, { type: 'chunk', document_id: documentId });
    await forgetCachedAnswersOf(db, principal.workspaceId, [documentId]);
    return true;
  });
}

/** DELETE /recall/threads/{thread}. */
export async function deleteThreadAudited(pool: Pool, principal: Principal, thread: string): Promise<boolean> {
  return auditedDeletion(pool, principal, { action: 'thread.deleted', target: thread }, (db) => deleteThread(db, principal.workspaceId, thread));
}

/** A deletion of memory and its audit entry, in one transaction; false (and no entry) when there was nothing to delete. */
async function auditedDeletion(
  pool: Pool,
  principal: Principal,
  audit: { action: string; target: string },
  remove: (db: PoolClient) => Promise<boolean>,
): Promise<boolean> {
  return withTransaction(pool, async (db) => {
    if (!(await remove(db))) return false;
    await recordAudit(db, { ...actedBy(principal), ...audit, details: {} });
    return true;
  });
}

/**
 * Deletes the answers kept for replay and the stored responses whose `sources` hold a source
 * matching `source` (JSON containment), so what was deleted cannot come back through them.
 */
async function forgetAnswersHolding(db: PoolClient, workspaceId: string, source: Record<string, string>): Promise<void> {
  await db.query(
    `with replays as (
       delete from requests where workspace_id = $1 and kind = 'chat' and (response -> 'body' -> 'sources')::jsonb @> $2::jsonb
     )
     delete from stored_responses where workspace_id = $1 and (response -> 'sources')::jsonb @> $2::jsonb`,
    [workspaceId, JSON.stringify([source])],
  );
}

/**
 * Deletes the cached answers the documents' passages were retrieved into: no later question would
 * hit them (their key holds the retrieved text), but the answer quotes it, and would stay an hour.
 */
async function forgetCachedAnswersOf(db: PoolClient, workspaceId: string, documentIds: readonly string[]): Promise<void> {
  if (documentIds.length === 0) return;
  await db.query('delete from response_cache where workspace_id = $1 and document_ids && $2::uuid[]', [workspaceId, documentIds]);
}
