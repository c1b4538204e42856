import type { Pool } from '../../db/pool.js';
import type { LimitGate } from '../../limits/gate.js';
import { budgetsOf } from '../../limits/settings.js';
import { sumUsage, type UsageGrouping } from '../../usage/store.js';
import { requireScope } from '../middleware/auth.js';
import { reportPeriod } from '../period.js';
import { presentUsageReport } from '../presenters/usage.js';
import { principalOf, type AppRouter } from '../state.js';
import type { Validator } from '../validation.js';

export function usageRoutes(router: AppRouter, { pool, gate, validator }: { pool: Pool; gate: LimitGate; validator: Validator }): void {
  router.get('/usage', requireScope('usage.read'), validator.query('getUsageQuery'), async (ctx) => {
    const query = ctx.state.query as { from?: string; to?: string; group_by: UsageGrouping };
    const period = reportPeriod(query);
    const principal = principalOf(ctx);
    const [rows, budgets] = await Promise.all([
      sumUsage(pool, principal.workspaceId, { ...period, groupBy: query.group_by }),
      budgetsOf(pool, gate, principal),
    ]);
    ctx.body = { ...presentUsageReport(rows, period, query.group_by), budgets };
  });
}
