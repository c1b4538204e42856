import type { Pool } from '../../db/pool.js';
import type { LimitGate } from '../../limits/gate.js';
import { budgetsOf } from '../../limits/settings.js';
import { listOrganizationBudgets } from '../../limits/store.js';
import { requireOrganizationKey } from '../middleware/auth.js';
import { sumUsage, type UsageGrouping } from '../../metering/usageReport.js';
import type { Operations } from '../operations.js';
import { reportPeriod } from '../period.js';
import { presentOrganizationBudget, presentUsageReport } from '../presenters/usage.js';
import { principalOf } from '../state.js';

export function usageRoutes(api: Operations, { pool, gate }: { pool: Pool; gate: LimitGate }): void {
  api.add('getUsage', async (ctx) => {
    const query = ctx.state.query as { from?: string; to?: string; group_by: UsageGrouping };
    const period = reportPeriod(query);
    const principal = principalOf(ctx);
    const [rows, budgets] = await Promise.all([
      sumUsage(pool, principal.workspaceId, { ...period, groupBy: query.group_by }),
      budgetsOf(pool, gate, principal),
    ]);
    ctx.body = { ...presentUsageReport(rows, period, query.group_by), budgets };
  });

  api.add('listBudgets', { guard: [requireOrganizationKey('listing every budget of the organization')] }, async (ctx) => {
    ctx.body = { data: (await listOrganizationBudgets(pool, principalOf(ctx).organizationId)).map(presentOrganizationBudget) };
  });
}
