import { Agent, request } from 'undici';
import { recordAudit } from '../audit/entries.js';
import type { Pool } from '../db/pool.js';
import { storableText } from '../db/storable.js';
import { withTransaction } from '../db/transaction.js';
import type { Logger } from '../logger.js';
import { countWebhookAttempt } from '../metrics.js';
import { signedHeaders } from './signing.js';
import {
  endpointFailed,
  endpointSucceeded,
  findDeliveryToSend,
  markAttemptFailed,
  markDelivered,
  releaseDeliverySlot,
  scheduleDelivery,
  takeDeliverySlot,
  type AttemptRecord,
  type DeliveryToSend,
} from './store.js';
import { resolveWebhookTarget, WebhookUrlRefused, type ResolvedTarget } from './urlSafety.js';

// One attempt of one delivery, and what follows from it: delivered, pending again at the next
// time of the schedule, or failed once the schedule is spent. The task schedules its own next
// attempt rather than leaving it to graphile-worker's retries (docs/decisions/0005-webhook-delivery.md).

export interface WebhookDeliveryOptions {
  /** WEBHOOKS_ALLOW_HTTP: http, and hosts on loopback or private networks, may be reached. */
  allowHttp: boolean;
  /** The pause before each retry; once all are spent, the delivery has failed. */
  retryDelaysMs: readonly number[];
  /** Each pause is stretched or shrunk by up to this fraction, at random, so retries spread out. */
  jitter: number;
  /** One attempt, from connecting to the end of the answer. */
  timeoutMs: number;
  /** An endpoint whose deliveries have failed, without one success, for this long is disabled. */
  disableAfterMs: number;
  /** Attempts of one workspace under way at once, over every worker: its receivers that hang hold no more of the pool. */
  slotsPerWorkspace: number;
  /** How long an attempt that found its workspace's slots taken waits before it looks again (± half of it). */
  slotWaitMs: number;
}

const SECOND = 1000;
const MINUTE = 60 * SECOND;
const HOUR = 60 * MINUTE;

/** Nine attempts over about 22 hours (± the jitter). */
export const DEFAULT_WEBHOOK_DELIVERY: WebhookDeliveryOptions = {
  allowHttp: false,
  retryDelaysMs: [5 * SECOND, 30 * SECOND, 2 * MINUTE, 10 * MINUTE, HOUR, 3 * HOUR, 8 * HOUR, 10 * HOUR],
  jitter: 0.2,
  timeoutMs: 10 * SECOND,
  disableAfterMs: 3 * 24 * HOUR,
  slotsPerWorkspace: 2,
  slotWaitMs: 2 * SECOND,
};

/** A slot outlives its attempt's timeout by this much, for a worker that died holding it. */
const SLOT_MARGIN_MS = 5 * SECOND;

/** What is kept of a receiver's answer. */
export const MAX_RESPONSE_BYTES = 4096;
const USER_AGENT = 'Polder-Webhooks/1';

interface Attempt extends AttemptRecord {
  delivered: boolean;
  /** No later attempt can do better (the endpoint was disabled meanwhile). */
  final?: boolean;
  /** Nothing was sent (the endpoint is disabled): not an attempt to count. */
  unsent?: boolean;
}

/** The body every attempt of an event sends, byte for byte (the signature covers it). */
export function eventBody(delivery: Pick<DeliveryToSend, 'event_id' | 'event_type' | 'event_created_at' | 'workspace_id' | 'event_data'>): string {
  return JSON.stringify({
    id: delivery.event_id,
    type: delivery.event_type,
    created_at: delivery.event_created_at,
    workspace_id: delivery.workspace_id,
    data: delivery.event_data,
  });
}

export async function deliverWebhook(
  services: { db: Pool; log: Logger },
  deliveryId: string,
  options: WebhookDeliveryOptions = DEFAULT_WEBHOOK_DELIVERY,
): Promise<void> {
  const { db, log } = services;
  const delivery = await findDeliveryToSend(db, deliveryId);
  if (!delivery || delivery.status !== 'pending') {
    log.info({ delivery_id: deliveryId, status: delivery?.status ?? 'gone' }, 'webhook delivery has nothing left to send');
    return;
  }
  // A workspace's attempts hold a few slots of the pool at once, whatever its number of endpoints:
  // one waiting for a slot looks again shortly, and is no attempt.
  const heldUntil = new Date(Date.now() + options.timeoutMs + SLOT_MARGIN_MS);
  if (!(await takeDeliverySlot(db, delivery.workspace_id, delivery.id, heldUntil, options.slotsPerWorkspace))) {
    await scheduleDelivery(db, delivery.id, new Date(Date.now() + jittered(options.slotWaitMs, 0.5)));
    log.debug({ delivery_id: delivery.id, workspace_id: delivery.workspace_id }, "webhook delivery waits for one of its workspace's slots");
    return;
  }
  let attempt: Attempt;
  try {
    attempt = await attemptDelivery(delivery, options);
  } finally {
    await releaseDeliverySlot(db, delivery.workspace_id, delivery.id);
  }
  const logged = { delivery_id: delivery.id, endpoint_id: delivery.endpoint_id, event_type: delivery.event_type, attempt: delivery.attempts + 1 };

  const scheduled = await withTransaction(db, async (tx) => {
    if (attempt.delivered) {
      if (await markDelivered(tx, delivery.id, attempt)) await endpointSucceeded(tx, delivery.endpoint_id);
      return false;
    }
    // A disabled endpoint's test event is one check, asked for now: it is not tried again for a day.
    const delay = attempt.final || !delivery.enabled ? undefined : options.retryDelaysMs[delivery.attempts];
    const nextAttemptAt = delay === undefined ? null : new Date(Date.now() + jittered(delay, options.jitter));
    if (!(await markAttemptFailed(tx, delivery.id, attempt, nextAttemptAt, !attempt.unsent))) return false;
    if (nextAttemptAt) await scheduleDelivery(tx, delivery.id, nextAttemptAt);
    if (!delivery.enabled) return false;
    const disableBefore = new Date(Date.now() - options.disableAfterMs);
    const reason = `every delivery failed for ${Math.round(options.disableAfterMs / HOUR)} hours`;
    const disabled = await endpointFailed(tx, delivery.endpoint_id, disableBefore, reason);
    if (disabled) {
      await recordAudit(tx, {
        organization_id: delivery.organization_id,
        workspace_id: delivery.workspace_id,
        actor: { key_id: null, kind: 'service' },
        action: 'webhook.disabled',
        target: delivery.endpoint_id,
        details: { reason, failing_since: disabled.failing_since.toISOString(), last_error: attempt.error },
      });
      log.warn({ endpoint_id: delivery.endpoint_id }, 'webhook endpoint disabled after failing for too long');
    }
    return nextAttemptAt !== null;
  });
  countWebhookAttempt(attempt.delivered ? 'delivered' : scheduled ? 'retry' : 'failed');
  if (attempt.delivered) log.info({ ...logged, status_code: attempt.statusCode }, 'webhook delivered');
  else log.info({ ...logged, status_code: attempt.statusCode, error: attempt.error, retry: scheduled }, 'webhook attempt failed');
}

function jittered(delayMs: number, jitter: number): number {
  return Math.max(0, Math.round(delayMs * (1 + jitter * (2 * Math.random() - 1))));
}

async function attemptDelivery(delivery: DeliveryToSend, options: WebhookDeliveryOptions): Promise<Attempt> {
  // A test event is sent on request even to a disabled endpoint: that is how one checks it again.
  if (!delivery.enabled && delivery.event_type !== 'webhook.test') {
    return { delivered: false, final: true, unsent: true, statusCode: null, error: 'the endpoint is disabled', response: null };
  }
  let target: ResolvedTarget;
  try {
    target = await resolveWebhookTarget(delivery.url, { allowHttp: options.allowHttp });
  } catch (err) {
    if (!(err instanceof WebhookUrlRefused)) throw err;
    return { delivered: false, statusCode: null, error: `not sent: the URL ${err.message}`, response: null };
  }
  const body = eventBody(delivery);
  const headers = {
    'content-type': 'application/json',
    'user-agent': USER_AGENT,
    ...signedHeaders(delivery.secrets, { id: delivery.event_id, timestamp: new Date(), body }),
  };
  return postWebhook(target, headers, body, options.timeoutMs);
}

/**
 * POSTs to the address that was checked, whatever the host's name resolves to by now: the
 * connection's lookup answers with that address (TLS still checks the certificate against the
 * host's name). Redirects are not followed (a 3xx is a failed attempt).
 */
export async function postWebhook(target: ResolvedTarget, headers: Record<string, string>, body: string, timeoutMs: number): Promise<Attempt> {
  const agent = new Agent({
    connections: 1,
    connect: {
      timeout: timeoutMs,
      lookup: ((_hostname: string, lookupOptions: { all?: boolean }, callback: (...args: unknown[]) => void) => {
        if (lookupOptions.all) callback(null, [{ address: target.address, family: target.family }]);
        else callback(null, target.address, target.family);
      }) as never,
    },
  });
  const timeout = new AbortController();
  const timer = setTimeout(() => timeout.abort(), timeoutMs);
  try {
    const response = await request(target.url, { method: 'POST', headers, body, dispatcher: agent, signal: timeout.signal });
    const answer = await readAtMost(response.body, MAX_RESPONSE_BYTES);
    const statusCode = response.statusCode;
    const delivered = statusCode >= 200 && statusCode < 300;
    const redirect = statusCode >= 300 && statusCode < 400 ? ' (redirects are not followed)' : '';
    return { delivered, statusCode, error: delivered ? null : `the receiver answered ${statusCode}${redirect}`, response: answer };
  } catch (err) {
    const error = timeout.signal.aborted
      ? `timed out after ${timeoutMs / 1000} s`
      : `could not reach the receiver: ${shortError(err)}`;
    return { delivered: false, statusCode: null, error, response: null };
  } finally {
    clearTimeout(timer);
    await agent.destroy().catch(() => undefined);
  }
}

/** Reads up to `limit` bytes of the answer and drops the rest, so a huge answer costs nothing. */
async function readAtMost(stream: AsyncIterable<Buffer> & { destroy(): unknown }, limit: number): Promise<string> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of stream) {
    chunks.push(chunk);
    size += chunk.length;
    if (size >= limit) break;
  }
  stream.destroy();
  return storableText(Buffer.concat(chunks).subarray(0, limit).toString('utf8'));
}

function shortError(err: unknown): string {
  const failure = err as { code?: string; message?: string };
  const message = (failure.message ?? String(err)).split('\n')[0]!.slice(0, 200);
  return failure.code ? `${failure.code}: ${message}` : message;
}
