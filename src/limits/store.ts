import type { PoolClient, Queryable } from '../db/pool.js';
import { limitsFromColumns, NO_LIMITS, type LimitColumns, type Limits } from './limits.js';
import { windowStart, type Counter } from './windows.js';
import { BUDGET_MARKS_TAIL_SQL } from './budgetMarks.js';

// SQL of limits: the limits of workspaces and organizations, and the counters web processes lease
// from and the records statement bills credits into (sql/0024).

export type LimitLevel = 'key' | 'workspace' | 'organization';

function limitsOf(row: LimitColumns | undefined): Limits {
  return row ? limitsFromColumns(row) : NO_LIMITS;
}

/** The limits of a workspace and of its organization (none set: every field null). */
export async function findScopeLimits(db: Queryable, workspaceId: string, organizationId: string): Promise<{ workspace: Limits; organization: Limits }> {
  const { rows } = await db.query<LimitColumns & { scope_kind: 'workspace' | 'organization' }>(
    `select scope_kind, requests_per_minute, tokens_per_minute, credits_per_day, credits_per_month
       from scope_limits
      where (scope_kind = 'workspace' and scope_id = $1) or (scope_kind = 'organization' and scope_id = $2)`,
    [workspaceId, organizationId],
  );
  return {
    workspace: limitsOf(rows.find((r) => r.scope_kind === 'workspace')),
    organization: limitsOf(rows.find((r) => r.scope_kind === 'organization')),
  };
}

export async function saveScopeLimits(
  db: Queryable,
  scope: { kind: 'workspace' | 'organization'; id: string; organizationId: string },
  limits: Limits,
): Promise<void> {
  await db.query(
    `insert into scope_limits (scope_kind, scope_id, organization_id, requests_per_minute, tokens_per_minute,
                               credits_per_day, credits_per_month, updated_at)
     values ($1, $2, $3, $4, $5, $6, $7, now())
     on conflict (scope_kind, scope_id) do update
        set requests_per_minute = excluded.requests_per_minute, tokens_per_minute = excluded.tokens_per_minute,
            credits_per_day = excluded.credits_per_day, credits_per_month = excluded.credits_per_month,
            updated_at = now()`,
    [scope.kind, scope.id, scope.organizationId, limits.requests_per_minute, limits.tokens_per_minute, limits.credits_per_day, limits.credits_per_month],
  );
}

/** One counter of one scope in one window. */
export interface CounterId {
  scope_kind: LimitLevel;
  scope_id: string;
  counter: Counter;
  /** ISO time. */
  window_start: string;
}

export interface LeaseAsk extends CounterId {
  /** What the request at hand needs: granted only if it fits. */
  need: number;
  /** What this process would like to hold, so that the next requests need no round trip. */
  block: number;
  limit: number;
}

export interface LeaseGrant extends CounterId {
  granted: number;
  /** Leased and billed in the window, this grant included, summed over every process. */
  taken: number;
  /** Billed in the window. */
  billed: number;
  /**
   * For a credit counter that granted nothing: what other processes hold of it (for requests they
   * have in flight, and perhaps unused), and which processes, those that hold most first; 0 and
   * none otherwise.
   */
  othersHold: number;
  otherHolders: string[];
}

// The block when it fits under the limit with what every process already took, else just what
// the request needs when that fits, else nothing. New counters are created with their first
// grant; an existing one is updated under its row lock, so concurrent leases never pass the limit.
// A counter another process created during this statement is in neither result: the caller asks
// again.
const LEASE_SQL = `
  with ask as (
    select * from json_to_recordset($1::json) as a(
      scope_kind text, scope_id uuid, counter text, window_start timestamptz, need numeric, block numeric, "limit" numeric)
  ), inserted as (
    insert into limit_counters (scope_kind, scope_id, counter, window_start, leased, last_grant)
    select scope_kind, scope_id, counter, window_start, g.grant, g.grant
      from ask cross join lateral (
        select case when block <= "limit" then block when need <= "limit" then need else 0 end as grant) g
    on conflict do nothing
    returning scope_kind, scope_id, counter, window_start, last_grant as granted, leased + billed as taken, billed
  ), updated as (
    update limit_counters c
       set leased = c.leased + case when c.leased + c.billed + a.block <= a."limit" then a.block
                                    when c.leased + c.billed + a.need <= a."limit" then a.need else 0 end,
           last_grant = case when c.leased + c.billed + a.block <= a."limit" then a.block
                             when c.leased + c.billed + a.need <= a."limit" then a.need else 0 end
      from ask a
     where (c.scope_kind, c.scope_id, c.counter, c.window_start) = (a.scope_kind, a.scope_id, a.counter, a.window_start)
    returning c.scope_kind, c.scope_id, c.counter, c.window_start, c.last_grant as granted, c.leased + c.billed as taken, c.billed
  ), grants as (
    select scope_kind, scope_id, counter, window_start, granted, taken, billed from inserted
    union all
    select scope_kind, scope_id, counter, window_start, granted, taken, billed from updated
  ), holder as (
    insert into limit_holders (holder, presence) values ($2, $3) on conflict (holder) do update set seen_at = now(), presence = excluded.presence
  ), held as (
    -- A credit counter's grant is this process's (sql/0033), so that it goes back if the process dies.
    insert into limit_leases (holder, scope_kind, scope_id, counter, window_start, amount)
    select $2, scope_kind, scope_id, counter, window_start, granted
      from grants where counter in ('credits_day', 'credits_month') and granted > 0
    on conflict (holder, scope_kind, scope_id, counter, window_start) do update set amount = limit_leases.amount + excluded.amount
  )
  -- A credit counter that grants nothing: what other live processes hold of it, which they may
  -- hold unused (the caller can ask them for it back). A primary-key lookup per live process, and
  -- none for a grant.
  select g.scope_kind, g.scope_id, g.counter, g.window_start, g.granted, g.taken, g.billed,
         coalesce(o.amount, 0) as others_hold, coalesce(o.holders, '{}') as other_holders
    from grants g
    left join lateral (
      select sum(l.amount) as amount, array_agg(l.holder::text order by l.amount desc) as holders
        from limit_holders h
        join limit_leases l
          on (l.holder, l.scope_kind, l.scope_id, l.counter, l.window_start) = (h.holder, g.scope_kind, g.scope_id, g.counter, g.window_start)
       where g.granted = 0 and g.counter in ('credits_day', 'credits_month') and h.holder <> $2 and l.amount > 0
    ) o on true`;

interface GrantRow {
  scope_kind: LimitLevel;
  scope_id: string;
  counter: Counter;
  window_start: Date;
  granted: string;
  taken: string;
  billed: string;
  others_hold: string;
  other_holders: string[];
}

const counterKey = (c: { scope_kind: string; scope_id: string; counter: string; window_start: string }) =>
  `${c.scope_kind}\0${c.scope_id}\0${c.counter}\0${c.window_start}`;

/**
 * Leases what each ask can have for `holder` (the web process), in one statement (twice when
 * another process created a counter meanwhile).
 */
export async function leaseCounters(db: Queryable, holder: string, asks: LeaseAsk[], presence: number | null = null): Promise<LeaseGrant[]> {
  const grants = new Map<string, LeaseGrant>();
  let pending = asks;
  for (let round = 0; round < 2 && pending.length > 0; round++) {
    const { rows } = await db.query<GrantRow>({ name: 'polder-lease-limits', text: LEASE_SQL, values: [JSON.stringify(pending), holder, presence] });
    for (const row of rows) {
      const grant: LeaseGrant = {
        scope_kind: row.scope_kind,
        scope_id: row.scope_id,
        counter: row.counter,
        window_start: row.window_start.toISOString(),
        granted: Number(row.granted),
        taken: Number(row.taken),
        billed: Number(row.billed),
        othersHold: Number(row.others_hold),
        otherHolders: row.other_holders,
      };
      grants.set(counterKey(grant), grant);
    }
    pending = pending.filter((ask) => !grants.has(counterKey(ask)));
  }
  // Still missing after a second round cannot happen short of a deleted row; it grants nothing.
  for (const ask of pending) grants.set(counterKey(ask), { ...ask, granted: 0, taken: ask.limit, billed: ask.limit, othersHold: 0, otherHolders: [] });
  return asks.map((ask) => grants.get(counterKey(ask))!);
}

/**
 * When a credit budget is set (or changed) on a scope: its day and month counters start from what
 * the scope has billed in those windows, since only scopes with a budget are counted request by
 * request. A workspace's and an organization's from their usage lines; a key's from its traces
 * (usage lines do not name the key: traces erased or pruned meanwhile are not counted).
 */
export async function startBudgetCounters(
  db: PoolClient,
  scope: { kind: LimitLevel; id: string },
  owner: { organizationId: string; workspaceId: string | null; limits: Limits },
  before: Limits | undefined,
  now = Date.now(),
): Promise<void> {
  const day = new Date(windowStart('credits_day', now)).toISOString();
  const month = new Date(windowStart('credits_month', now)).toISOString();
  // A budget that was set already has been counting: what it counted beyond the usage lines (a
  // closed stream's bill that its retry replaced, docs/api.md) stays. One set anew starts from them.
  const restart = [
    ...(before?.credits_per_day == null ? ['credits_day'] : []),
    ...(before?.credits_per_month == null ? ['credits_month'] : []),
  ];
  const { rows } = await db.query<{ counter: 'credits_day' | 'credits_month'; billed: string }>(START_BUDGET_SQL[scope.kind], [scope.id, day, month, restart]);
  // A window already spent past a mark has reached it: billing will never cross it now.
  for (const { counter, billed } of rows) {
    const limit = owner.limits[counter === 'credits_day' ? 'credits_per_day' : 'credits_per_month'];
    if (limit === null) continue;
    const percents = [80, 100].filter((percent) => Number(billed) >= (limit * percent) / 100);
    if (percents.length === 0) continue;
    const scopeId = { scope_kind: scope.kind, scope_id: scope.id, counter, window_start: counter === 'credits_day' ? day : month };
    await markBudget(db, { organizationId: owner.organizationId, workspaceId: owner.workspaceId, scope: scopeId, limit, billed: Number(billed), percents });
  }
}

const startBudget = (scopeKind: LimitLevel, billedSince: string) => `
  insert into limit_counters (scope_kind, scope_id, counter, window_start, billed)
  select '${scopeKind}', $1, w.counter, w.start, (${billedSince})
    from (values ('credits_day', $2::timestamptz), ('credits_month', $3::timestamptz)) as w(counter, start)
  on conflict (scope_kind, scope_id, counter, window_start)
  do update set billed = case when excluded.counter = any($4::text[]) then excluded.billed else limit_counters.billed end
  returning counter, billed`;

// Three fixed statements, one per level (no caller text in any of them).
const START_BUDGET_SQL: Record<LimitLevel, string> = {
  key: startBudget(
    'key',
    `select coalesce(sum(t.credits_total), 0) from traces t
      where t.workspace_id = (select workspace_id from api_keys where id = $1) and t.key_id = $1 and t.created_at >= w.start`,
  ),
  workspace: startBudget('workspace', 'select coalesce(sum(u.credits_total), 0) from usage u where u.workspace_id = $1 and u.created_at >= w.start'),
  organization: startBudget(
    'organization',
    `select coalesce(sum(u.credits_total), 0) from usage u
      where u.workspace_id in (select id from workspaces where organization_id = $1) and u.created_at >= w.start`,
  ),
};

/** When limits are set on a scope: the counters of its current windows start from what it used in them (`before`: its limits until now). */
export async function startLimitCounters(
  db: PoolClient,
  scope: { kind: LimitLevel; id: string },
  owner: { organizationId: string; workspaceId: string | null; limits: Limits },
  before: Limits | undefined,
  now = Date.now(),
): Promise<void> {
  await startRateCounters(db, scope, owner.limits, now);
  if (owner.limits.credits_per_day !== null || owner.limits.credits_per_month !== null) await startBudgetCounters(db, scope, owner, before, now);
}

/**
 * When a rate limit is set on a scope: its counters of the current minute start from what the
 * scope was answered in it (rateUseFromUsage; a key's through its traces), as a budget's start from
 * what it billed, since no counter counts a scope without a rate limit. A counter already counting
 * (the limit was set before this minute's change) is left as it is.
 */
export async function startRateCounters(db: Queryable, scope: { kind: LimitLevel; id: string }, limits: Limits, now = Date.now()): Promise<void> {
  const counters = [...(limits.requests_per_minute !== null ? ['requests'] : []), ...(limits.tokens_per_minute !== null ? ['tokens'] : [])];
  if (counters.length === 0) return;
  await db.query(START_RATE_SQL[scope.kind], [scope.id, new Date(windowStart('requests', now)).toISOString(), counters]);
}

/** What a workspace or an organization has billed today and this UTC month, from its usage lines. */
export async function creditsBilled(db: Queryable, scope: { kind: 'workspace' | 'organization'; id: string }, now = Date.now()): Promise<{ day: number; month: number }> {
  const day = new Date(windowStart('credits_day', now)).toISOString();
  const month = new Date(windowStart('credits_month', now)).toISOString();
  const { rows } = await db.query<{ day: string; month: string }>(CREDITS_BILLED_SQL[scope.kind], [scope.id, day, month]);
  return { day: Number(rows[0]!.day), month: Number(rows[0]!.month) };
}

const CREDITS_BILLED_SQL = {
  workspace: `
    select coalesce(sum(credits_total) filter (where created_at >= $2), 0) as day, coalesce(sum(credits_total), 0) as month
      from usage where workspace_id = $1 and created_at >= $3`,
  organization: `
    select coalesce(sum(credits_total) filter (where created_at >= $2), 0) as day, coalesce(sum(credits_total), 0) as month
      from usage where workspace_id in (select id from workspaces where organization_id = $1) and created_at >= $3`,
};

/**
 * What a workspace or an organization was answered this minute (since `minuteStart`), from its
 * usage lines, for a scope with no rate limit (whose requests and tokens no counter counts): its
 * chat and embeddings requests, and their prompt and answer tokens. Cache hits are left out, as a
 * rate limit does not count them. One minute of one scope's lines: bounded by its traffic.
 */
export async function rateUseFromUsage(db: Queryable, scope: { kind: 'workspace' | 'organization'; id: string }, minuteStart: string): Promise<{ requests: number; tokens: number }> {
  const { rows } = await db.query<{ requests: number; tokens: string }>(RATE_USE_SQL[scope.kind], [scope.id, minuteStart]);
  return { requests: rows[0]!.requests, tokens: Number(rows[0]!.tokens) };
}

const rateUse = (workspaces: string) => `
  select count(distinct (u.workspace_id, u.request_id))::int as requests, coalesce(sum(u.prompt_tokens + u.completion_tokens), 0)::bigint as tokens
    from usage u
   where u.workspace_id in (${workspaces}) and u.created_at >= $2 and u.kind in ('chat', 'embeddings')
     and not exists (select 1 from traces t where (t.workspace_id, t.id) = (u.workspace_id, u.request_id) and t.cache = 'HIT')`;

// A key's, through its traces (usage lines do not name the key).
const KEY_RATE_USE = `
  select count(distinct (u.workspace_id, u.request_id))::int as requests, coalesce(sum(u.prompt_tokens + u.completion_tokens), 0)::bigint as tokens
    from traces t
    join usage u on (u.workspace_id, u.request_id) = (t.workspace_id, t.id)
   where t.workspace_id = (select workspace_id from api_keys where id = $1) and t.key_id = $1 and t.created_at >= $2
     and u.created_at >= $2 and u.kind in ('chat', 'embeddings') and t.cache is distinct from 'HIT'`;

// Two fixed statements (no caller text in either).
const RATE_USE_SQL = {
  workspace: rateUse('$1'),
  organization: rateUse('select id from workspaces where organization_id = $1'),
};

const startRate = (scopeKind: LimitLevel, used: string) => `
  with used as (${used})
  insert into limit_counters (scope_kind, scope_id, counter, window_start, billed)
  select '${scopeKind}', $1, c.counter, $2::timestamptz, case c.counter when 'requests' then used.requests else used.tokens end
    from unnest($3::text[]) as c(counter) cross join used
  on conflict (scope_kind, scope_id, counter, window_start) do nothing`;

// Three fixed statements, one per level (no caller text in any of them).
const START_RATE_SQL: Record<LimitLevel, string> = {
  key: startRate('key', KEY_RATE_USE),
  workspace: startRate('workspace', RATE_USE_SQL.workspace),
  organization: startRate('organization', RATE_USE_SQL.organization),
};

// Gives back what a holder leased and did not use ($1: counters and amounts, $2: the holder). A
// credit lease the reclaim already gave back (the process was taken for dead) gives nothing twice.
// The counters are updated before the holder's rows, the order every statement on them keeps.
const RETURN_CTES = `
  with r as (
    select scope_kind, scope_id, counter, window_start, sum(amount) as amount
      from json_to_recordset($1::json) as x(scope_kind text, scope_id uuid, counter text, window_start timestamptz, amount numeric)
     group by scope_kind, scope_id, counter, window_start
  ), counters as (
    update limit_counters c
       set leased = greatest(0, c.leased - r.amount)
      from r
     where (c.scope_kind, c.scope_id, c.counter, c.window_start) = (r.scope_kind, r.scope_id, r.counter, r.window_start)
       and (r.counter not in ('credits_day', 'credits_month')
            or exists (select 1 from limit_leases l
                        where (l.holder, l.scope_kind, l.scope_id, l.counter, l.window_start) = ($2, r.scope_kind, r.scope_id, r.counter, r.window_start)))
    returning c.scope_kind, c.scope_id, c.counter, c.window_start
  ), holders as (
    update limit_leases l
       set amount = greatest(0, l.amount - r.amount)
      from r join counters using (scope_kind, scope_id, counter, window_start)
     where (l.holder, l.scope_kind, l.scope_id, l.counter, l.window_start) = ($2, r.scope_kind, r.scope_id, r.counter, r.window_start)
  )`;
const RETURN_SQL = `${RETURN_CTES} select count(*)::int as returned from counters`;
// The answer to a recall ($3: the channel, $4: the payload) is sent when the return commits.
const RETURN_RECALLED_SQL = `${RETURN_CTES} select pg_notify($3, $4)`;

/** Gives back what `holder` leased and did not use (on shutdown, or when it sat idle). */
export async function returnLeases(db: Queryable, holder: string, returns: (CounterId & { amount: number })[]): Promise<void> {
  if (returns.length === 0) return;
  await db.query(RETURN_SQL, [JSON.stringify(returns), holder]);
}

/**
 * Gives back what `holder` holds unused of the counters another process recalled (limits/gate.ts),
 * perhaps nothing, and answers it in the same statement, so the answer is heard once the return
 * has committed: the asker leases again as soon as every holder it asked has answered.
 */
export async function returnRecalled(
  db: Queryable,
  holder: string,
  returns: (CounterId & { amount: number })[],
  answer: { channel: string; payload: string },
): Promise<void> {
  await db.query(RETURN_RECALLED_SQL, [JSON.stringify(returns), holder, answer.channel, answer.payload]);
}

/** Marks `holder` seen (every 15 s while it runs): limits__reclaim leaves its leases alone. */
export async function markHolderSeen(db: Queryable, holder: string): Promise<void> {
  await db.query('update limit_holders set seen_at = now() where holder = $1', [holder]);
}

/**
 * Gives back the credit leases of holders not seen for `unseenSeconds` (a web process that died
 * without giving them back), of one holder at once (a process stopping, after it gave back what
 * it could), or of those of `goneOf` whose presence lock is no longer held (a process that died:
 * Postgres dropped its lock with its connection), and forgets those holders. Returns how many
 * leases went back.
 */
export async function reclaimLeases(
  db: Queryable,
  which: { unseenSeconds: number } | { holder: string } | { goneOf: string[] },
): Promise<number> {
  const { rows } = await db.query<{ reclaimed: number }>(
    `with gone as (
       delete from limit_holders h
        where case when $1::uuid is not null then h.holder = $1::uuid
                   when $3::uuid[] is not null then h.holder = any($3::uuid[]) and h.presence is not null
                        and not polder_presence_held(h.presence)
                   else h.seen_at < now() - make_interval(secs => $2::float8) end
       returning holder
     ), leases as (
       delete from limit_leases l
        where l.holder in (select holder from gone)
           or ($1::uuid is null and $3::uuid[] is null and not exists (select 1 from limit_holders h where h.holder = l.holder))
       returning l.scope_kind, l.scope_id, l.counter, l.window_start, l.amount
     ), back as (
       select scope_kind, scope_id, counter, window_start, sum(amount) as amount from leases group by scope_kind, scope_id, counter, window_start
     ), counters as (
       update limit_counters c
          set leased = greatest(0, c.leased - b.amount)
         from back b
        where (c.scope_kind, c.scope_id, c.counter, c.window_start) = (b.scope_kind, b.scope_id, b.counter, b.window_start)
     )
     select count(*)::int as reclaimed from leases`,
    [
      'holder' in which ? which.holder : null,
      'unseenSeconds' in which ? which.unseenSeconds : 0,
      'goneOf' in which ? which.goneOf : null,
    ],
  );
  return rows[0]!.reclaimed;
}

/**
 * What the counters of these scopes show as used in the given windows: for rates what was leased
 * to web processes (their requests are admitted from it), for credits what was billed.
 */
export async function countersUsed(db: Queryable, ids: CounterId[]): Promise<Map<string, number>> {
  const { rows } = await db.query<{ scope_kind: string; scope_id: string; counter: string; window_start: Date; used: string }>(
    `select c.scope_kind, c.scope_id, c.counter, c.window_start,
            case when c.counter in ('requests', 'tokens') then c.leased + c.billed else c.billed end as used
       from limit_counters c
       join json_to_recordset($1::json) as i(scope_kind text, scope_id uuid, counter text, window_start timestamptz)
         on (c.scope_kind, c.scope_id, c.counter, c.window_start) = (i.scope_kind, i.scope_id, i.counter, i.window_start)`,
    [JSON.stringify(ids)],
  );
  return new Map(rows.map((r) => [counterKey({ ...r, window_start: r.window_start.toISOString() }), Number(r.used)]));
}

export { counterKey };

/** Deletes, a batch at a time, windows long past: minutes after a day, days after 40, months after 13 months. */
export async function pruneCounters(db: Queryable, limit = 10_000): Promise<number> {
  const { rowCount } = await db.query(
    `delete from limit_counters
      where ctid in (
        select ctid from limit_counters
         where (counter in ('requests', 'tokens') and window_start < now() - interval '1 day')
            or (counter = 'credits_day' and window_start < now() - interval '40 days')
            or (counter = 'credits_month' and window_start < now() - interval '13 months')
         limit $1)`,
    [limit],
  );
  return rowCount ?? 0;
}

export interface BudgetMark {
  organizationId: string;
  /** The workspace whose log and webhooks get it: a key's or the workspace's own; null for an organization's budget (every workspace gets the webhook). */
  workspaceId: string | null;
  scope: CounterId;
  limit: number;
  billed: number;
  /** The marks reached: 80 and/or 100. */
  percents: number[];
}

/**
 * Writes a budget's 80 % or 100 % mark, audit entry and budget.threshold webhook, unless this
 * window has it already: when the first request is refused because the budget is spent (billing
 * seldom lands on 100 % exactly, as the gate refuses what would pass it), and when a budget is set
 * on a window already spent past a mark. The records statement writes the marks that billing
 * crosses (metering/writeRecords.ts); one advisory lock per scope and window keeps two writers
 * from both writing one.
 */
export async function markBudget(db: PoolClient, mark: BudgetMark): Promise<number> {
  const window = mark.scope.counter === 'credits_day' ? 'day' : 'month';
  await db.query('select pg_advisory_xact_lock($1, hashtext($2))', [BUDGET_MARK_LOCK_CLASS, `${mark.scope.scope_id}:${mark.scope.counter}:${mark.scope.window_start}`]);
  const { rows } = await db.query<{ events: number }>(
    `with wanted_marks as (
       select $1::uuid as organization_id, $2::uuid as workspace_id, $4::text as scope_kind, $3::uuid as scope_id,
              $5::text as window_name, p.percent, $6::numeric as budget, $7::numeric as billed, $8::timestamptz as window_start
         from unnest($9::int[]) as p(percent)
     ), ${BUDGET_MARKS_TAIL_SQL}
     select count(*)::int as events from budget_events`,
    [
      mark.organizationId,
      mark.workspaceId,
      mark.scope.scope_id,
      mark.scope.scope_kind,
      window,
      mark.limit,
      mark.billed,
      mark.scope.window_start,
      mark.percents,
    ],
  );
  return rows[0]?.events ?? 0;
}

// The class of the advisory locks of budget marks (pg_advisory_xact_lock(class, hash)).
const BUDGET_MARK_LOCK_CLASS = 72_011_006;

export interface OrganizationBudgetRow {
  scope_kind: LimitLevel;
  scope_id: string;
  scope_name: string | null;
  workspace_id: string | null;
  workspace_name: string | null;
  window: 'day' | 'month';
  limit: string;
  billed: string;
  window_start: Date;
}

/**
 * Every credit budget of an organization (each live key's, each workspace's, its own) with what its
 * counter has billed in the current window: the organization's first, then by workspace and key.
 */
export async function listOrganizationBudgets(db: Queryable, organizationId: string, now = Date.now()): Promise<OrganizationBudgetRow[]> {
  const day = new Date(windowStart('credits_day', now)).toISOString();
  const month = new Date(windowStart('credits_month', now)).toISOString();
  const { rows } = await db.query<OrganizationBudgetRow>(
    `with budgets as (
       select 'organization' as scope_kind, o.id as scope_id, o.name as scope_name, null::uuid as workspace_id,
              null::text as workspace_name, 0 as rank, l.credits_per_day, l.credits_per_month
         from scope_limits l join organizations o on o.id = l.scope_id
        where l.scope_kind = 'organization' and l.scope_id = $1
       union all
       select 'workspace', w.id, w.name, w.id, w.name, 1, l.credits_per_day, l.credits_per_month
         from scope_limits l join workspaces w on w.id = l.scope_id
        where l.scope_kind = 'workspace' and l.organization_id = $1
       union all
       select 'key', k.id, k.name, w.id, w.name, 2, k.credits_per_day, k.credits_per_month
         from api_keys k join workspaces w on w.id = k.workspace_id
        where k.organization_id = $1 and k.revoked_at is null and (k.credits_per_day is not null or k.credits_per_month is not null)
     ), windows as (
       select b.*, x.period, x.counter, x.window_start, x.budget_limit
         from budgets b
        cross join lateral (values ('day', 'credits_day', $2::timestamptz, b.credits_per_day),
                                   ('month', 'credits_month', $3::timestamptz, b.credits_per_month)) as x(period, counter, window_start, budget_limit)
        where x.budget_limit is not null
     )
     select w.scope_kind, w.scope_id::text, w.scope_name, w.workspace_id::text, w.workspace_name, w.period as "window",
            w.budget_limit::text as limit, coalesce(c.billed, 0)::text as billed, w.window_start
       from windows w
       left join limit_counters c
         on (c.scope_kind, c.scope_id, c.counter, c.window_start) = (w.scope_kind, w.scope_id, w.counter, w.window_start)
      order by w.rank, w.workspace_name nulls first, w.scope_name nulls last, w.scope_id, w.period`,
    [organizationId, day, month],
  );
  return rows;
}
