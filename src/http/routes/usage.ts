import type { Pool } from '../../db/pool.js';
import { sumUsage, type UsageGrouping } from '../../usage/store.js';
import { requireScope } from '../middleware/auth.js';
import { reportPeriod } from '../period.js';
import { presentUsageReport } from '../presenters/usage.js';
import { principalOf, type AppRouter } from '../state.js';
import type { Validator } from '../validation.js';

export function usageRoutes(router: AppRouter, { pool, validator }: { pool: Pool; validator: Validator }): void {
  router.get('/usage', requireScope('usage.read'), validator.query('getUsageQuery'), async (ctx) => {
    const query = ctx.state.query as { from?: string; to?: string; group_by: UsageGrouping };
    const period = reportPeriod(query);
    const rows = await sumUsage(pool, principalOf(ctx).workspaceId, { ...period, groupBy: query.group_by });
    ctx.body = presentUsageReport(rows, period, query.group_by);
  });
}
