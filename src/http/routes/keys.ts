import type { Pool } from '../../db/pool.js';
import type { KeyCreateRequest, KeyUpdateRequest } from '../../generated/openapi.js';
import { createKeyFor, getKeyFor, listKeysFor, revokeKeyFor, updateKeyFor, type KeyCache } from '../../tenancy/keyManagement.js';
import type { KeyPosition } from '../../tenancy/store.js';
import { decodeCursor, encodeCursor } from '../cursor.js';
import { requireOrganizationKey, requireScope } from '../middleware/auth.js';
import { jsonBody } from '../middleware/body.js';
import { presentCreatedKey, presentKey } from '../presenters/key.js';
import { principalOf, type AppRouter } from '../state.js';
import type { Validator } from '../validation.js';

const isPosition = (value: unknown): value is KeyPosition =>
  typeof value === 'object' &&
  value !== null &&
  typeof (value as KeyPosition).us === 'string' &&
  /^\d{1,18}$/.test((value as KeyPosition).us) &&
  typeof (value as KeyPosition).id === 'string' &&
  /^[0-9a-f-]{36}$/.test((value as KeyPosition).id);

export function keyRoutes(
  router: AppRouter,
  deps: { pool: Pool; keys: KeyCache; validator: Validator; bodyLimitBytes: number },
): void {
  // Keys act for the whole organization's spend and data, so only its organization keys manage them.
  const allowed = [requireScope('keys.write'), requireOrganizationKey('managing API keys')];

  // Not through createOnce: a replayable answer would be stored, and this one holds the secret.
  router.post('/keys', ...allowed, jsonBody(deps.bodyLimitBytes), deps.validator.body('KeyCreateRequest'), async (ctx) => {
    const { secret, key } = await createKeyFor(deps, principalOf(ctx), ctx.state.body as KeyCreateRequest);
    ctx.status = 201;
    ctx.body = { data: presentCreatedKey(key, secret) };
  });

  router.get('/keys', ...allowed, deps.validator.query('listKeysQuery'), async (ctx) => {
    const query = ctx.state.query as { cursor?: string; limit: number };
    const after = decodeCursor(query.cursor, isPosition);
    const rows = await listKeysFor(deps.pool, principalOf(ctx), { ...(after ? { after } : {}), limit: query.limit + 1 });
    const page = rows.slice(0, query.limit);
    const last = page[page.length - 1];
    ctx.body = {
      data: page.map(presentKey),
      next_cursor: rows.length > query.limit && last ? encodeCursor({ us: last.position_us, id: last.id }) : null,
    };
  });

  router.get('/keys/:id', ...allowed, async (ctx) => {
    ctx.body = { data: presentKey(await getKeyFor(deps.pool, principalOf(ctx), ctx.params.id!)) };
  });

  router.patch('/keys/:id', ...allowed, jsonBody(deps.bodyLimitBytes), deps.validator.body('KeyUpdateRequest'), async (ctx) => {
    const key = await updateKeyFor(deps, principalOf(ctx), ctx.params.id!, ctx.state.body as KeyUpdateRequest);
    ctx.body = { data: presentKey(key) };
  });

  router.delete('/keys/:id', ...allowed, async (ctx) => {
    ctx.body = { data: presentKey(await revokeKeyFor(deps, principalOf(ctx), ctx.params.id!)) };
  });
}
