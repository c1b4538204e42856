import type { Pool } from '../db/pool.js';
import { withTransaction } from '../db/transaction.js';
import { actedBy, recordAudit } from '../audit/entries.js';
import { ApiError } from '../errors.js';
import { announceChange } from '../tenancy/changes.js';
import type { Principal } from '../tenancy/store.js';
import type { LimitGate } from './gate.js';
import { limitsFromBody, type Limits } from './limits.js';
import {
  counterKey,
  countersUsed,
  creditsBilled,
  findScopeLimits,
  rateUseFromUsage,
  saveScopeLimits,
  startLimitCounters,
  type CounterId,
  type LimitLevel,
} from './store.js';
import { windowEnd, windowStart } from './windows.js';

// GET and PUT /settings/limits: the limits of the caller's workspace and organization, and what
// each has used in its current windows.

export interface WindowUse {
  requests_this_minute: number;
  tokens_this_minute: number;
  credits_today: number;
  credits_this_month: number;
}

export interface LimitSettings {
  workspace: { limits: Limits; used: WindowUse };
  /** Only for an organization key. */
  organization: { limits: Limits; used: WindowUse } | null;
}


/**
 * What a scope has used in the windows that are current now. For a rate with a limit: what web
 * processes leased, less what this one holds unused (as the x-ratelimit headers count it); blocks
 * other processes hold unused count as used until they are used or given back. For a rate without
 * a limit, which no counter counts: the chats and embeddings its usage lines show answered this
 * minute, and their tokens (rateUseFromUsage).
 */
export async function windowUse(
  pool: Pool,
  gate: LimitGate,
  scopes: { scope_kind: 'workspace' | 'organization'; scope_id: string; limits: Limits }[],
  now = Date.now(),
): Promise<WindowUse[]> {
  const minute = new Date(windowStart('requests', now)).toISOString();
  const rates = [
    ['requests', 'requests_per_minute'],
    ['tokens', 'tokens_per_minute'],
  ] as const;
  const ids = scopes.flatMap(({ scope_kind, scope_id, limits }) =>
    rates.flatMap(([counter, field]) => (limits[field] === null ? [] : [{ scope_kind, scope_id, counter, window_start: minute }])),
  );
  const unlimited = (limits: Limits) => limits.requests_per_minute === null || limits.tokens_per_minute === null;
  const [leased, billed, lines] = await Promise.all([
    ids.length > 0 ? countersUsed(pool, ids) : new Map<string, number>(),
    Promise.all(scopes.map((scope) => creditsBilled(pool, { kind: scope.scope_kind, id: scope.scope_id }, now))),
    Promise.all(scopes.map((scope) => (unlimited(scope.limits) ? rateUseFromUsage(pool, { kind: scope.scope_kind, id: scope.scope_id }, minute) : undefined))),
  ]);
  const round = (value: number) => Math.round(value * 1e8) / 1e8;
  const used = (key: string) => Math.max(0, (leased.get(key) ?? 0) - gate.unusedOf(key));
  return scopes.map((scope, index) => ({
    requests_this_minute:
      scope.limits.requests_per_minute === null ? lines[index]!.requests : used(counterKey({ ...scope, counter: 'requests', window_start: minute })),
    tokens_this_minute: scope.limits.tokens_per_minute === null ? lines[index]!.tokens : used(counterKey({ ...scope, counter: 'tokens', window_start: minute })),
    credits_today: round(billed[index]!.day),
    credits_this_month: round(billed[index]!.month),
  }));
}

export interface BudgetUse {
  level: LimitLevel;
  window: 'day' | 'month';
  limit: number;
  used: number;
  resets_at: string;
}

/** Every credit budget that applies to the principal (its key's, workspace's, organization's), with what it has billed. */
export async function budgetsOf(pool: Pool, gate: LimitGate, principal: Principal, now = Date.now()): Promise<BudgetUse[]> {
  const limits = await gate.limitsOf(principal);
  const budgets: (CounterId & { limit: number; window: 'day' | 'month' })[] = [];
  for (const level of ['key', 'workspace', 'organization'] as const) {
    const scopeId = level === 'key' ? principal.keyId : level === 'workspace' ? principal.workspaceId : principal.organizationId;
    for (const [counter, field, window] of [
      ['credits_day', 'credits_per_day', 'day'],
      ['credits_month', 'credits_per_month', 'month'],
    ] as const) {
      const limit = limits[level][field];
      if (limit === null) continue;
      budgets.push({ scope_kind: level, scope_id: scopeId, counter, window_start: new Date(windowStart(counter, now)).toISOString(), limit, window });
    }
  }
  if (budgets.length === 0) return [];
  const used = await countersUsed(pool, budgets);
  return budgets.map((budget) => ({
    level: budget.scope_kind,
    window: budget.window,
    limit: budget.limit,
    used: Math.round((used.get(counterKey(budget)) ?? 0) * 1e8) / 1e8,
    resets_at: new Date(windowEnd(budget.counter, Date.parse(budget.window_start))).toISOString(),
  }));
}

export async function getLimitSettings(pool: Pool, gate: LimitGate, principal: Principal): Promise<LimitSettings> {
  const limits = await findScopeLimits(pool, principal.workspaceId, principal.organizationId);
  const withOrganization = principal.kind === 'organization';
  const scopes = [
    { scope_kind: 'workspace' as const, scope_id: principal.workspaceId, limits: limits.workspace },
    ...(withOrganization ? [{ scope_kind: 'organization' as const, scope_id: principal.organizationId, limits: limits.organization }] : []),
  ];
  const [uses, budgets] = await Promise.all([windowUse(pool, gate, scopes), budgetCounters(pool, scopes)]);
  const [workspaceUse, organizationUse] = uses.map((use, index) => ({ ...use, ...budgets[index] }));
  return {
    workspace: { limits: limits.workspace, used: workspaceUse! },
    organization: withOrganization ? { limits: limits.organization, used: organizationUse! } : null,
  };
}

/**
 * Where a scope has a credit budget, what its counter has billed in the window: what the budget
 * counts and refuses by (a stream the client closed and the retry that replaced its bill both
 * count: the provider was paid for both), which the usage lines do not show.
 */
async function budgetCounters(
  pool: Pool,
  scopes: { scope_kind: 'workspace' | 'organization'; scope_id: string; limits: Limits }[],
  now = Date.now(),
): Promise<Partial<Pick<WindowUse, 'credits_today' | 'credits_this_month'>>[]> {
  const windows = [
    ['credits_day', 'credits_per_day', 'credits_today'],
    ['credits_month', 'credits_per_month', 'credits_this_month'],
  ] as const;
  const ids = scopes.flatMap(({ scope_kind, scope_id, limits }) =>
    windows.flatMap(([counter, field]) => (limits[field] === null ? [] : [{ scope_kind, scope_id, counter, window_start: new Date(windowStart(counter, now)).toISOString() }])),
  );
  if (ids.length === 0) return scopes.map(() => ({}));
  const billed = await countersUsed(pool, ids);
  return scopes.map(({ scope_kind, scope_id, limits }) =>
    Object.fromEntries(
      windows.flatMap(([counter, field, shown]) => {
        if (limits[field] === null) return [];
        const key = counterKey({ scope_kind, scope_id, counter, window_start: new Date(windowStart(counter, now)).toISOString() });
        return [[shown, Math.round((billed.get(key) ?? 0) * 1e8) / 1e8]];
      }),
    ),
  );
}

/**
 * Sets the workspace's limits, the organization's (organization keys only), or both; a field left
 * out of a `limits` object is null (no limit). Audited with the old and new values; this process
 * applies them at once, the others when the change's NOTIFY reaches them (tenancy/changes.ts).
 */
export async function updateLimitSettings(
  deps: { pool: Pool; gate: LimitGate },
  principal: Principal,
  update: { workspace?: Partial<Limits>; organization?: Partial<Limits> },
): Promise<LimitSettings> {
  if (update.organization !== undefined && principal.kind !== 'organization') {
    throw new ApiError({
      status: 403,
      message: "setting the organization's limits needs an organization key; this is a restricted key",
      type: 'permission_error',
      code: 'insufficient_scope',
    });
  }
  await withTransaction(deps.pool, async (db) => {
    await announceChange(db, { kind: 'limits' });
    const before = await findScopeLimits(db, principal.workspaceId, principal.organizationId);
    for (const kind of ['workspace', 'organization'] as const) {
      const given = update[kind];
      if (given === undefined) continue;
      const limits = limitsFromBody(given, kind);
      const id = kind === 'workspace' ? principal.workspaceId : principal.organizationId;
      await saveScopeLimits(db, { kind, id, organizationId: principal.organizationId }, limits);
      await startLimitCounters(db, { kind, id }, { organizationId: principal.organizationId, workspaceId: kind === 'workspace' ? id : null, limits }, before[kind]);
      await recordAudit(db, {
        ...actedBy(principal),
        ...(kind === 'organization' ? { workspace_id: null } : {}),
        action: `limits.${kind}.updated`,
        target: id,
        details: { before: before[kind], after: limits },
      });
    }
  });
  deps.gate.forgetScopeLimits();
  return getLimitSettings(deps.pool, deps.gate, principal);
}
