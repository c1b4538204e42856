import { createHash } from 'node:crypto';
import { conflict, validationFailed } from '../errors.js';
import type { Queryable } from '../db/pool.js';

// Idempotency on the request id: one row per (workspace, request id), holding the hash of the
// body and, once the request succeeded, its response for replays.

export type RequestKind = 'chat' | 'embeddings';

export interface StoredResponse {
  body: Record<string, unknown>;
  headers: Record<string, string>;
}

/** Keys sorted at every level, so the same JSON with another key order hashes the same. */
function canonical(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonical).join(',')}]`;
  if (value && typeof value === 'object') {
    const entries = Object.keys(value as object)
      .sort()
      .filter((key) => (value as Record<string, unknown>)[key] !== undefined)
      .map((key) => `${JSON.stringify(key)}:${canonical((value as Record<string, unknown>)[key])}`);
    return `{${entries.join(',')}}`;
  }
  return JSON.stringify(value) ?? 'null';
}

/** The request's identity for idempotency: everything but the fields that only choose the answer's form. */
export function bodyHash(body: Record<string, unknown>): Buffer {
  const { stream: _stream, stream_options: _streamOptions, ...rest } = body;
  return createHash('sha256').update(canonical(rest)).digest();
}

/**
 * Claims the request id for this body. Returns the stored response when the same request already
 * succeeded (a replay); throws 409 while it is still running and 422 when the id was used for
 * another body.
 */
export async function claimRequestId(
  db: Queryable,
  claim: { workspaceId: string; organizationId: string; requestId: string; kind: RequestKind; hash: Buffer },
): Promise<StoredResponse | undefined> {
  const inserted = await db.query(
    `insert into requests (workspace_id, request_id, organization_id, kind, body_hash, state)
     values ($1, $2, $3, $4, $5, 'running')
     on conflict (workspace_id, request_id) do nothing`,
    [claim.workspaceId, claim.requestId, claim.organizationId, claim.kind, claim.hash],
  );
  if (inserted.rowCount === 1) return undefined;
  // A separate statement: its snapshot sees a row that a concurrent claim committed meanwhile.
  const { rows } = await db.query<{ state: string; body_hash: Buffer; response: StoredResponse | null }>(
    'select state, body_hash, response from requests where workspace_id = $1 and request_id = $2',
    [claim.workspaceId, claim.requestId],
  );
  const row = rows[0];
  if (!row) return claimRequestId(db, claim);
  if (row.state === 'completed' && !row.response) {
    // The id was generated for a request that did not name one; its answer was not kept.
    throw validationFailed(
      { 'X-Request-Id': ['was already used for a request whose answer is not kept for replay; use a new id for a new request'] },
      'this request id belongs to another request',
    );
  }
  if (!row.body_hash.equals(claim.hash)) {
    throw validationFailed(
      { 'X-Request-Id': ['was already used for a request with another body; use a new id for a new request'] },
      'this request id belongs to another request',
    );
  }
  if (row.state !== 'completed' || !row.response) {
    throw conflict('a request with this id is still running; retry when it has finished');
  }
  return row.response;
}

/** A failed first attempt is not stored, so its retry runs anew. */
export async function releaseRequestId(db: Queryable, workspaceId: string, requestId: string): Promise<void> {
  await db.query(`delete from requests where workspace_id = $1 and request_id = $2 and state = 'running'`, [
    workspaceId,
    requestId,
  ]);
}

export interface Replay {
  body: Record<string, unknown>;
  headers: Record<string, string>;
}

/** Who asks, under which request id, and whether the caller chose it (only then can it retry). */
export interface IdempotencyContext {
  principal: { workspaceId: string; organizationId: string };
  requestId: string;
  callerRequestId: boolean;
}

export interface Claim {
  /** The id is held for this request until it settles or is released. */
  claimed: boolean;
  /** The body's hash, when the caller chose the id; a retry is compared against it. */
  hash: Buffer | undefined;
  replay?: Replay;
}

/**
 * The idempotency step of chat and embeddings: when the caller chose the request id, claim it,
 * or return the replay of the first successful response (marked with X-Replay). A generated id
 * needs neither a claim nor a hash: nobody can send it before it is answered.
 */
export async function claimOrReplay(
  db: Queryable,
  request: IdempotencyContext & { kind: RequestKind; body: Record<string, unknown> },
): Promise<Claim> {
  if (!request.callerRequestId) return { claimed: false, hash: undefined };
  const hash = bodyHash(request.body);
  const stored = await claimRequestId(db, {
    workspaceId: request.principal.workspaceId,
    organizationId: request.principal.organizationId,
    requestId: request.requestId,
    kind: request.kind,
    hash,
  });
  if (stored) return { claimed: false, hash, replay: { body: stored.body, headers: { ...stored.headers, 'X-Replay': 'true' } } };
  return { claimed: true, hash };
}

/** The requests row a successful request leaves in its group commit. */
export interface SettledRequest {
  workspace_id: string;
  organization_id: string;
  request_id: string;
  kind: RequestKind;
  body_hash: string;
  response: StoredResponse | null;
}

/**
 * Takes the request id for good. The answer is kept only when the caller chose the id (`hash` is
 * then set): the only way to retry it. A caller who later sends a generated id gets a 422.
 */
export function settledRequest(
  request: IdempotencyContext & { kind: RequestKind },
  hash: Buffer | undefined,
  response: StoredResponse,
): SettledRequest {
  return {
    workspace_id: request.principal.workspaceId,
    organization_id: request.principal.organizationId,
    request_id: request.requestId,
    kind: request.kind,
    body_hash: hash?.toString('hex') ?? '',
    response: hash ? response : null,
  };
}
