import type { Pool, Queryable } from '../db/pool.js';
import { storableJson } from '../db/storable.js';
import { withTransaction } from '../db/transaction.js';
import type { TimePosition } from '../http/period.js';

// The SQL of webhooks: endpoints, events and deliveries. Every query names the workspace, except
// the delivery task's, which works by a delivery id that only a job of ours carries.

export interface EndpointRow {
  id: string;
  organization_id: string;
  workspace_id: string;
  url: string;
  events: string[];
  description: string | null;
  enabled: boolean;
  disabled_reason: string | null;
  failing_since: Date | null;
  previous_secret_until: Date | null;
  created_at: Date;
  updated_at: Date;
}

const ENDPOINT_COLUMNS = `id, organization_id, workspace_id, url, events, description, enabled, disabled_reason,
  failing_since, previous_secret_until, created_at, updated_at`;

export interface DeliveryRow {
  id: string;
  endpoint_id: string;
  event_id: string;
  event_type: string;
  status: 'pending' | 'delivered' | 'failed';
  attempts: number;
  last_status_code: number | null;
  last_error: string | null;
  last_response: string | null;
  next_attempt_at: Date | null;
  delivered_at: Date | null;
  created_at: Date;
  position_at: string;
}

const DELIVERY_COLUMNS = `d.id, d.endpoint_id, d.event_id, v.type as event_type, d.status, d.attempts, d.last_status_code,
  d.last_error, d.last_response, d.next_attempt_at, d.delivered_at, d.created_at,
  to_char(d.created_at at time zone 'utc', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"') as position_at`;

export interface Workspace {
  organizationId: string;
  workspaceId: string;
}

/**
 * The workspace's endpoints, counted under a lock of the workspace's row (for the rest of the
 * caller's transaction): creates that race each other count one after the other, so none passes
 * the cap.
 */
export async function countEndpointsLocked(db: Queryable, workspaceId: string): Promise<number> {
  await db.query('select 1 from workspaces where id = $1 for no key update', [workspaceId]);
  // A statement of its own: its snapshot is taken once the lock is held, so it sees what the
  // create that held the lock before it inserted.
  const { rows } = await db.query<{ n: number }>('select count(*)::int as n from webhook_endpoints where workspace_id = $1', [workspaceId]);
  return rows[0]!.n;
}

export async function insertEndpoint(
  db: Queryable,
  owner: Workspace,
  endpoint: { url: string; events: string[]; description: string | null; enabled: boolean; secret: string },
): Promise<EndpointRow> {
  const { rows } = await db.query<EndpointRow>(
    `insert into webhook_endpoints (organization_id, workspace_id, url, events, description, enabled, secret)
     values ($1, $2, $3, $4, $5, $6, $7)
     returning ${ENDPOINT_COLUMNS}`,
    [owner.organizationId, owner.workspaceId, endpoint.url, endpoint.events, endpoint.description, endpoint.enabled, endpoint.secret],
  );
  return rows[0]!;
}

export async function listEndpoints(db: Queryable, workspaceId: string): Promise<EndpointRow[]> {
  const { rows } = await db.query<EndpointRow>(
    `select ${ENDPOINT_COLUMNS} from webhook_endpoints where workspace_id = $1 order by created_at desc, id desc`,
    [workspaceId],
  );
  return rows;
}

export async function findEndpoint(
  db: Queryable,
  workspaceId: string,
  id: string,
  { lock = false } = {},
): Promise<EndpointRow | undefined> {
  const { rows } = await db.query<EndpointRow>(
    `select ${ENDPOINT_COLUMNS} from webhook_endpoints where workspace_id = $1 and id = $2 ${lock ? 'for update' : ''}`,
    [workspaceId, id],
  );
  return rows[0];
}

export async function saveEndpoint(
  db: Queryable,
  workspaceId: string,
  id: string,
  endpoint: { url: string; events: string[]; description: string | null; enabled: boolean },
): Promise<EndpointRow> {
  // Enabling again starts a new count of failures (and forgets why it was disabled).
  const { rows } = await db.query<EndpointRow>(
    `update webhook_endpoints
        set url = $3, events = $4, description = $5,
            failing_since = case when $6 and not enabled then null else failing_since end,
            disabled_reason = case when $6 then null else disabled_reason end,
            enabled = $6, updated_at = now()
      where workspace_id = $1 and id = $2
      returning ${ENDPOINT_COLUMNS}`,
    [workspaceId, id, endpoint.url, endpoint.events, endpoint.description, endpoint.enabled],
  );
  return rows[0]!;
}

export async function deleteEndpoint(db: Queryable, workspaceId: string, id: string): Promise<EndpointRow | undefined> {
  const { rows } = await db.query<EndpointRow>(
    `delete from webhook_endpoints where workspace_id = $1 and id = $2 returning ${ENDPOINT_COLUMNS}`,
    [workspaceId, id],
  );
  return rows[0];
}

/**
 * The new secret signs from now on; the one it replaces keeps signing beside it until
 * `keepOldUntil`, as do those earlier rotations retired that still may (the newest
 * MAX_RETIRED_SECRETS of them: a rotation a minute must not make every delivery carry hundreds of
 * signatures).
 */
const MAX_RETIRED_SECRETS = 4;

export async function rotateSecret(
  db: Queryable,
  workspaceId: string,
  id: string,
  secret: string,
  keepOldUntil: Date,
): Promise<EndpointRow | undefined> {
  const { rows } = await db.query<EndpointRow>(
    `update webhook_endpoints
        set retired_secrets = jsonb_build_array(jsonb_build_object('secret', secret, 'until', $4::timestamptz))
                              || coalesce((select jsonb_agg(r.secret order by r.at)
                                             from (select s as secret, n as at
                                                     from jsonb_array_elements(retired_secrets) with ordinality as x(s, n)
                                                    where (s ->> 'until')::timestamptz > now()
                                                    order by n
                                                    limit ${MAX_RETIRED_SECRETS - 1}) r), '[]'),
            previous_secret_until = $4, secret = $3, updated_at = now()
      where workspace_id = $1 and id = $2
      returning ${ENDPOINT_COLUMNS}`,
    [workspaceId, id, secret, keepOldUntil],
  );
  return rows[0];
}

/** An event for one endpoint only (POST /webhooks/{id}/test), with its delivery and job. */
export async function emitToEndpoint(
  db: Queryable,
  endpoint: EndpointRow,
  event: { type: string; data: Record<string, unknown> },
): Promise<string> {
  const { rows } = await db.query<{ id: string }>(
    `with event as (
       insert into webhook_events (organization_id, workspace_id, type, data)
       values ($1, $2, $4, $5::jsonb)
       returning id
     ), delivery as (
       insert into webhook_deliveries (organization_id, workspace_id, endpoint_id, event_id, next_attempt_at)
       select $1, $2, $3, event.id, now() from event
       returning id
     )
     select id, webhook_queue_delivery(id) as queued
       from delivery`,
    [endpoint.organization_id, endpoint.workspace_id, endpoint.id, event.type, storableJson(event.data)],
  );
  return rows[0]!.id;
}

/**
 * Records an event in the caller's transaction, with one delivery (and its job) per enabled
 * endpoint of the workspace subscribed to its type. Returns how many deliveries were queued.
 */
export async function emitEvent(
  db: Queryable,
  owner: Workspace,
  event: { type: string; data: Record<string, unknown> },
): Promise<number> {
  const { rows } = await db.query<{ queued: number }>('select webhook_emit($1, $2, $3, $4::jsonb) as queued', [
    owner.organizationId,
    owner.workspaceId,
    event.type,
    storableJson(event.data),
  ]);
  return rows[0]!.queued;
}

/** The events that name an end-user (with their deliveries, sent or not): part of their erasure. */
export async function deleteEventsOfEndUser(db: Queryable, workspaceId: string, userRef: string): Promise<number> {
  const { rowCount } = await db.query(
    `delete from webhook_events where workspace_id = $1 and data ? 'user_ref' and data ->> 'user_ref' = $2`,
    [workspaceId, userRef],
  );
  return rowCount ?? 0;
}

/**
 * Deletes up to `limit` events older than the retention, with their deliveries, unless one of
 * those is still pending (an endpoint's retries last about a day; a re-send can make one pending again).
 */
export async function pruneEvents(db: Queryable, retentionDays: number, limit = 1000): Promise<number> {
  const { rowCount } = await db.query(
    `delete from webhook_events
      where id in (select e.id from webhook_events e
                    where e.created_at < now() - make_interval(days => $1)
                      and not exists (select 1 from webhook_deliveries d where d.event_id = e.id and d.status = 'pending')
                    order by e.created_at
                    limit $2)`,
    [retentionDays, limit],
  );
  return rowCount ?? 0;
}

export interface DeliveryPage {
  after?: TimePosition;
  limit: number;
  /** Only deliveries with this status, or of this event type. */
  status?: string;
  eventType?: string;
}

export async function listDeliveries(db: Queryable, workspaceId: string, endpointId: string, page: DeliveryPage): Promise<DeliveryRow[]> {
  const { rows } = await db.query<DeliveryRow>(
    `select ${DELIVERY_COLUMNS}
       from webhook_deliveries d
       join webhook_events v on v.id = d.event_id
      where d.workspace_id = $1 and d.endpoint_id = $2
        and ($3::timestamptz is null or (d.created_at, d.id) < ($3::timestamptz, $4::uuid))
        and ($6::text is null or d.status = $6)
        and ($7::text is null or v.type = $7)
      order by d.created_at desc, d.id desc
      limit $5`,
    [workspaceId, endpointId, page.after?.at ?? null, page.after?.id ?? null, page.limit, page.status ?? null, page.eventType ?? null],
  );
  return rows;
}

export async function findDelivery(db: Queryable, workspaceId: string, endpointId: string, id: string): Promise<DeliveryRow | undefined> {
  const { rows } = await db.query<DeliveryRow>(
    `select ${DELIVERY_COLUMNS}
       from webhook_deliveries d
       join webhook_events v on v.id = d.event_id
      where d.workspace_id = $1 and d.endpoint_id = $2 and d.id = $3`,
    [workspaceId, endpointId, id],
  );
  return rows[0];
}

/** Queues a delivery again; 'disabled' (and nothing queued) while its endpoint is disabled. */
export async function requeueDelivery(
  db: Queryable,
  workspaceId: string,
  endpointId: string,
  id: string,
): Promise<'queued' | 'disabled' | 'missing'> {
  const { rows } = await db.query<{ enabled: boolean }>(
    `with target as (
       select d.id, e.enabled
         from webhook_deliveries d
         join webhook_endpoints e on e.id = d.endpoint_id and e.workspace_id = d.workspace_id
        where d.workspace_id = $1 and d.endpoint_id = $2 and d.id = $3
     ), delivery as (
       update webhook_deliveries set status = 'pending', next_attempt_at = now()
        where id = (select id from target where enabled)
        returning id
     )
     select t.enabled, (select webhook_queue_delivery(id) from delivery) as queued
       from target t`,
    [workspaceId, endpointId, id],
  );
  if (rows.length === 0) return 'missing';
  return rows[0]!.enabled ? 'queued' : 'disabled';
}

// ---- the delivery task's side ----

export interface DeliveryToSend {
  id: string;
  status: DeliveryRow['status'];
  attempts: number;
  organization_id: string;
  workspace_id: string;
  endpoint_id: string;
  url: string;
  enabled: boolean;
  /** The secrets that sign now: the current one, and those rotations retired while they still may. */
  secrets: string[];
  event_id: string;
  event_type: string;
  event_data: Record<string, unknown>;
  event_created_at: string;
}

export async function findDeliveryToSend(db: Queryable, id: string): Promise<DeliveryToSend | undefined> {
  const { rows } = await db.query<DeliveryToSend>(
    `select d.id, d.status, d.attempts, d.organization_id, d.workspace_id, d.endpoint_id,
            e.url, e.enabled,
            array[e.secret] || array(select r ->> 'secret' from jsonb_array_elements(e.retired_secrets) r
                                      where (r ->> 'until')::timestamptz > now()) as secrets,
            v.id as event_id, v.type as event_type, v.data as event_data,
            to_char(v.created_at at time zone 'utc', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') as event_created_at
       from webhook_deliveries d
       join webhook_endpoints e on e.id = d.endpoint_id and e.workspace_id = d.workspace_id
       join webhook_events v on v.id = d.event_id
      where d.id = $1`,
    [id],
  );
  return rows[0];
}

export interface AttemptRecord {
  statusCode: number | null;
  error: string | null;
  response: string | null;
}

// Both record an attempt only on a delivery still pending: of two attempts that ran at once (a
// re-send while one was under way), the second to finish cannot undo what the first recorded.

export async function markDelivered(db: Queryable, id: string, attempt: AttemptRecord): Promise<boolean> {
  const { rowCount } = await db.query(
    `update webhook_deliveries
        set status = 'delivered', attempts = attempts + 1, last_status_code = $2, last_error = null,
            last_response = $3, next_attempt_at = null, delivered_at = now()
      where id = $1 and status = 'pending'`,
    [id, attempt.statusCode, attempt.response],
  );
  return (rowCount ?? 0) > 0;
}

/** A failed attempt: pending again at `nextAttemptAt`, or failed for good when that is null. */
/** An attempt that failed, or, `sent` false, a delivery given up without sending (it is not counted as an attempt). */
export async function markAttemptFailed(db: Queryable, id: string, attempt: AttemptRecord, nextAttemptAt: Date | null, sent = true): Promise<boolean> {
  const { rowCount } = await db.query(
    `update webhook_deliveries
        set status = case when $5::timestamptz is null then 'failed' else 'pending' end,
            attempts = attempts + $6::int, last_status_code = $2, last_error = $3, last_response = $4, next_attempt_at = $5
      where id = $1 and status = 'pending'`,
    [id, attempt.statusCode, attempt.error, attempt.response, nextAttemptAt, sent ? 1 : 0],
  );
  return (rowCount ?? 0) > 0;
}

/**
 * The delivery's next job. Every job of a delivery has the same key: a retry asked for over the
 * API replaces a pending one rather than doubling it.
 */
export async function scheduleDelivery(db: Queryable, id: string, runAt: Date): Promise<void> {
  await db.query(
    'select webhook_queue_delivery($1::uuid, $2)',
    [id, runAt],
  );
}

/**
 * Takes one of the workspace's delivery slots for this delivery until `heldUntil`, when fewer than
 * `slots` are held; false when all are. Under a lock of the workspace's, so that two attempts
 * starting at once cannot both take the last one.
 */
export async function takeDeliverySlot(db: Pool, workspaceId: string, deliveryId: string, heldUntil: Date, slots: number): Promise<boolean> {
  return withTransaction(db, async (tx) => {
    await tx.query("select pg_advisory_xact_lock(hashtextextended('webhook_delivery_slots:' || $1::text, 0))", [workspaceId]);
    const { rows } = await tx.query(
      `with expired as (
         delete from webhook_delivery_slots where workspace_id = $1 and held_until < now() returning delivery_id
       )
       insert into webhook_delivery_slots (workspace_id, delivery_id, held_until)
       select $1, $2, $3
        where (select count(*) from webhook_delivery_slots s
                where s.workspace_id = $1 and s.delivery_id <> $2
                  and s.delivery_id not in (select delivery_id from expired)) < $4
       on conflict (workspace_id, delivery_id) do update set held_until = excluded.held_until
       returning 1`,
      [workspaceId, deliveryId, heldUntil, slots],
    );
    return rows.length > 0;
  });
}

export async function releaseDeliverySlot(db: Queryable, workspaceId: string, deliveryId: string): Promise<void> {
  await db.query('delete from webhook_delivery_slots where workspace_id = $1 and delivery_id = $2', [workspaceId, deliveryId]);
}

export async function endpointSucceeded(db: Queryable, endpointId: string): Promise<void> {
  await db.query('update webhook_endpoints set failing_since = null where id = $1 and failing_since is not null', [endpointId]);
}

/**
 * Notes a failure; when the endpoint has failed without a success since before `disableBefore`,
 * disables it and returns it (once: a disabled endpoint is not returned again).
 */
export async function endpointFailed(
  db: Queryable,
  endpointId: string,
  disableBefore: Date,
  reason: string,
): Promise<{ failing_since: Date } | undefined> {
  const { rows } = await db.query<{ failing_since: Date; disabled: boolean }>(
    `with before as (
       select id, enabled, coalesce(failing_since, now()) as failing_since
         from webhook_endpoints where id = $1 for update
     ), decided as (
       select id, failing_since, enabled and failing_since <= $2 as disable from before
     )
     update webhook_endpoints e
        set failing_since = d.failing_since,
            enabled = e.enabled and not d.disable,
            disabled_reason = case when d.disable then $3 else e.disabled_reason end,
            updated_at = case when d.disable then now() else e.updated_at end
       from decided d
      where e.id = d.id
      returning e.failing_since, d.disable as disabled`,
    [endpointId, disableBefore, reason],
  );
  const row = rows[0];
  return row?.disabled ? { failing_since: row.failing_since } : undefined;
}
