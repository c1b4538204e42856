import type { Pool } from '../../db/pool.js';
import type { Catalog } from '../../gateway/catalog.js';
import type { LimitSettingsUpdate, RouterSettingsUpdate } from '../../generated/openapi.js';
import type { LimitGate } from '../../limits/gate.js';
import { getLimitSettings, updateLimitSettings } from '../../limits/settings.js';
import { getRouterSettings, updateRouterSettings, type PrincipalCache } from '../../settings/routerSettings.js';
import { requireScope } from '../middleware/auth.js';
import { jsonBody } from '../middleware/body.js';
import { presentRouterSettings } from '../presenters/routerSettings.js';
import { principalOf, type AppRouter } from '../state.js';
import type { Validator } from '../validation.js';

export function settingsRoutes(
  router: AppRouter,
  deps: { pool: Pool; catalog: Catalog; keys: PrincipalCache; gate: LimitGate; validator: Validator; bodyLimitBytes: number },
): void {
  // Reading needs settings.write too (the spec has no read scope for settings): the page exists to change them.
  router.get('/settings/router', requireScope('settings.write'), async (ctx) => {
    ctx.body = presentRouterSettings(await getRouterSettings(deps.pool, principalOf(ctx)));
  });

  router.put(
    '/settings/router',
    requireScope('settings.write'),
    jsonBody(deps.bodyLimitBytes),
    deps.validator.body('RouterSettingsUpdate'),
    async (ctx) => {
      const state = await updateRouterSettings(deps, principalOf(ctx), ctx.state.body as RouterSettingsUpdate);
      ctx.body = presentRouterSettings(state);
    },
  );

  router.get('/settings/limits', requireScope('settings.write'), async (ctx) => {
    ctx.body = await getLimitSettings(deps.pool, principalOf(ctx));
  });

  router.put(
    '/settings/limits',
    requireScope('settings.write'),
    jsonBody(deps.bodyLimitBytes),
    deps.validator.body('LimitSettingsUpdate'),
    async (ctx) => {
      ctx.body = await updateLimitSettings(deps, principalOf(ctx), ctx.state.body as LimitSettingsUpdate);
    },
  );
}
