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
import { keysetPage } from '../cursor.js';
import { notFound } from '../../errors.js';
import type { Operations } from '../operations.js';
import { isTimePosition } from '../period.js';
import { presentWebhookDelivery, presentWebhookEndpoint, presentWebhookEndpointWithSecret } from '../presenters/webhook.js';
import { principalOf, type AppContext } from '../state.js';
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

export function webhookRoutes(api: Operations, { pool, settings }: { pool: Pool; settings: WebhookSettings }): void {
  const knownIds = { guard: [uuidParams] };

  // Not through createOnce: a replayable answer would be stored, and this one holds the secret.
  api.add('createWebhook', async (ctx) => {
    const { endpoint, secret } = await createEndpointFor(pool, settings, principalOf(ctx), ctx.state.body as WebhookCreateRequest);
    ctx.status = 201;
    ctx.body = { data: presentWebhookEndpointWithSecret(endpoint, secret) };
  });

  api.add('listWebhooks', async (ctx) => {
    ctx.body = { data: (await listEndpointsFor(pool, principalOf(ctx))).map(presentWebhookEndpoint) };
  });

  api.add('getWebhook', knownIds, async (ctx) => {
    ctx.body = { data: presentWebhookEndpoint(await getEndpointFor(pool, principalOf(ctx), ctx.params.id!)) };
  });

  api.add('updateWebhook', knownIds, async (ctx) => {
    const endpoint = await updateEndpointFor(pool, settings, principalOf(ctx), ctx.params.id!, ctx.state.body as WebhookUpdateRequest);
    ctx.body = { data: presentWebhookEndpoint(endpoint) };
  });

  api.add('deleteWebhook', knownIds, async (ctx) => {
    ctx.body = { data: presentWebhookEndpoint(await deleteEndpointFor(pool, principalOf(ctx), ctx.params.id!)) };
  });

  api.add('rotateWebhookSecret', knownIds, async (ctx) => {
    const { endpoint, secret } = await rotateSecretFor(pool, principalOf(ctx), ctx.params.id!);
    ctx.body = { data: presentWebhookEndpointWithSecret(endpoint, secret) };
  });

  api.add('testWebhook', knownIds, async (ctx) => {
    ctx.body = { data: presentWebhookDelivery(await sendTestEventFor(pool, principalOf(ctx), ctx.params.id!)) };
  });

  api.add('listWebhookDeliveries', knownIds, async (ctx) => {
    const query = ctx.state.query as { cursor?: string; limit: number; status?: string; event_type?: string };
    const { rows, next_cursor } = await keysetPage(
      query,
      (value) => isTimePosition(value, (id) => UUID.test(id)),
      (page) => listDeliveriesFor(pool, principalOf(ctx), ctx.params.id!, { ...page, status: query.status, eventType: query.event_type }),
      (row) => ({ at: row.position_at, id: row.id }),
    );
    ctx.body = { data: rows.map(presentWebhookDelivery), next_cursor };
  });

  api.add('retryWebhookDelivery', knownIds, async (ctx) => {
    const delivery = await retryDeliveryFor(pool, principalOf(ctx), ctx.params.id!, ctx.params.delivery_id!);
    ctx.body = { data: presentWebhookDelivery(delivery) };
  });
}
