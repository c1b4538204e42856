import { countCircuitOpen, setCircuitState, type CircuitOpenReason } from '../metrics.js';
import { DEFAULT_CIRCUIT, type CatalogProvider, type CircuitSettings } from './catalog.js';
import { PROVIDER_ACCOUNT_STATUSES, UpstreamError } from './providers/types.js';

// A circuit breaker per provider endpoint, so that a sick provider costs its timeout a few times,
// not on every request. A small state machine rather than cockatiel or opossum: the gateway
// already has its own call, timeout and fallback loop (fallback.ts), and needs only the decision
// "call this endpoint now, probe it, or skip it until when", which is a few dozen lines.
//
//   closed ──(settings.failures consecutive failures)──▶ open ──(cooldown passed)──▶ half-open
//   half-open: exactly one request probes it, the others skip it meanwhile;
//              success → closed (cooldown back to its start), failure → open, cooldown doubled
//   any state ──(429 with retry-after)──▶ open until then
//
// Failures: connection errors, timeouts, 5xx and 408 (the provider's own timeout), and malformed
// answers. A 4xx caller error shows the endpoint answering, so it counts as a success; a client
// that went away, or a 429 without retry-after, says nothing about the endpoint either way.
// Each open lasts between 80 % and 100 % of its cooldown (jitter), so that processes which saw
// the same failures do not all probe at the same instant.
//
// State is per process: each web and worker process learns about an endpoint from its own calls.

export type CircuitState = 'closed' | 'half_open' | 'open';

/** May the call go ahead: as a normal call, as the one probe of a half-open circuit, or not before `retryAt`. */
export type Admission = { admitted: true; probe: boolean } | { admitted: false; retryAt: number };

/** What a finished call tells the breaker about its endpoint. */
export type Verdict =
  | { kind: 'success' }
  | { kind: 'failure' }
  | { kind: 'neutral' }
  | { kind: 'rate_limited'; untilMs: number };

/** The call was answered (or refused as a caller error, which also shows the endpoint answering). */
export const SUCCESS: Verdict = { kind: 'success' };
const FAILURE: Verdict = { kind: 'failure' };
/** Nothing learnt about the endpoint (the client went away, or something failed on our side). */
export const NEUTRAL: Verdict = { kind: 'neutral' };

/** The smallest fraction of its cooldown an open lasts (the jitter takes off up to the rest). */
const JITTER_FLOOR = 0.8;

export interface BreakerOptions {
  /** Milliseconds since the epoch (injected by the unit tests). */
  now?: () => number;
  /** In [0, 1), for the jitter. */
  random?: () => number;
  /** Called on every change of state, and when the circuit opens (with why). */
  onState?: (state: CircuitState) => void;
  onOpen?: (reason: CircuitOpenReason) => void;
}

export class CircuitBreaker {
  private state: CircuitState = 'closed';
  private consecutiveFailures = 0;
  /** How long the next open after failures lasts (before jitter). */
  private nextCooldownMs: number;
  private openUntil = 0;
  private probing = false;
  private readonly now: () => number;
  private readonly random: () => number;

  constructor(
    readonly settings: CircuitSettings,
    private readonly options: BreakerOptions = {},
  ) {
    this.nextCooldownMs = settings.cooldownMs;
    this.now = options.now ?? Date.now;
    this.random = options.random ?? Math.random;
  }

  /** `failures: 0` in the catalogue turns the breaker off: every call is admitted. */
  get enabled(): boolean {
    return this.settings.failures > 0;
  }

  /** The state as last decided (an open circuit whose cooldown has passed turns half-open on the next admit). */
  get current(): CircuitState {
    return this.state;
  }

  admit(): Admission {
    if (!this.enabled || this.state === 'closed') return { admitted: true, probe: false };
    const now = this.now();
    if (this.state === 'open') {
      if (now < this.openUntil) return { admitted: false, retryAt: this.openUntil };
      this.moveTo('half_open');
    }
    // Half-open: one probe at a time. The others are told to come back at once, since the probe
    // will have decided by then (or be near its timeout).
    if (this.probing) return { admitted: false, retryAt: now };
    this.probing = true;
    return { admitted: true, probe: true };
  }

  /** The outcome of a call that admit() let through. */
  record(admission: Admission, verdict: Verdict): void {
    if (!this.enabled || !admission.admitted) return;
    const probe = admission.probe;
    if (probe) this.probing = false;
    switch (verdict.kind) {
      case 'success':
        if (probe) {
          this.consecutiveFailures = 0;
          this.nextCooldownMs = this.settings.cooldownMs;
          this.moveTo('closed');
        } else if (this.state === 'closed') {
          this.consecutiveFailures = 0;
        }
        return;
      case 'failure':
        if (probe) {
          this.openForCooldown('probe_failed');
        } else if (this.state === 'closed') {
          this.consecutiveFailures += 1;
          if (this.consecutiveFailures >= this.settings.failures) this.openForCooldown('failures');
        }
        // A call admitted before the circuit opened, failing after: already accounted for.
        return;
      case 'rate_limited': {
        const until = Math.min(verdict.untilMs, this.now() + this.settings.maxCooldownMs);
        if (this.state === 'open') {
          this.openUntil = Math.max(this.openUntil, until);
          return;
        }
        this.openUntil = until;
        this.moveTo('open');
        this.options.onOpen?.('rate_limited');
        return;
      }
      case 'neutral':
        // A probe that decided nothing leaves the circuit half-open: the next request probes.
        return;
    }
  }

  private openForCooldown(reason: CircuitOpenReason): void {
    const cooldown = this.nextCooldownMs;
    this.nextCooldownMs = Math.min(this.settings.maxCooldownMs, cooldown * 2);
    this.openUntil = this.now() + Math.ceil(cooldown * (JITTER_FLOOR + (1 - JITTER_FLOOR) * (1 - this.random())));
    this.consecutiveFailures = 0;
    this.moveTo('open');
    this.options.onOpen?.(reason);
  }

  private moveTo(state: CircuitState): void {
    if (this.state === state) return;
    this.state = state;
    this.options.onState?.(state);
  }
}

/** How the breaker reads a call's failure; see the header for why each counts or not. */
export function verdictOf(err: unknown, now = Date.now()): Verdict {
  if (!(err instanceof UpstreamError)) return NEUTRAL;
  switch (err.kind) {
    case 'aborted':
      return NEUTRAL;
    case 'timeout':
      // A call that waited for one of this process's connections to it says nothing of the provider.
      return err.queued ? NEUTRAL : FAILURE;
    case 'connect':
    case 'protocol':
      return FAILURE;
    case 'status': {
      const status = err.status ?? 0;
      // A refused key or an unpaid account stays so until the operator acts: skipped like a provider that is down.
      if (status >= 500 || status === 408 || PROVIDER_ACCOUNT_STATUSES.has(status)) return FAILURE;
      if (status === 429) {
        const until = retryAfterMs(err.retryAfter, now);
        return until === undefined ? NEUTRAL : { kind: 'rate_limited', untilMs: until };
      }
      return SUCCESS;
    }
  }
}

/** `retry-after` (seconds, or an HTTP date) as the instant it points to; undefined when absent, unreadable or not in the future. */
export function retryAfterMs(value: string | undefined, now: number): number | undefined {
  if (value === undefined) return undefined;
  const text = value.trim();
  let until: number;
  if (/^\d+(\.\d+)?$/.test(text)) until = now + Number(text) * 1000;
  else {
    const date = Date.parse(text);
    if (Number.isNaN(date)) return undefined;
    until = date;
  }
  return until > now ? until : undefined;
}

// One breaker per provider endpoint. A catalogue provider is one endpoint (its base URL), and the
// catalogue is loaded once per process, so the provider object is the key: a WeakMap keyed by it
// gives each process its breakers, and each catalogue loaded in a test its own. A `local` provider
// runs in the process and has no endpoint to break.
const breakers = new WeakMap<CatalogProvider, CircuitBreaker>();

const STATE_VALUES: Record<CircuitState, 0 | 1 | 2> = { closed: 0, half_open: 1, open: 2 };

const OFF: CircuitSettings = Object.freeze({ failures: 0, cooldownMs: 1, maxCooldownMs: 1 });

/** The breaker of a provider's endpoint (one that admits every call when it is off, or the provider is local). */
export function breakerFor(provider: CatalogProvider): CircuitBreaker {
  let breaker = breakers.get(provider);
  if (!breaker) {
    const settings = provider.kind === 'local' ? OFF : (provider.circuit ?? DEFAULT_CIRCUIT);
    breaker = new CircuitBreaker(settings, {
      onState: (state) => setCircuitState(provider.id, STATE_VALUES[state]),
      onOpen: (reason) => countCircuitOpen(provider.id, reason),
    });
    breakers.set(provider, breaker);
    if (breaker.enabled) setCircuitState(provider.id, 0);
  }
  return breaker;
}
