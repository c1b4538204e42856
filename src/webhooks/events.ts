import type { Queryable } from '../db/pool.js';
import { deleteEventsOfEndUser, emitEvent, type Workspace } from './store.js';

// The events a workspace's endpoints may subscribe to, each recorded by the code that makes the
// change, in its transaction: the event exists if and only if the change committed. Their data
// holds ids, counts and the caller's own user_ref: never a fact's or a document's text.

export const WEBHOOK_EVENT_TYPES = ['document.ready', 'document.failed', 'facts.extracted', 'memory.erased', 'budget.threshold'] as const;
export type WebhookEventType = (typeof WEBHOOK_EVENT_TYPES)[number];
/** Sent by POST /v1/webhooks/{id}/test to that endpoint only; nobody subscribes to it. */
export const TEST_EVENT_TYPE = 'webhook.test';

/** document.ready or document.failed, as the document's status now says (nothing for another status). */
export async function recordDocumentFinished(db: Queryable, workspaceId: string, documentId: string): Promise<void> {
  await db.query(
    `select webhook_emit(d.organization_id, d.workspace_id, 'document.' || d.status,
                         jsonb_build_object('document_id', d.id, 'collection', c.slug, 'status', d.status))
       from documents d join collections c on c.id = d.collection_id
      where d.workspace_id = $1 and d.id = $2 and d.status in ('ready', 'failed')`,
    [workspaceId, documentId],
  );
}

export async function recordFactsExtracted(
  db: Queryable,
  owner: Workspace,
  outcome: { submissionId: string; userRef: string | null; added: number; updated: number; deleted: number },
): Promise<void> {
  await emitEvent(db, owner, {
    type: 'facts.extracted',
    data: {
      submission_id: outcome.submissionId,
      user_ref: outcome.userRef,
      added: outcome.added,
      updated: outcome.updated,
      deleted: outcome.deleted,
    },
  });
}

/**
 * Part of an erasure: the events that named the end-user go (and their deliveries still to be
 * sent), and memory.erased is recorded. Sent for every erasure, also one that found nothing: the
 * receiver learns that it was done.
 */
export async function recordMemoryErased(db: Queryable, owner: Workspace, erasure: { userRef: string; deleted: Record<string, number> }): Promise<void> {
  await deleteEventsOfEndUser(db, owner.workspaceId, erasure.userRef);
  await emitEvent(db, owner, { type: 'memory.erased', data: { user_ref: erasure.userRef, deleted: erasure.deleted } });
}
