import type { Pool } from '../../db/pool.js';
import type { KeyCreateRequest, KeyUpdateRequest } from '../../generated/openapi.js';
import { createKeyFor, getKeyFor, listKeysFor, revokeKeyFor, updateKeyFor, type KeyCache } from '../../tenancy/keyManagement.js';
import { isMicrosecondPosition, keysetPage } from '../cursor.js';
import { requireOrganizationKey } from '../middleware/auth.js';
import type { Operations } from '../operations.js';
import { presentCreatedKey, presentKey } from '../presenters/key.js';
import { principalOf } from '../state.js';

export function keyRoutes(api: Operations, deps: { pool: Pool; keys: KeyCache }): void {
  // Keys act for the whole organization's spend and data, so only its organization keys manage them.
  const organizationOnly = { guard: [requireOrganizationKey('managing API keys')] };

  // Not through createOnce: a replayable answer would be stored, and this one holds the secret.
  api.add('createKey', organizationOnly, async (ctx) => {
    const { secret, key } = await createKeyFor(deps, principalOf(ctx), ctx.state.body as KeyCreateRequest);
    ctx.status = 201;
    ctx.body = { data: presentCreatedKey(key, secret) };
  });

  api.add('listKeys', organizationOnly, async (ctx) => {
    const { rows, next_cursor } = await keysetPage(
      ctx.state.query as { cursor?: string; limit: number },
      isMicrosecondPosition,
      (page) => listKeysFor(deps.pool, principalOf(ctx), page),
      (row) => ({ us: row.position_us, id: row.id }),
    );
    ctx.body = { data: rows.map(presentKey), next_cursor };
  });

  // Any key, about itself: what a client may call with it.
  api.add('getCurrentKey', async (ctx) => {
    const principal = principalOf(ctx);
    ctx.body = { data: presentKey(await getKeyFor(deps.pool, principal, principal.keyId)) };
  });

  api.add('getKey', organizationOnly, async (ctx) => {
    ctx.body = { data: presentKey(await getKeyFor(deps.pool, principalOf(ctx), ctx.params.id!)) };
  });

  api.add('updateKey', organizationOnly, async (ctx) => {
    const key = await updateKeyFor(deps, principalOf(ctx), ctx.params.id!, ctx.state.body as KeyUpdateRequest);
    ctx.body = { data: presentKey(key) };
  });

  api.add('revokeKey', organizationOnly, async (ctx) => {
    ctx.body = { data: presentKey(await revokeKeyFor(deps, principalOf(ctx), ctx.params.id!)) };
  });
}
