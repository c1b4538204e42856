import type { Pool } from '../../db/pool.js';
import type { Catalog } from '../../gateway/catalog.js';
import type { LimitSettingsUpdate, RouterSettingsUpdate } from '../../generated/openapi.js';
import type { LimitGate } from '../../limits/gate.js';
import { getLimitSettings, updateLimitSettings } from '../../limits/settings.js';
import { getRouterSettings, updateRouterSettings, type PrincipalCache } from '../../settings/routerSettings.js';
import type { Operations } from '../operations.js';
import { presentRouterSettings } from '../presenters/routerSettings.js';
import { principalOf } from '../state.js';

// Reading needs settings.write too (the spec has no read scope for settings): the page exists to change them.
export function settingsRoutes(api: Operations, deps: { pool: Pool; catalog: Catalog; keys: PrincipalCache; gate: LimitGate }): void {
  api.add('getRouterSettings', async (ctx) => {
    ctx.body = presentRouterSettings(await getRouterSettings(deps.pool, principalOf(ctx)));
  });

  api.add('updateRouterSettings', async (ctx) => {
    const state = await updateRouterSettings(deps, principalOf(ctx), ctx.state.body as RouterSettingsUpdate);
    ctx.body = presentRouterSettings(state);
  });

  api.add('getLimitSettings', async (ctx) => {
    ctx.body = await getLimitSettings(deps.pool, deps.gate, principalOf(ctx));
  });

  api.add('updateLimitSettings', async (ctx) => {
    ctx.body = await updateLimitSettings(deps, principalOf(ctx), ctx.state.body as LimitSettingsUpdate);
  });
}
