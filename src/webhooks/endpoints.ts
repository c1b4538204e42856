import { createHash } from 'node:crypto';
import { actedBy, recordAudit } from '../audit/entries.js';
import type { Pool, Queryable } from '../db/pool.js';
import { withTransaction } from '../db/transaction.js';
import { conflict, notFound, validationFailed } from '../errors.js';
import type { Principal } from '../tenancy/store.js';
import { TEST_EVENT_TYPE } from './events.js';
import { newWebhookSecret } from './signing.js';
import {
  countEndpointsLocked,
  type DeliveryPage,
  deleteEndpoint,
  emitToEndpoint,
  findDelivery,
  findEndpoint,
  insertEndpoint,
  listDeliveries,
  listEndpoints,
  requeueDelivery,
  rotateSecret,
  saveEndpoint,
  type DeliveryRow,
  type EndpointRow,
} from './store.js';
import { resolveWebhookTarget, WebhookUrlRefused } from './urlSafety.js';

// Endpoints managed over the API (/v1/webhooks), within the acting key's workspace: another
// workspace's endpoint is a 404 like one that does not exist. Every change is audited in its
// transaction; never with the secret.

/** Every event fans out to the workspace's endpoints in the transaction of its change: kept small. */
export const MAX_ENDPOINTS_PER_WORKSPACE = 20;
/** After a rotation, the old secret signs beside the new one this long, while receivers switch. */
export const OLD_SECRET_SIGNS_MS = 24 * 60 * 60 * 1000;

export interface WebhookSettings {
  /** WEBHOOKS_ALLOW_HTTP (Config). */
  allowHttp: boolean;
}

export interface EndpointInput {
  url: string;
  events: string[];
  description?: string | null;
  enabled?: boolean;
}

async function checkedUrl(url: string, settings: WebhookSettings): Promise<string> {
  try {
    return (await resolveWebhookTarget(url, settings)).url.href;
  } catch (err) {
    if (err instanceof WebhookUrlRefused) throw validationFailed({ url: [err.message] });
    throw err;
  }
}

const distinct = (events: string[]) => [...new Set(events)];

/**
 * A webhook URL as the audit log shows it. Its path and query often hold the receiver's own secret
 * (Slack's `/services/T…/B…/<token>`, `?token=…`), and the audit log is kept long and read by every
 * admin: it shows where the URL points, and a fingerprint that tells two URLs apart.
 */
function urlForAudit(href: string): string {
  const url = new URL(href);
  if (url.pathname === '/' && url.search === '' && url.username === '' && url.password === '') return url.href;
  return `${url.origin}/… (sha256 ${createHash('sha256').update(href).digest('hex').slice(0, 12)})`;
}

export async function createEndpointFor(
  pool: Pool,
  settings: WebhookSettings,
  principal: Principal,
  input: EndpointInput,
): Promise<{ endpoint: EndpointRow; secret: string }> {
  const url = await checkedUrl(input.url, settings);
  return withTransaction(pool, async (db) => {
    if ((await countEndpointsLocked(db, principal.workspaceId)) >= MAX_ENDPOINTS_PER_WORKSPACE) {
      throw conflict(`a workspace has at most ${MAX_ENDPOINTS_PER_WORKSPACE} webhook endpoints; delete one first`);
    }
    const secret = newWebhookSecret();
    const settingsOf = { url, events: distinct(input.events), description: input.description ?? null, enabled: input.enabled ?? true };
    const endpoint = await insertEndpoint(db, principal, { ...settingsOf, secret });
    await recordAudit(db, { ...actedBy(principal), action: 'webhook.created', target: endpoint.id, details: { ...settingsOf, url: urlForAudit(url) } });
    return { endpoint, secret };
  });
}

export function listEndpointsFor(db: Queryable, principal: Principal): Promise<EndpointRow[]> {
  return listEndpoints(db, principal.workspaceId);
}

export async function getEndpointFor(db: Queryable, principal: Principal, id: string): Promise<EndpointRow> {
  const endpoint = await findEndpoint(db, principal.workspaceId, id);
  if (!endpoint) throw notFound(`no webhook endpoint ${id}`);
  return endpoint;
}

export async function updateEndpointFor(
  pool: Pool,
  settings: WebhookSettings,
  principal: Principal,
  id: string,
  update: Partial<EndpointInput>,
): Promise<EndpointRow> {
  const url = update.url !== undefined ? await checkedUrl(update.url, settings) : undefined;
  return withTransaction(pool, async (db) => {
    const before = await findEndpoint(db, principal.workspaceId, id, { lock: true });
    if (!before) throw notFound(`no webhook endpoint ${id}`);
    const after = {
      url: url ?? before.url,
      events: update.events !== undefined ? distinct(update.events) : before.events,
      description: update.description !== undefined ? update.description : before.description,
      enabled: update.enabled ?? before.enabled,
    };
    const changes: Record<string, { from: unknown; to: unknown }> = {};
    for (const field of ['url', 'description', 'enabled'] as const) {
      if (after[field] !== before[field]) changes[field] = { from: before[field], to: after[field] };
    }
    if (after.events.join('\n') !== before.events.join('\n')) changes.events = { from: before.events, to: after.events };
    if (changes.url) changes.url = { from: urlForAudit(before.url), to: urlForAudit(after.url) };
    if (Object.keys(changes).length === 0) return before;
    const endpoint = await saveEndpoint(db, principal.workspaceId, id, after);
    await recordAudit(db, { ...actedBy(principal), action: 'webhook.updated', target: id, details: { changes } });
    return endpoint;
  });
}

export async function deleteEndpointFor(pool: Pool, principal: Principal, id: string): Promise<EndpointRow> {
  return withTransaction(pool, async (db) => {
    const endpoint = await deleteEndpoint(db, principal.workspaceId, id);
    if (!endpoint) throw notFound(`no webhook endpoint ${id}`);
    await recordAudit(db, { ...actedBy(principal), action: 'webhook.deleted', target: id, details: { url: urlForAudit(endpoint.url) } });
    return endpoint;
  });
}

export async function rotateSecretFor(pool: Pool, principal: Principal, id: string): Promise<{ endpoint: EndpointRow; secret: string }> {
  return withTransaction(pool, async (db) => {
    const secret = newWebhookSecret();
    const keepOldUntil = new Date(Date.now() + OLD_SECRET_SIGNS_MS);
    const endpoint = await rotateSecret(db, principal.workspaceId, id, secret, keepOldUntil);
    if (!endpoint) throw notFound(`no webhook endpoint ${id}`);
    await recordAudit(db, {
      ...actedBy(principal),
      action: 'webhook.secret_rotated',
      target: id,
      details: { old_secret_signs_until: keepOldUntil.toISOString() },
    });
    return { endpoint, secret };
  });
}

/** Queues a `webhook.test` event to this endpoint alone; answers its delivery. */
export async function sendTestEventFor(pool: Pool, principal: Principal, id: string): Promise<DeliveryRow> {
  const deliveryId = await withTransaction(pool, async (db) => {
    const endpoint = await findEndpoint(db, principal.workspaceId, id);
    if (!endpoint) throw notFound(`no webhook endpoint ${id}`);
    return emitToEndpoint(db, endpoint, { type: TEST_EVENT_TYPE, data: { endpoint_id: endpoint.id } });
  });
  return (await findDelivery(pool, principal.workspaceId, id, deliveryId))!;
}

export async function listDeliveriesFor(
  db: Queryable,
  principal: Principal,
  endpointId: string,
  page: DeliveryPage,
): Promise<DeliveryRow[]> {
  await getEndpointFor(db, principal, endpointId);
  return listDeliveries(db, principal.workspaceId, endpointId, page);
}

/** Sends a delivery again now, whatever its status; one attempt more once its schedule is spent. */
export async function retryDeliveryFor(pool: Pool, principal: Principal, endpointId: string, deliveryId: string): Promise<DeliveryRow> {
  const requeued = await requeueDelivery(pool, principal.workspaceId, endpointId, deliveryId);
  if (requeued === 'missing') throw notFound(`no delivery ${deliveryId} of webhook endpoint ${endpointId}`);
  if (requeued === 'disabled') throw conflict(`webhook endpoint ${endpointId} is disabled; enable it before retrying a delivery`);
  return (await findDelivery(pool, principal.workspaceId, endpointId, deliveryId))!;
}
