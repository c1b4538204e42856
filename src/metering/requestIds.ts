import crypto from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { requestStillRunning, validationFailed } from '../errors.js';
import type { Pool, PoolClient, Queryable } from '../db/pool.js';
import { withTransaction } from '../db/transaction.js';
import type { AnswerRun } from '../gateway/providers/types.js';
import { writeRecordsNow } from './writeRecords.js';

// Idempotency on the request id. A caller-chosen id gets a requests row, holding the hash of the
// body and, once the request succeeded, its response for replays. Any billed id, generated ones
// included, is taken by its usage row, written before the answer is sent.

export type RequestKind = 'chat' | 'embeddings' | 'collections' | 'documents' | 'facts' | 'scores';

export interface StoredResponse {
  /** Absent: 200. */
  status?: number;
  body: Record<string, unknown>;
  headers: Record<string, string>;
  /** A chat answer's stream orders (ChatReply.orders), which a replay needs and the body does not show. */
  orders?: Record<number, AnswerRun[]>;
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
  return crypto.hash('sha256', canonical(rest), 'buffer');
}

// The service bills and traces its own work under ids of the form `<kind>:<id>` (an ingest under
// `ingest:<document>`, an extraction under `facts:<submission>`). Caller ids may not take those
// forms: a chat sent first under a document's ingest id would take the id, and the ingest's usage
// would then not be written.
const SERVICE_WORK_KINDS = ['ingest', 'facts'] as const;
export type ServiceWorkKind = (typeof SERVICE_WORK_KINDS)[number];

/** The request id under which the service bills and traces its own work on a document or submission. */
export function serviceRequestId(kind: ServiceWorkKind, id: string): string {
  return `${kind}:${id}`;
}

function isServiceRequestId(requestId: string): boolean {
  return SERVICE_WORK_KINDS.some((kind) => requestId.startsWith(`${kind}:`));
}

const NOT_KEPT_FOR_REPLAY = () =>
  validationFailed(
    {
      'X-Request-Id': [
        'was already used for a request that was billed and whose answer is not kept for replay (an answer past its retention, or one whose memory was erased); send it again under a new id',
      ],
    },
    'this request id was already answered and billed, and its answer cannot be replayed',
  );

// A new claim, unless the id already bills a request that has no requests row: a generated id or
// a document ingest's id. A second request under it could not be billed (usage is unique per
// request id).
const CLAIM_SQL = `
  with billed as (
    select 1 from usage where workspace_id = $1 and request_id = $2 and not partial
  ), claimed as (
    insert into requests (workspace_id, request_id, organization_id, kind, body_hash, state, holder)
    select $1::uuid, $2::text, $3::uuid, $4::text, $5::bytea, 'running', $6::int
     where not exists (select 1 from billed)
    on conflict (workspace_id, request_id) do nothing
    returning 1
  )
  select exists (select 1 from claimed) as claimed, exists (select 1 from billed) as billed`;

// A running claim whose process died (no session holds its presence lock, db/presence.ts) is
// taken over by the retry: the request never reached its records, so it runs anew and is billed
// once. `created_at` restarts, so that the prune of abandoned claims counts from the takeover.
// The lock is looked for twice, PRESENCE_GRACE_MS apart: a live process whose listening connection
// dropped takes it again within about half a second (db/listener.ts), and its request must not run
// twice meanwhile.
const PRESENCE_GRACE_MS = 1_500;
const TAKE_OVER_SQL = `
  update requests r set holder = $3, created_at = now()
   where r.workspace_id = $1 and r.request_id = $2 and r.state = 'running' and r.holder = $4 and r.body_hash = $5
     and not polder_presence_held(r.holder)
  returning 1`;

/**
 * Claims the request id for this body. Returns the stored response when the same request already
 * succeeded (a replay); throws 409 while it is still running and 422 when the id was used for
 * another body, or for a request whose answer is not kept.
 */
export async function claimRequestId(
  db: Queryable,
  claim: { workspaceId: string; organizationId: string; requestId: string; kind: RequestKind; hash: Buffer; holder: number | null },
): Promise<StoredResponse | undefined> {
  const outcome = await db.query<{ claimed: boolean; billed: boolean }>(CLAIM_SQL, [
    claim.workspaceId,
    claim.requestId,
    claim.organizationId,
    claim.kind,
    claim.hash,
    claim.holder,
  ]);
  if (outcome.rows[0]?.claimed) return undefined;
  // A separate statement: its snapshot sees a row that a concurrent claim committed meanwhile.
  const { rows } = await db.query<{ state: string; body_hash: Buffer; response: StoredResponse | null; holder: number | null }>(
    'select state, body_hash, response, holder from requests where workspace_id = $1 and request_id = $2',
    [claim.workspaceId, claim.requestId],
  );
  const row = rows[0];
  if (!row) {
    if (outcome.rows[0]?.billed) throw NOT_KEPT_FOR_REPLAY();
    return claimRequestId(db, claim);
  }
  // Completed without an answer: the id of a request whose end-user was erased (memory/erasure.ts).
  if (row.state === 'completed' && !row.response) throw NOT_KEPT_FOR_REPLAY();
  if (!row.body_hash.equals(claim.hash)) {
    throw validationFailed(
      { 'X-Request-Id': ['was already used for a request with another body; use a new id for a new request'] },
      'this request id belongs to another request',
    );
  }
  if (row.state === 'running' && row.holder !== null && claim.holder !== null) {
    const { held } = (await db.query<{ held: boolean }>('select polder_presence_held($1) as held', [row.holder])).rows[0]!;
    if (!held) {
      await sleep(PRESENCE_GRACE_MS);
      const takenOver = await db.query(TAKE_OVER_SQL, [claim.workspaceId, claim.requestId, claim.holder, row.holder, claim.hash]);
      if ((takenOver.rowCount ?? 0) > 0) return undefined;
    }
  }
  if (row.state !== 'completed' || !row.response) {
    throw requestStillRunning();
  }
  return row.response;
}

/**
 * The first answer's headers, less its x-ratelimit-* ones: what was left then is not what is left
 * now, and a replay takes nothing from any limit (the gateway adds those of now: LimitGate.rateHeadersOf).
 */
function replayableHeaders(headers: Record<string, string>): Record<string, string> {
  const kept: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers)) if (!name.toLowerCase().startsWith('x-ratelimit-')) kept[name] = value;
  return kept;
}

/**
 * A failed first attempt is not stored, so its retry runs anew. A release that fails (the
 * database went away with the request) is tried again until it is back: the claim would
 * otherwise answer every retry 409 until pruned, an hour later.
 */
export async function releaseRequestId(pool: Pool, workspaceId: string, requestId: string): Promise<void> {
  try {
    await deleteRunningClaim(pool, workspaceId, requestId);
  } catch (err) {
    unreleased.set(`${workspaceId}\0${requestId}`, { pool, workspaceId, requestId, since: Date.now() });
    releaseLater(RELEASE_RETRY_FIRST_MS);
    throw err;
  }
}

async function deleteRunningClaim(db: Queryable, workspaceId: string, requestId: string): Promise<void> {
  await db.query(`delete from requests where workspace_id = $1 and request_id = $2 and state = 'running'`, [workspaceId, requestId]);
}

const RELEASE_RETRY_FIRST_MS = 1_000;
const RELEASE_RETRY_MAX_MS = 15_000;
const unreleased = new Map<string, { pool: Pool; workspaceId: string; requestId: string; since: number }>();
let releaseTimer: NodeJS.Timeout | undefined;

function releaseLater(pauseMs: number): void {
  if (releaseTimer !== undefined) return;
  releaseTimer = setTimeout(() => {
    releaseTimer = undefined;
    retryReleases().then(
      () => {
        if (unreleased.size > 0) releaseLater(Math.min(pauseMs * 2, RELEASE_RETRY_MAX_MS));
      },
      () => releaseLater(Math.min(pauseMs * 2, RELEASE_RETRY_MAX_MS)),
    );
  }, pauseMs);
  // A process on its way out does not wait for them: the prune frees what is left.
  releaseTimer.unref();
}

async function retryReleases(): Promise<void> {
  for (const [key, claim] of unreleased) {
    try {
      await deleteRunningClaim(claim.pool, claim.workspaceId, claim.requestId);
      unreleased.delete(key);
    } catch {
      if (Date.now() - claim.since > ABANDONED_CLAIM_SECONDS * 1000) unreleased.delete(key);
      return;
    }
  }
}

/** Releases still waiting for the database (for tests and metrics). */
export function unreleasedClaims(): number {
  return unreleased.size;
}

/** Who asks, under which request id, and whether the caller chose it (only then can it retry). */
export interface IdempotencyContext {
  principal: { workspaceId: string; organizationId: string };
  requestId: string;
  callerRequestId: boolean;
  /** The presence key of the process that handles it (db/presence.ts), when it has one. */
  claimHolder?: number;
}

export interface Claim {
  /** The id is held for this request until it settles or is released. */
  claimed: boolean;
  /** The body's hash, when the caller chose the id; a retry is compared against it. */
  hash: Buffer | undefined;
  replay?: StoredResponse;
}

/**
 * The idempotency step of chat, embeddings and runOnce: when the caller chose the request id,
 * claim it, or return the replay of the first successful response (marked with X-Replay). A
 * generated id needs neither a claim nor a hash: nobody can send it before it is answered.
 */
export async function claimOrReplay(
  db: Queryable,
  request: IdempotencyContext & { kind: RequestKind; body: Record<string, unknown> },
): Promise<Claim> {
  if (!request.callerRequestId) return { claimed: false, hash: undefined };
  if (isServiceRequestId(request.requestId)) {
    throw validationFailed(
      { 'X-Request-Id': [`may not start with ${SERVICE_WORK_KINDS.map((k) => `"${k}:"`).join(' or ')}: those ids are reserved for the service's own work`] },
      'this request id is reserved',
    );
  }
  const hash = bodyHash(request.body);
  const stored = await claimRequestId(db, {
    workspaceId: request.principal.workspaceId,
    organizationId: request.principal.organizationId,
    requestId: request.requestId,
    kind: request.kind,
    hash,
    holder: request.claimHolder ?? null,
  });
  if (stored) return { claimed: false, hash, replay: { ...stored, headers: { ...replayableHeaders(stored.headers), 'X-Replay': 'true' } } };
  return { claimed: true, hash };
}

/** The requests row a successful request under a caller-chosen id leaves in its group commit. */
export interface SettledRequest {
  workspace_id: string;
  organization_id: string;
  request_id: string;
  kind: RequestKind;
  body_hash: string;
  response: StoredResponse;
  /** The end-user the answer is about (`user`): an erasure of them deletes it. */
  end_user: string | null;
  /** The facts retrieved into the answer: forgetting one deletes it. */
  fact_ids: string[];
}

/** Whom a kept answer or a cache entry is about, so that an erasure or a forgotten fact finds it. */
export interface AnswerSubjects {
  endUser: string | null;
  factIds: string[];
}

const NO_SUBJECTS: AnswerSubjects = { endUser: null, factIds: [] };

/**
 * The row that completes the claim of a caller-chosen id (`hash` is its body's, from claimOrReplay)
 * with the answer a retry replays. A generated id has no hash and gets none: its usage takes it.
 */
export function settledRequest(
  request: IdempotencyContext & { kind: RequestKind },
  hash: Buffer | undefined,
  response: StoredResponse,
  subjects: AnswerSubjects = NO_SUBJECTS,
): SettledRequest | undefined {
  if (!hash) return undefined;
  return {
    workspace_id: request.principal.workspaceId,
    organization_id: request.principal.organizationId,
    request_id: request.requestId,
    kind: request.kind,
    body_hash: hash.toString('hex'),
    response,
    end_user: subjects.endUser,
    fact_ids: subjects.factIds,
  };
}

/**
 * A request that creates something (a collection, a document, a fact submission, a score), run at
 * most once per caller-chosen id. `work` runs in a transaction with the completion of the claim,
 * so either both commit or neither does: a retry replays the first answer (X-Replay) and creates,
 * enqueues and bills nothing again, and a retry of a failed first attempt runs anew. `admit` runs
 * first, after the claim and outside the transaction: a check that reads the database itself (a
 * budget's) would otherwise hold two of the pool's connections at once, and a burst of such
 * requests would take them all and wait for each other. `subjects` names the end-user the kept
 * answer is about, so that their erasure deletes it.
 */
export async function runOnce(
  pool: Pool,
  request: IdempotencyContext & { kind: RequestKind; body: Record<string, unknown> },
  work: (db: PoolClient) => Promise<StoredResponse>,
  admit?: () => Promise<void>,
  subjects: AnswerSubjects = NO_SUBJECTS,
): Promise<StoredResponse> {
  const { claimed, hash, replay } = await claimOrReplay(pool, request);
  if (replay) return replay;
  try {
    await admit?.();
    return await withTransaction(pool, async (db) => {
      const response = await work(db);
      const settled = settledRequest(request, hash, response, subjects);
      if (settled) await writeRecordsNow(db, { request: settled });
      return response;
    });
  } catch (err) {
    if (claimed) await releaseRequestId(pool, request.principal.workspaceId, request.requestId);
    throw err;
  }
}

/** A claim still running after this was left by a process that died: its id is freed. */
export const ABANDONED_CLAIM_SECONDS = 3600;

/**
 * Deletes, a batch at a time, the claims left running by a process that died, so that their
 * retries can run, and the answers kept for replay longer than the retention: a kept answer holds
 * what the end-user said and was told. A retry after that is refused (422, not kept for replay):
 * the usage row still holds the id, so it is never billed twice.
 */
export async function pruneRequestIds(db: Queryable, replayRetentionHours: number, limit = 10_000): Promise<number> {
  // An erasure's mark is read by requests that were running when it was made (sql/0029); none
  // runs longer than a claim is held, so a mark twice that old is read by nobody.
  const { rowCount } = await db.query(
    `with marks as (
       delete from end_user_erasures where erased_at < now() - make_interval(secs => 2 * $1::float8)
     )
     delete from requests
      where ctid in (
        (select ctid from requests
          where state = 'running' and created_at < now() - make_interval(secs => $1::float8)
          limit $3)
        union all
        (select ctid from requests
          where state = 'completed' and completed_at < now() - make_interval(hours => $2::int)
          limit $3))`,
    [ABANDONED_CLAIM_SECONDS, replayRetentionHours, limit],
  );
  return rowCount ?? 0;
}
