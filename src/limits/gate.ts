import { randomUUID } from 'node:crypto';
import type { Pool } from '../db/pool.js';
import { withTransaction } from '../db/transaction.js';
import { ApiError, budgetExhausted, rateLimited } from '../errors.js';
import type { Logger } from '../logger.js';
import { countLimitRefusal } from '../metrics.js';
import { announceChange, CONFIG_CHANNEL, type LeaseRecall, type LeaseRecallAnswer } from '../tenancy/changes.js';
import type { Principal } from '../tenancy/store.js';
import type { Limits } from './limits.js';
import {
  counterKey,
  countersUsed,
  findScopeLimits,
  leaseCounters,
  markBudget,
  markHolderSeen,
  reclaimLeases,
  returnLeases,
  returnRecalled,
  type CounterId,
  type LeaseAsk,
  type LeaseGrant,
  type LimitLevel,
} from './store.js';
import { openAiDuration, windowEnd, windowStart, type Counter } from './windows.js';

// Enforcement of limits and budgets before a provider is called (CONTRACT.md, "Limits and
// budgets"). Each web process leases blocks from the counters in Postgres (limits/store.ts) and
// admits requests from what it holds, so most requests cost no round trip; summed over every
// process, what is leased in a window never passes its limit. A request takes its worst case (one
// request, the prompt's tokens plus the answer's cap, its highest possible cost) from the block;
// after the call, what it did not use goes back to the block, and its real cost is billed in the
// records statement, which shrinks the lease by as much (SpendRecord).
//
// A budget admits a request whose worst case fits beside what is billed and what calls in flight
// reserved, wherever they run: a lease that falls short while other processes hold part of the
// budget asks them for what they hold unused (recall, decision 0023) and leases again.

/** What a request may use at most; each is computed only when a limit needs it. */
/** Each counter by the name of its limit, as the refusals metric labels it. */
const LIMIT_NAMES = { requests: 'requests_per_minute', tokens: 'tokens_per_minute', credits_day: 'credits_per_day', credits_month: 'credits_per_month' } as const;

export interface Demand {
  /** Work the figures need that should not hold the event loop (a long prompt's count), done only when a limit applies. */
  ready?: (() => Promise<void>) | undefined;
  tokens(): number;
  credits(): number;
  /** How the request's tokens and credits are reckoned, in the words a refusal gives: a chat's and an embeddings call's differ. */
  reckoning: { tokens: string; credits: string; smaller: string };
  /** False when a refusal is not what the caller gets (a cache hit's fee is waived instead): it is not counted as one. */
  refusalAnswered?: boolean;
}

interface Held {
  remaining: number;
  /** The limit it was leased under: a block leased under a higher one would let requests pass a lowered limit. */
  limit: number;
  /** Leased plus billed over every process, as the last lease saw it. */
  taken: number;
  /** Billed over every process, as the last lease saw it: what a 402 says is used. */
  billed: number;
  lastUsed: number;
}

interface Slot {
  key: string;
  id: CounterId;
  amount: number;
}

/** What an admitted request took, given back or settled when it ends. */
export interface Admission {
  slots: Slot[];
  /**
   * The credit budgets that apply to it, as they were when it was admitted: its credits are billed
   * into them when it is settled, even if the limits were changed (and the plans forgotten) meanwhile.
   */
  budgets: readonly Planned[];
  /** Settled or released: what it took went back once. */
  ended?: boolean;
  /** `x-ratelimit-*` for the tightest rate limits that apply (none when none applies). */
  headers: Record<string, string>;
  /** A cache hit's fee a budget had no room for (admitCacheHit): why it is not billed. */
  feeWaived?: string;
}

/** A request's credits as the records statement bills them into a counter (metering/writeRecords.ts). */
export interface SpendRecord extends CounterId {
  credits: number;
  /** How much of it came out of a lease this process held (the lease shrinks by it). */
  from_lease: number;
  /** The process whose lease it came out of (sql/0033); null for the service's own work. */
  holder: string | null;
}

export const NOT_LIMITED: Admission = { slots: [], headers: {}, budgets: [] };

const CACHE_HIT_RECKONING: Demand['reckoning'] = { tokens: 'nothing', credits: 'the fee of its firewall and retrieval', smaller: '' };

const LEVELS: LimitLevel[] = ['key', 'workspace', 'organization'];
const RATE_COUNTERS = new Set<Counter>(['requests', 'tokens']);
// A block is a twentieth of the limit, at most 50 requests' worth (besides those in flight) and at
// least what the request needs: at high limits one lease serves 50 requests; at low ones a process
// holds little that another process could have used.
const BLOCK_FRACTION = 0.05;
const BLOCK_REQUESTS = 50;
const LIMITS_TTL_MS = 4000;
const IDLE_RETURN_MS = 15_000;
// Another process may give back what it leased (idle, or stopping) or a lease may shrink; an
// exhausted counter is asked again after this long. A budget short only of what other processes
// hold (for requests in flight, which bill less than they reserved) is asked again sooner: those
// requests end within moments, and a second refused for a budget with most of it left is a 402
// that SDKs do not retry (QA: refused for a second after the other process's request ended).
const EXHAUSTED_RECHECK_MS = 1000;
const HELD_ELSEWHERE_RECHECK_MS = 100;
// How long a lease waits for the processes it recalled credits from to answer: they answer within
// milliseconds; one whose listener is down (or that died) must not hold the request for long.
const RECALL_WAIT_MS = 250;
// The most holders one recall names (those holding most first), which keeps its NOTIFY well under
// Postgres's 8,000 bytes and within what the listeners read (tenancy/changes.ts).
const RECALL_HOLDERS = 64;

const LIMIT_FIELD: Record<Counter, keyof Limits> = {
  requests: 'requests_per_minute',
  tokens: 'tokens_per_minute',
  credits_day: 'credits_per_day',
  credits_month: 'credits_per_month',
};


/** Credits as a person writes them: 0.00000002, not 2e-8. */
const plainCredits = (credits: number) => credits.toLocaleString('en-US', { maximumFractionDigits: 8, useGrouping: false });

// A budget that refuses a request with less than a tenth of it left, or a request of at most a
// quarter of it that what is billed leaves no room for, is spent for such requests: its 100 % mark
// (LimitGate.refuse). Requests in flight reserve more than they bill, so what they hold marks nothing.
const SPENT_PERCENT = 90;
const SMALL_REQUEST_SHARE = 0.25;

export const isBudget = (counter: { counter: Counter }) => counter.counter === 'credits_day' || counter.counter === 'credits_month';

function counterOf(key: string): CounterId {
  const [scope_kind, scope_id, counter, window_start] = key.split('\0') as [LimitLevel, string, Counter, string];
  return { scope_kind, scope_id, counter, window_start };
}

/**
 * Credits as the counters keep them (numeric with 8 decimals), rounded up: a need with more decimals
 * than a grant can carry would never be met by the grant made for it.
 */
function creditScale(credits: number): number {
  return Math.ceil(credits * 1e8) / 1e8;
}

/**
 * `a + b` as a counter keeps it: credits in whole units of 1e-8, as Postgres does. Summed as binary
 * floats, grants, needs and what comes back drift: 0.0604 billed and a need of 0.0201 then fell
 * short of a 0.1 budget by 1e-18, and the request was refused.
 */
function counterSum(counter: Counter, a: number, b: number): number {
  const sum = a + b;
  return counter === 'credits_day' || counter === 'credits_month' ? Math.round(sum * 1e8) / 1e8 : sum;
}

const COUNTERS = Object.keys(LIMIT_FIELD) as Counter[];

/** The record that bills a request's credits into this counter, if its window is still the current one. */
function recordOf(records: SpendRecord[], id: CounterId): SpendRecord | undefined {
  for (const record of records) {
    if (record.counter === id.counter && record.scope_id === id.scope_id && record.scope_kind === id.scope_kind && record.window_start === id.window_start) return record;
  }
  return undefined;
}

/**
 * A counter of one scope that a limit applies to, with its current window's id and map key: made
 * once per window rather than per request (V8 keeps a string's hash with the string, so the same
 * key object is looked up without hashing it again).
 */
interface Planned {
  scope_kind: LimitLevel;
  scope_id: string;
  counter: Counter;
  limit: number;
  window?: { id: CounterId; key: string; startMs: number };
}

/** The planned counter's current window, made anew only when a window has passed. */
function windowOf(planned: Planned, now: number): NonNullable<Planned['window']> {
  const start = windowId(planned.counter, now);
  if (planned.window?.id.window_start !== start) {
    const id = { scope_kind: planned.scope_kind, scope_id: planned.scope_id, counter: planned.counter, window_start: start };
    planned.window = { id, key: counterKey(id), startMs: Date.parse(start) };
  }
  return planned.window;
}

interface Need {
  id: CounterId;
  key: string;
  startMs: number;
  need: number;
  limit: number;
}

// The same few window starts are asked for on every request; their ISO form is made once.
const windowIds = new Map<number, string>();
function windowId(counter: Counter, now: number): string {
  const start = windowStart(counter, now);
  let id = windowIds.get(start);
  if (id === undefined) {
    if (windowIds.size > 64) windowIds.clear();
    id = new Date(start).toISOString();
    windowIds.set(start, id);
  }
  return id;
}

/**
 * A block serves the next 50 requests beside those in flight, which hold their worst case until
 * they end: without them, 32 requests in flight would hold most of a block, and leases would come
 * every few requests.
 */
function blockFor(counter: Counter, limit: number, need: number, inFlight: number): number {
  const fraction = Math.floor(limit * BLOCK_FRACTION);
  const requests = BLOCK_REQUESTS + inFlight;
  const most = counter === 'requests' ? requests : need * requests;
  return Math.max(need, Math.min(fraction, most));
}

export class LimitGate {
  /** This process, as the holder of the credit leases it takes (sql/0033). */
  readonly holder = randomUUID();
  private readonly held = new Map<string, Held>();
  private readonly scopeLimits = new Map<string, { limits: { workspace: Limits; organization: Limits }; until: number }>();
  private plans = new WeakMap<Principal, { plan: Planned[]; until: number }>();
  private readonly idleTimer: NodeJS.Timeout;
  /** Admitted requests not yet settled or released. */
  private inFlight = 0;
  /** The lease statement in flight, which requests arriving meanwhile wait for. */
  private leasing: Promise<void> | undefined;
  /**
   * Counters a lease could not serve, until when they are not asked again for as much: what was
   * left in Postgres then, under which limit. A request that needs no more than that is asked for
   * as usual (a refused large request must not refuse the small ones after it), and so is one
   * under a raised limit.
   */
  private readonly exhausted = new Map<string, { until: number; left: number; limit: number; billed: number }>();
  /** Budget windows and the marks of them this process has written on a refusal (refuse). */
  private readonly marked = new Set<string>();
  /** What goes back to Postgres before the next lease: blocks leased under a limit since lowered. */
  private returning: (CounterId & { amount: number })[] = [];
  /** Recalls this process sent, by id: the holders that have not answered yet. */
  private readonly recalls = new Map<string, { waiting: Set<string>; answered: () => void }>();
  /** Answers to other processes' recalls being given, which close() waits for. */
  private readonly answering = new Set<Promise<void>>();
  private closed = false;

  constructor(
    private readonly pool: Pool,
    private readonly log: Logger,
    /** The web process's presence key (db/presence.ts): another process that recalls from this one finds it dead by it. */
    private readonly presence: number | null = null,
  ) {
    // Also says this process is alive, so that limits__reclaim leaves its credit leases alone.
    this.idleTimer = setInterval(() => {
      this.returnIdle(Date.now() - IDLE_RETURN_MS)
        .then(() => markHolderSeen(this.pool, this.holder))
        .catch((err: unknown) => this.log.warn({ err }, 'could not give back idle limit leases'));
    }, IDLE_RETURN_MS);
    this.idleTimer.unref();
  }

  /** The limits that apply to a principal: its key's, its workspace's, its organization's. */
  async limitsOf(principal: Principal): Promise<Record<LimitLevel, Limits>> {
    const cacheKey = `${principal.workspaceId}\0${principal.organizationId}`;
    let cached = this.scopeLimits.get(cacheKey);
    if (!cached || cached.until <= Date.now()) {
      cached = { limits: await findScopeLimits(this.pool, principal.workspaceId, principal.organizationId), until: Date.now() + LIMITS_TTL_MS };
      if (this.scopeLimits.size > 10_000) this.scopeLimits.clear();
      this.scopeLimits.set(cacheKey, cached);
    }
    return { key: principal.keyLimits, ...cached.limits };
  }

  /**
   * The counters that limit a principal, kept with the principal object (which the key cache
   * renews when the key changes) until the scope limits may have changed.
   */
  private async planOf(principal: Principal, now: number): Promise<Planned[]> {
    const cached = this.plans.get(principal);
    if (cached && cached.until > now) return cached.plan;
    const limits = await this.limitsOf(principal);
    const plan: Planned[] = [];
    for (const level of LEVELS) {
      const scope_id = level === 'key' ? principal.keyId : level === 'workspace' ? principal.workspaceId : principal.organizationId;
      for (const counter of COUNTERS) {
        const limit = limits[level][LIMIT_FIELD[counter]];
        if (limit !== null) plan.push({ scope_kind: level, scope_id, counter, limit });
      }
    }
    this.plans.set(principal, { plan, until: now + LIMITS_TTL_MS });
    return plan;
  }

  /** What this process holds of a counter's leased blocks and has not used (counterKey). */
  unusedOf(key: string): number {
    return this.held.get(key)?.remaining ?? 0;
  }

  /**
   * Ingest and fact extraction are billed when their job has run, so they cannot reserve their
   * cost: they are refused (402) once a credit budget that applies is spent, and what an accepted
   * one bills counts toward it as usual.
   */
  async refuseIfBudgetSpent(principal: Principal): Promise<void> {
    const now = Date.now();
    const budgets = (await this.planOf(principal, now)).filter(isBudget);
    if (budgets.length === 0) return;
    const ids = budgets.map(({ scope_kind, scope_id, counter }) => ({ scope_kind, scope_id, counter, window_start: windowId(counter, now) }));
    const billed = await countersUsed(this.pool, ids);
    for (const [index, id] of ids.entries()) {
      const used = billed.get(counterKey(id)) ?? 0;
      if (used >= budgets[index]!.limit) await this.refuse(principal, id, budgets[index]!.limit, 0, this.refusal(id, budgets[index]!.limit, now, 0, used, {}, true));
    }
  }

  /**
   * Throws a refusal. A budget's 402 first writes (once per window) the marks it has reached
   * (store.markBudget): 80 % when that much is billed; 100 % when it refuses a request of at most a
   * quarter of it that what is billed leaves no room for, or with less than a tenth of it left: it
   * is spent for such requests (the gate refuses what would pass the budget, so billing seldom lands
   * on 100 % itself). One large request refused while most of the budget is left marks nothing, nor
   * does a burst refused for what the requests in flight reserved.
   */
  private async refuse(principal: Principal, id: CounterId, limit: number, need: number, refusal: ApiError, answered = true): Promise<never> {
    if (answered) countLimitRefusal(LIMIT_NAMES[id.counter], id.scope_kind);
    const budget = isBudget(id);
    const used = budget ? (refusal.fields.budget as { used: number }).used : 0;
    const spent = budget && (used >= (limit * SPENT_PERCENT) / 100 || (need > 0 && need <= limit * SMALL_REQUEST_SHARE && used + need > limit));
    const percents = spent ? [80, 100] : budget && used >= limit * 0.8 ? [80] : [];
    const key = `${counterKey(id)}\0${percents.join(',')}`;
    if (percents.length > 0 && !this.marked.has(key)) {
      if (this.marked.size > 10_000) this.marked.clear();
      this.marked.add(key);
      const owner = { organizationId: principal.organizationId, workspaceId: id.scope_kind === 'organization' ? null : principal.workspaceId };
      try {
        await withTransaction(this.pool, (db) => markBudget(db, { ...owner, scope: id, limit, billed: used, percents }));
      } catch (err) {
        this.marked.delete(key);
        this.log.warn({ err }, 'could not record that a budget is spent');
      }
    }
    throw refusal;
  }

  /** After PUT /settings/limits: this process applies the new limits at once. */
  forgetScopeLimits(): void {
    this.scopeLimits.clear();
    this.plans = new WeakMap();
  }

  /**
   * Admits a request or refuses it: 429 over a rate limit, 402 over a budget. What it takes is
   * held until `settle` (it was answered) or `release` (it was not).
   */
  async admit(principal: Principal, demand: Demand, counts?: (planned: Planned) => boolean): Promise<Admission> {
    const now = Date.now();
    // Most requests count every limit: their plan is not copied.
    const planned = await this.planOf(principal, now);
    const plan = counts ? planned.filter(counts) : planned;
    if (plan.length === 0) return NOT_LIMITED;
    await demand.ready?.();
    let tokens: number | undefined;
    let credits: number | undefined;
    const needs: Need[] = [];
    for (const planned of plan) {
      const { counter } = planned;
      const need = counter === 'requests' ? 1 : counter === 'tokens' ? (tokens ??= demand.tokens()) : (credits ??= creditScale(demand.credits()));
      const window = windowOf(planned, now);
      this.dropIfLowered(window.key, planned.limit);
      // Nothing to take (a model priced 0, a chain with no candidate left): no counter can be short
      // of it, and this process may hold no block of it to take from.
      if (need === 0) continue;
      needs.push({ id: window.id, key: window.key, startMs: window.startMs, need, limit: planned.limit });
    }
    if (needs.length === 0) return { slots: [], headers: {}, budgets: plan.filter(isBudget) };
    if (this.returning.length > 0) await this.giveBackReturning();

    // One lease statement at a time per process: requests that arrive together wait for it and
    // take from its block, rather than each leasing a block of its own (a burst would lease far
    // more than it uses, and leave the other processes nothing). A counter found exhausted is
    // refused at once for a moment, without a statement per request.
    let exhausted: LeaseAsk | undefined;
    for (;;) {
      const asks = this.shortfalls(needs);
      if (asks.length === 0) break;
      exhausted = asks.find((ask) => {
        const mark = this.exhausted.get(counterKey(ask));
        return mark !== undefined && mark.until > now && ask.need > mark.left && ask.limit <= mark.limit;
      });
      if (exhausted) break;
      if (this.leasing) {
        await this.leasing;
        continue;
      }
      const lease = this.lease(asks, now);
      this.leasing = lease;
      try {
        await lease;
      } finally {
        if (this.leasing === lease) this.leasing = undefined;
      }
      break;
    }

    // The counter found exhausted is the one that refuses: another may be short only of the lease
    // this request did not take for it.
    const short =
      (exhausted && needs.find(({ key }) => key === counterKey(exhausted!))) ?? needs.find(({ key, need }) => (this.held.get(key)?.remaining ?? 0) < need);
    if (short) {
      const billed = isBudget(short.id) ? await this.billedOf(short) : undefined;
      const refusal = this.refusal(short.id, short.limit, now, short.need, billed, this.rateHeaders(needs, now), false, demand.reckoning);
      await this.refuse(principal, short.id, short.limit, short.need, refusal, demand.refusalAnswered !== false);
    }
    this.inFlight += 1;
    const slots: Slot[] = needs.map(({ id, key, need }) => {
      const held = this.held.get(key)!;
      held.remaining = counterSum(id.counter, held.remaining, -need);
      held.lastUsed = now;
      return { key, id, amount: need };
    });
    return { slots, headers: this.rateHeaders(needs, now), budgets: plan.filter(isBudget) };
  }

  /**
   * The request was answered: tokens and credits it did not use go back to this process's blocks,
   * and its credits are billed into every counter of its scopes (the returned records, written with
   * its usage).
   */
  settle(admission: Admission, used: { tokens: number; credits: number }, at = Date.now()): SpendRecord[] {
    const slots = this.end(admission);
    const billing = used.credits > 0;
    const records: SpendRecord[] = [];
    // Only the budgets that apply are counted (a budget set later starts from the usage lines:
    // store.startBudgetCounters). Object literals: a spread copy costs V8 several times more.
    if (billing) {
      for (const planned of admission.budgets) {
        const start = windowId(planned.counter, at);
        records.push({
          scope_kind: planned.scope_kind,
          scope_id: planned.scope_id,
          counter: planned.counter,
          window_start: start,
          credits: used.credits,
          from_lease: 0,
          holder: this.holder,
        });
      }
    }
    for (const slot of slots) {
      const { counter } = slot.id;
      if (counter === 'requests') continue;
      const spent = Math.min(slot.amount, counter === 'tokens' ? used.tokens : used.credits);
      const record = counter === 'tokens' ? undefined : recordOf(records, slot.id);
      if (record && !this.held.has(slot.key)) {
        // This process gave its block of the budget back meanwhile (idle, or recalled by another
        // process): what the request did not use goes back with its bill, in the same statement,
        // rather than waiting for this process's next lease.
        record.from_lease = slot.amount;
        continue;
      }
      this.giveBack(slot, slot.amount - spent);
      if (record) record.from_lease = spent;
    }
    return records;
  }

  /**
   * The admission of a cache hit, which calls no provider and is never refused: it takes nothing
   * from the rate limits (its answer says what is left of them, as every chat answer does), and its
   * fee (the firewall's and the retrieval's) from the credit budgets, when they have room for it.
   * When one has none the fee is waived (`feeWaived`): what is billed never passes a budget, and a
   * script repeating one prompt cannot bill past it through the cache.
   */
  async admitCacheHit(principal: Principal, fee: number): Promise<Admission> {
    const now = Date.now();
    const plan = await this.planOf(principal, now);
    const headers = await this.currentRateHeaders(plan, now);
    if (fee <= 0 || !plan.some(isBudget)) return { slots: [], headers, budgets: plan.filter(isBudget) };
    try {
      const taken = await this.admit(principal, { tokens: () => 0, credits: () => fee, reckoning: CACHE_HIT_RECKONING, refusalAnswered: false }, isBudget);
      return { ...taken, headers };
    } catch (err) {
      if (err instanceof ApiError && err.code === 'budget_exhausted') return { slots: [], headers, budgets: [], feeWaived: err.message };
      throw err;
    }
  }

  /** `x-ratelimit-*` as the limits stand, for an answer that takes nothing from them (a replay). */
  async rateHeadersOf(principal: Principal): Promise<Record<string, string>> {
    const now = Date.now();
    return this.currentRateHeaders(await this.planOf(principal, now), now);
  }

  private async currentRateHeaders(plan: Planned[], now: number): Promise<Record<string, string>> {
    const needs: Need[] = [];
    for (const planned of plan) {
      if (!RATE_COUNTERS.has(planned.counter)) continue;
      const window = windowOf(planned, now);
      needs.push({ id: window.id, key: window.key, startMs: window.startMs, need: 0, limit: planned.limit });
    }
    if (needs.length === 0) return {};
    // A counter this process holds no block of in this window is read from Postgres: a cache hit
    // or a replay may be the first request a process serves for a key this minute.
    const unheld = needs.filter(({ key }) => !this.held.has(key));
    const leased = unheld.length > 0 ? await countersUsed(this.pool, unheld.map(({ id }) => id)) : undefined;
    return this.rateHeaders(needs, now, leased);
  }

  /** The request was not answered (nor billed): what it took, but the request itself, goes back. */
  release(admission: Admission): void {
    for (const slot of this.end(admission)) if (slot.id.counter !== 'requests') this.giveBack(slot, slot.amount);
  }

  /** The admission's slots the first time it ends, none after. */
  private end(admission: Admission): Slot[] {
    if (admission.ended || admission.slots.length === 0) return [];
    admission.ended = true;
    this.inFlight -= 1;
    return admission.slots;
  }

  /**
   * What to lease: every counter short of what the request needs and, when one is, every other
   * counter of the request below half a block, so that the counters run out together and one
   * statement refills them all. Empty when none is short.
   */
  private shortfalls(needs: Need[]): LeaseAsk[] {
    // The common case, every counter holding enough, allocates nothing.
    if (!needs.some(({ key, need }) => (this.held.get(key)?.remaining ?? 0) < need)) return [];
    const asks: LeaseAsk[] = [];
    for (const { id, key, need, limit } of needs) {
      const remaining = this.held.get(key)?.remaining ?? 0;
      const short = Math.max(0, counterSum(id.counter, need, -remaining));
      const block = blockFor(id.counter, limit, need, this.inFlight);
      if (short > 0 || remaining < block / 2) {
        asks.push({ scope_kind: id.scope_kind, scope_id: id.scope_id, counter: id.counter, window_start: id.window_start, need: short, block, limit });
      }
    }
    return asks;
  }

  private async lease(asks: LeaseAsk[], now: number): Promise<void> {
    const grants = await leaseCounters(this.pool, this.holder, asks, this.presence);
    const recalled = this.recallable(asks, grants);
    if (recalled.length > 0) {
      await this.recall(recalled.map((index) => grants[index]!));
      // Only what the request needs: at a budget this close to its end, a block held here would
      // be what the next process has to recall.
      const again = await leaseCounters(
        this.pool,
        this.holder,
        recalled.map((index) => ({ ...asks[index]!, block: asks[index]!.need })),
        this.presence,
      );
      recalled.forEach((index, position) => (grants[index] = again[position]!));
    }
    grants.forEach((grant, index) => {
      const key = counterKey(grant);
      const ask = asks[index]!;
      if (grant.granted === 0 && ask.need > 0) {
        const spent = !isBudget(ask) || counterSum(grant.counter, grant.billed, ask.need) > ask.limit;
        const recheck = spent ? EXHAUSTED_RECHECK_MS : HELD_ELSEWHERE_RECHECK_MS;
        this.exhausted.set(key, { until: now + recheck, left: Math.max(0, ask.limit - grant.taken), limit: ask.limit, billed: grant.billed });
      } else if (grant.granted > 0) {
        this.exhausted.delete(key);
      }
      const held = this.held.get(key) ?? { remaining: 0, limit: asks[index]!.limit, taken: 0, billed: 0, lastUsed: now };
      held.remaining = counterSum(grant.counter, held.remaining, grant.granted);
      held.limit = asks[index]!.limit;
      held.taken = grant.taken;
      held.billed = grant.billed;
      this.held.set(key, held);
    });
    this.forgetPastWindows(now);
  }

  /**
   * The asks worth a recall, by index: budgets that granted nothing but would fit if the other
   * processes gave back everything they hold of them (what they hold for requests in flight they
   * keep, so a request that does not fit beside those is still refused). None when any other
   * counter the request needs refused it: it would be refused anyway.
   */
  private recallable(asks: LeaseAsk[], grants: LeaseGrant[]): number[] {
    const recalled: number[] = [];
    for (const [index, grant] of grants.entries()) {
      const ask = asks[index]!;
      if (grant.granted > 0 || ask.need === 0) continue;
      if (!isBudget(ask) || grant.othersHold <= 0 || grant.taken - grant.othersHold + ask.need > ask.limit || this.closed) return [];
      recalled.push(index);
    }
    return recalled;
  }

  /**
   * Asks the processes that hold part of these budgets to give back what they hold unused
   * (giveBackRecalled, over the channel every web process listens to), and waits until each has
   * answered, RECALL_WAIT_MS at most: a process whose listener is down, or that died, does not
   * answer; what one that died held is then reclaimed (its presence lock is gone with it).
   */
  private async recall(grants: LeaseGrant[]): Promise<void> {
    const recall = randomUUID();
    const from = [...new Set(grants.flatMap((grant) => grant.otherHolders))].slice(0, RECALL_HOLDERS);
    let timer: NodeJS.Timeout | undefined;
    const waiting = new Set(from);
    const answered = new Promise<void>((resolve) => {
      this.recalls.set(recall, { waiting, answered: resolve });
      timer = setTimeout(resolve, RECALL_WAIT_MS);
    });
    try {
      await announceChange(this.pool, {
        kind: 'lease_recall',
        recall,
        by: this.holder,
        from,
        counters: grants.map((grant) => [grant.scope_kind, grant.scope_id, grant.counter, grant.window_start]),
      });
      await answered;
      // A holder that did not answer may have died (killed, out of memory): what it held goes back
      // now if its presence lock is gone, rather than when limits__reclaim finds it unseen.
      if (waiting.size > 0) await reclaimLeases(this.pool, { goneOf: [...waiting] });
    } finally {
      clearTimeout(timer);
      this.recalls.delete(recall);
    }
  }

  /** A holder answered one of this process's recalls. */
  recallAnswered(answer: LeaseRecallAnswer): void {
    if (answer.to !== this.holder) return;
    const recall = this.recalls.get(answer.recall);
    if (!recall) return;
    recall.waiting.delete(answer.by);
    if (recall.waiting.size === 0) recall.answered();
  }

  /**
   * Another process recalled budgets this process holds part of: what it holds of them unused goes
   * back to Postgres, and the recall is answered, in one statement. What requests in flight took
   * from them goes back with their bills (settle).
   */
  giveBackRecalled(recall: LeaseRecall): void {
    if (recall.by === this.holder || !recall.from.includes(this.holder) || this.closed) return;
    const keys = new Set<string>();
    const returns: (CounterId & { amount: number })[] = [];
    for (const [scope_kind, scope_id, counter, window_start] of recall.counters) {
      if (counter !== 'credits_day' && counter !== 'credits_month') continue;
      const id = { scope_kind: scope_kind as LimitLevel, scope_id, counter, window_start } satisfies CounterId;
      const key = counterKey(id);
      keys.add(key);
      const held = this.held.get(key);
      if (!held) continue;
      if (held.remaining > 0) returns.push({ ...id, amount: held.remaining });
      this.held.delete(key);
    }
    const kept = this.returning.filter((item) => !keys.has(counterKey(item)));
    returns.push(...this.returning.filter((item) => keys.has(counterKey(item))));
    this.returning = kept;
    const answer: LeaseRecallAnswer = { kind: 'lease_returned', recall: recall.recall, to: recall.by, by: this.holder };
    const giving = returnRecalled(this.pool, this.holder, returns, { channel: CONFIG_CHANNEL, payload: JSON.stringify(answer) })
      .catch((err: unknown) => {
        // Not given back: held as if idle, it goes back with the next idle return or at shutdown.
        this.returning.push(...returns);
        this.log.warn({ err }, 'could not give back recalled limit leases');
      })
      .finally(() => this.answering.delete(giving));
    this.answering.add(giving);
  }

  /** What a budget has billed, as the last lease of it saw it (what its 402 says is used). */
  private async billedOf(need: Need): Promise<number> {
    const billed = this.exhausted.get(need.key)?.billed ?? this.held.get(need.key)?.billed;
    if (billed !== undefined) return billed;
    return (await countersUsed(this.pool, [need.id])).get(need.key) ?? 0;
  }

  /**
   * Gives back to Postgres every block held (at shutdown), so other processes can use it, and what
   * requests still unsettled took: their answers are not billed by this process any more.
   */
  async close(): Promise<void> {
    this.closed = true;
    clearInterval(this.idleTimer);
    await Promise.all(this.answering);
    await this.returnIdle(Infinity);
    await reclaimLeases(this.pool, { holder: this.holder });
  }

  /**
   * A limit lowered since its block was leased: the block goes back (before the next lease), so the
   * new limit holds for the next request; requests in flight give back theirs when they end.
   */
  private dropIfLowered(key: string, limit: number): void {
    const held = this.held.get(key);
    if (!held || held.limit <= limit) return;
    if (held.remaining > 0) this.returning.push({ ...counterOf(key), amount: held.remaining });
    this.held.delete(key);
    this.exhausted.delete(key);
  }

  private giveBack(slot: Slot, amount: number): void {
    if (!(amount > 0)) return;
    const held = this.held.get(slot.key);
    if (held) held.remaining = counterSum(slot.id.counter, held.remaining, amount);
    else this.returning.push({ ...slot.id, amount });
  }

  private async giveBackReturning(): Promise<void> {
    const returns = this.returning;
    this.returning = [];
    await returnLeases(this.pool, this.holder, returns);
  }

  private async returnIdle(idleBefore: number): Promise<void> {
    const returns: (CounterId & { amount: number })[] = this.returning;
    this.returning = [];
    for (const [key, held] of this.held) {
      if (held.lastUsed >= idleBefore || held.remaining <= 0) continue;
      returns.push({ ...counterOf(key), amount: held.remaining });
      this.held.delete(key);
    }
    await returnLeases(this.pool, this.holder, returns);
  }

  private forgetPastWindows(now: number): void {
    for (const [key, mark] of this.exhausted) if (mark.until <= now) this.exhausted.delete(key);
    for (const key of this.held.keys()) {
      const [, , counter, start] = key.split('\0') as [string, string, Counter, string];
      if (windowEnd(counter, Date.parse(start)) <= now) this.held.delete(key);
    }
  }

  /**
   * A 429 or 402 for a counter. A budget's says what it has billed (`billed`): what requests in
   * flight reserved is not spent, and blocks that processes lease ahead of use even less so.
   * `spent`: a budget already used up, as opposed to one this request's worst case would pass.
   */
  private refusal(id: CounterId, limit: number, now: number, need: number, billed = 0, rateHeaders: Record<string, string> = {}, spent = false, reckoning?: Demand['reckoning']) {
    const resetsAt = windowEnd(id.counter, Date.parse(id.window_start));
    if (RATE_COUNTERS.has(id.counter)) {
      const what = id.counter === 'requests' ? `${limit} requests` : `${limit} tokens`;
      // Waiting does not help a request that alone counts more than the limit: say what would.
      const tooLarge = id.counter === 'tokens' && need > limit;
      const message = tooLarge
        ? `this request counts ${Math.ceil(need)} tokens (${reckoning?.tokens}), more than the ${id.scope_kind}'s limit of ${what} per minute; ${reckoning?.smaller}`
        : `the ${id.scope_kind}'s limit of ${what} per minute is reached; retry after the minute`;
      return rateLimited(message, Math.max(1, Math.ceil((resetsAt - now) / 1000)), { waitingHelps: !tooLarge, rateHeaders });
    }
    const window = id.counter === 'credits_day' ? 'day' : 'month';
    const starts = `the budget starts anew at ${new Date(resetsAt).toISOString()}`;
    return budgetExhausted(
      spent
        ? `the ${id.scope_kind}'s budget of ${plainCredits(limit)} credits per ${window} is spent; ${starts}`
        : `the ${id.scope_kind}'s budget of ${plainCredits(limit)} credits per ${window} would be passed: this request reserves up to ${plainCredits(need)} credits ` +
            `(${reckoning?.credits}); ${starts}`,
      {
        level: id.scope_kind,
        window,
        limit,
        used: Math.round(billed * 1e8) / 1e8,
        resets_at: new Date(resetsAt).toISOString(),
      },
    );
  }

  /**
   * OpenAI's `x-ratelimit-*` for the rate limit of each kind with the least left. `leased`: what
   * every process leased of counters this process holds no block of (read for the purpose).
   */
  private rateHeaders(needs: Need[], now: number, leased?: Map<string, number>): Record<string, string> {
    const headers: Record<string, string> = {};
    this.tightest(needs, 'requests', now, headers, leased, 'x-ratelimit-limit-requests', 'x-ratelimit-remaining-requests', 'x-ratelimit-reset-requests');
    this.tightest(needs, 'tokens', now, headers, leased, 'x-ratelimit-limit-tokens', 'x-ratelimit-remaining-tokens', 'x-ratelimit-reset-tokens');
    return headers;
  }

  private tightest(
    needs: Need[],
    counter: Counter,
    now: number,
    headers: Record<string, string>,
    leased: Map<string, number> | undefined,
    limitName: string,
    remainingName: string,
    resetName: string,
  ): void {
    let found: Need | undefined;
    let least = Infinity;
    for (const need of needs) {
      if (need.id.counter !== counter) continue;
      // Used over every process: what was leased, less what this process still holds unused. A
      // counter refused before any lease of it is held has no figures yet, unless they were read.
      const held = this.held.get(need.key);
      const used = held !== undefined ? held.taken - held.remaining : leased?.get(need.key) ?? (leased ? 0 : undefined);
      if (used === undefined) continue;
      const remaining = Math.max(0, Math.floor(need.limit - used));
      if (remaining < least) {
        least = remaining;
        found = need;
      }
    }
    if (!found) return;
    headers[limitName] = String(found.limit);
    headers[remainingName] = String(least);
    headers[resetName] = openAiDuration(windowEnd(counter, found.startMs) - now);
  }
}

/**
 * The credits of the service's own work for a workspace (an ingest, a fact extraction) as billed
 * into the day and month counters of the workspace and its organization. Written whether or not a
 * budget applies (the work is rare, and the worker does not know the limits): a budget set later
 * starts from the usage lines anyway.
 */
export function spendRecords(owner: { workspaceId: string; organizationId: string }, credits: number, at: number): SpendRecord[] {
  if (!(credits > 0)) return [];
  const records: SpendRecord[] = [];
  for (const [scope_kind, scope_id] of [
    ['workspace', owner.workspaceId],
    ['organization', owner.organizationId],
  ] as const) {
    for (const counter of ['credits_day', 'credits_month'] as const) {
      records.push({ scope_kind, scope_id, counter, window_start: windowId(counter, at), credits, from_lease: 0, holder: null });
    }
  }
  return records;
}
