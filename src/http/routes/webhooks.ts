import type { Pool } from '../../db/pool.js';
import type { WebhookCreateRequest, WebhookUpdateRequest } from '../../generated/openapi.js';
import {
  createEndpointFor,
  deleteEndpointFor,
  getEndpointFor,
  listDeliveriesFor,
  listEndpointsFor,
  retryDeliveryFor,
  rotateSecretFor,
  sendTestEventFor,
  updateEndpointFor,
  type WebhookSettings,
} from '../../webhooks/endpoints.js';
import { decodeCursor, encodeCursor } from '../cursor.js';
import { notFound } from '../../errors.js';
import { requireScope } from '../middleware/auth.js';
import { jsonBody } from '../middleware/body.js';
import { isTimePosition } from '../period.js';
import { presentWebhookDelivery, presentWebhookEndpoint, presentWebhookEndpointWithSecret } from '../presenters/webhook.js';
import { principalOf, type AppContext, type AppRouter } from '../state.js';
import type { Validator } from '../validation.js';
import type { Next } from 'koa';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

/** An id that is no UUID names nothing: a 404 as for any unknown id, not a failed cast. */
async function uuidParams(ctx: AppContext, next: Next): Promise<void> {
  const params = (ctx as AppContext & { params: Record<string, string> }).params;
  for (const [name, value] of Object.entries(params)) {
    if (!UUID.test(value)) throw notFound(name === 'delivery_id' ? `no delivery ${value}` : `no webhook endpoint ${value}`);
  }
  await next();
}

export function webhookRoutes(
  router: AppRouter,
  deps: { pool: Pool; settings: WebhookSettings; validator: Validator; bodyLimitBytes: number },
): void {
  const { pool, settings, validator } = deps;
  const read = requireScope('webhooks.read');
  const write = requireScope('webhooks.write');

  // Not through createOnce: a replayable answer would be stored, and this one holds the secret.
  router.post('/webhooks', write, jsonBody(deps.bodyLimitBytes), validator.body('WebhookCreateRequest'), async (ctx) => {
    const { endpoint, secret } = await createEndpointFor(pool, settings, principalOf(ctx), ctx.state.body as WebhookCreateRequest);
    ctx.status = 201;
    ctx.body = { data: presentWebhookEndpointWithSecret(endpoint, secret) };
  });

  router.get('/webhooks', read, async (ctx) => {
    ctx.body = { data: (await listEndpointsFor(pool, principalOf(ctx))).map(presentWebhookEndpoint) };
  });

  router.get('/webhooks/:id', read, uuidParams, async (ctx) => {
    ctx.body = { data: presentWebhookEndpoint(await getEndpointFor(pool, principalOf(ctx), ctx.params.id!)) };
  });

  router.patch('/webhooks/:id', write, uuidParams, jsonBody(deps.bodyLimitBytes), validator.body('WebhookUpdateRequest'), async (ctx) => {
    const endpoint = await updateEndpointFor(pool, settings, principalOf(ctx), ctx.params.id!, ctx.state.body as WebhookUpdateRequest);
    ctx.body = { data: presentWebhookEndpoint(endpoint) };
  });

  router.delete('/webhooks/:id', write, uuidParams, async (ctx) => {
    ctx.body = { data: presentWebhookEndpoint(await deleteEndpointFor(pool, principalOf(ctx), ctx.params.id!)) };
  });

  router.post('/webhooks/:id/rotate-secret', write, uuidParams, async (ctx) => {
    const { endpoint, secret } = await rotateSecretFor(pool, principalOf(ctx), ctx.params.id!);
    ctx.body = { data: presentWebhookEndpointWithSecret(endpoint, secret) };
  });

  router.post('/webhooks/:id/test', write, uuidParams, async (ctx) => {
    ctx.status = 202;
    ctx.body = { data: presentWebhookDelivery(await sendTestEventFor(pool, principalOf(ctx), ctx.params.id!)) };
  });

  router.get('/webhooks/:id/deliveries', read, uuidParams, validator.query('listWebhookDeliveriesQuery'), async (ctx) => {
    const query = ctx.state.query as { cursor?: string; limit: number };
    const after = decodeCursor(query.cursor, (value) => isTimePosition(value, (id) => UUID.test(id)));
    const rows = await listDeliveriesFor(pool, principalOf(ctx), ctx.params.id!, { ...(after ? { after } : {}), limit: query.limit + 1 });
    const page = rows.slice(0, query.limit);
    const last = page[page.length - 1];
    ctx.body = {
      data: page.map(presentWebhookDelivery),
      next_cursor: rows.length > query.limit && last ? encodeCursor({ at: last.position_at, id: last.id }) : null,
    };
  });

  router.post('/webhooks/:id/deliveries/:delivery_id/retry', write, uuidParams, async (ctx) => {
    const delivery = await retryDeliveryFor(pool, principalOf(ctx), ctx.params.id!, ctx.params.delivery_id!);
    ctx.status = 202;
    ctx.body = { data: presentWebhookDelivery(delivery) };
  });
}
