import type { OrganizationBudgetRow } from '../../limits/store.js';
import { windowEnd } from '../../limits/windows.js';
import type { Period } from '../period.js';
import type { UsageGrouping, UsageSumRow } from '../../metering/usageReport.js';

// Sums arrive from SQL as exact decimal strings; each is turned into a JSON number here, once.
function figuresOf(row: UsageSumRow) {
  return {
    requests: row.requests,
    prompt_tokens: Number(row.prompt_tokens),
    completion_tokens: Number(row.completion_tokens),
    cached_tokens: Number(row.cached_tokens),
    cache_write_tokens: Number(row.cache_write_tokens),
    total_tokens: Number(row.total_tokens),
    credits: { base: Number(row.credits_base), services: Number(row.credits_services), total: Number(row.credits_total) },
  };
}

type Figures = ReturnType<typeof figuresOf>;

/** The UsageReport: one row per group (split by kind for day and model), and the total. */
export function presentUsageReport(rows: UsageSumRow[], period: Period, groupBy: UsageGrouping) {
  const data: ({ key: string; kinds?: Record<string, Figures> } & Figures)[] = [];
  const groups = new Map<string, { kinds?: Record<string, Figures> }>();
  let total: Figures | undefined;
  // The store orders each group's own row before its split by kind, and the total last.
  for (const row of rows) {
    if (row.key === null) {
      total = figuresOf(row);
    } else if (row.kind === null) {
      const group = { key: row.key, ...figuresOf(row), ...(groupBy === 'kind' ? {} : { kinds: {} }) };
      groups.set(row.key, group);
      data.push(group);
    } else {
      const kinds = groups.get(row.key)?.kinds;
      if (kinds) kinds[row.kind] = figuresOf(row);
    }
  }
  return {
    from: period.from.toISOString(),
    to: period.to.toISOString(),
    group_by: groupBy,
    data,
    total: total ?? {
      requests: 0,
      prompt_tokens: 0,
      completion_tokens: 0,
      cached_tokens: 0,
      cache_write_tokens: 0,
      total_tokens: 0,
      credits: { base: 0, services: 0, total: 0 },
    },
  };
}

/** One budget of GET /v1/budgets: what it bounds, its window, its limit and what it has billed. */
export function presentOrganizationBudget(row: OrganizationBudgetRow) {
  return {
    level: row.scope_kind,
    scope: {
      id: row.scope_id,
      name: row.scope_name,
      ...(row.scope_kind === 'key' ? { workspace: { id: row.workspace_id!, name: row.workspace_name! } } : {}),
    },
    window: row.window,
    limit: Number(row.limit),
    used: Math.round(Number(row.billed) * 1e8) / 1e8,
    resets_at: new Date(windowEnd(row.window === 'day' ? 'credits_day' : 'credits_month', row.window_start.getTime())).toISOString(),
  };
}
