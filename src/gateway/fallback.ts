import { ApiError, clientGone, ServerStopping, serverStopping } from '../errors.js';
import { breakerFor, SUCCESS, verdictOf } from './breaker.js';
import { countFallback, observeUpstreamAttempt, upstreamOutcomeOf } from '../metrics.js';
import type { CatalogModel } from './catalog.js';
import { UpstreamError } from './providers/types.js';
import type { Candidate, RoutingPlan } from './routing.js';

export interface Attempt {
  model: string;
  provider: string;
  status: number | null;
  error: string | null;
  latency_ms: number;
}

export interface Served<R, M extends CatalogModel> {
  result: R;
  candidate: Candidate<M>;
  attempts: Attempt[];
}

/** Thrown when the chain ended on a failure; carries the attempts for the trace. */
export class ChainFailed extends Error {
  constructor(
    readonly apiError: ApiError,
    readonly attempts: Attempt[],
  ) {
    super(apiError.message);
  }
}



/** The attempt error of an endpoint skipped by its circuit breaker (in traces and 503 bodies). */
export const CIRCUIT_OPEN = 'skipped: circuit open';

/**
 * Tries the plan's candidates in order until one answers. A provider that is unavailable
 * (connection error, timeout, 408, 429, 5xx, a refused key or unpaid account of the gateway's:
 * 401, 402, 403, or a stream failing before its first byte) moves the chain on; any other upstream
 * 4xx stops it with 400 upstream_rejected, because the next provider
 * would refuse the same request. An endpoint whose circuit is open (breaker.ts) is skipped at once,
 * as an unavailable one; when every candidate was skipped so, the 503 says when the first reopens.
 */
export async function firstThatAnswers<R, M extends CatalogModel>(
  plan: RoutingPlan<M>,
  call: (candidate: Candidate<M>) => Promise<R>,
): Promise<Served<R, M>> {
  const attempts: Attempt[] = [];
  // Providers that could not be tried are listed where the chain reached them, so that the
  // attempts read in the order the chain went.
  let skippedListed = 0;
  const listSkippedBefore = (index: number) => {
    for (; skippedListed < plan.skipped.length && plan.skipped[skippedListed]!.before <= index; skippedListed++) {
      const s = plan.skipped[skippedListed]!;
      attempts.push({ model: s.model, provider: s.provider, status: null, error: `not configured: ${s.reason}`, latency_ms: 0 });
    }
  };
  let retryAfter: string | undefined;
  let reopensAt: number | undefined; // the earliest an endpoint skipped for its circuit may be tried again
  let called = false;
  for (const [index, candidate] of plan.candidates.entries()) {
    listSkippedBefore(index);
    const provider = candidate.target.provider.id;
    const breaker = breakerFor(candidate.target.provider);
    const admission = breaker.admit();
    if (!admission.admitted) {
      attempts.push({ model: candidate.model.id, provider, status: null, error: CIRCUIT_OPEN, latency_ms: 0 });
      reopensAt = Math.min(reopensAt ?? Infinity, admission.retryAt);
      const next = plan.candidates[index + 1];
      if (next) countFallback(provider, next.target.provider.id);
      continue;
    }
    called = true;
    const started = performance.now();
    try {
      const result = await call(candidate);
      breaker.record(admission, SUCCESS);
      observeUpstreamAttempt(provider, 'ok', (performance.now() - started) / 1000);
      attempts.push({
        model: candidate.model.id,
        provider: candidate.target.provider.id,
        status: 200,
        error: null,
        latency_ms: performance.now() - started,
      });
      return { result, candidate, attempts };
    } catch (err) {
      breaker.record(admission, verdictOf(err));
      if (!(err instanceof UpstreamError)) throw err;
      observeUpstreamAttempt(provider, upstreamOutcomeOf(err), (performance.now() - started) / 1000);
      attempts.push({
        model: candidate.model.id,
        provider: candidate.target.provider.id,
        status: err.status ?? null,
        error: err.message,
        latency_ms: performance.now() - started,
      });
      if (err.kind === 'aborted') throw new ChainFailed(clientGone(), attempts);
      if (!err.retryable) {
        throw new ChainFailed(
          new ApiError({
            status: 400,
            message: `${candidate.target.provider.id} rejected the request: ${err.upstreamMessage ?? err.message}`,
            type: 'invalid_request_error',
            code: 'upstream_rejected',
            fields: { provider: candidate.target.provider.id },
          }),
          attempts,
        );
      }
      retryAfter = err.retryAfter ?? retryAfter;
      const next = plan.candidates[index + 1];
      if (next) countFallback(provider, next.target.provider.id);
    }
  }
  listSkippedBefore(plan.candidates.length);
  // Every candidate skipped for its circuit: nothing was asked, so the earliest reopening is the
  // earliest a retry can do better (rounded up to whole seconds, at least 1).
  if (!called && reopensAt !== undefined) {
    retryAfter = String(Math.max(1, Math.ceil((reopensAt - Date.now()) / 1000)));
  }
  throw new ChainFailed(
    new ApiError({
      status: 503,
      message: 'every model and provider in the chain is unavailable',
      type: 'api_error',
      code: 'providers_unavailable',
      fields: { attempts: attempts.map(({ latency_ms: _latency, ...attempt }) => attempt) },
      ...(retryAfter ? { headers: { 'retry-after': retryAfter } } : {}),
    }),
    attempts,
  );
}

/**
 * A chain its signal aborted: the client left (499), or the web process stopped the request at
 * shutdown (503, retried elsewhere).
 */
export function abortedBy(err: unknown, signal: AbortSignal): unknown {
  if (err instanceof ChainFailed && err.apiError.code === 'client_closed' && signal.reason instanceof ServerStopping) {
    return new ChainFailed(serverStopping(), err.attempts);
  }
  return err;
}


/** What a failed call is traced and audited with: its status, the error shown, and the attempts made. */
export function failureOf(err: unknown, servedAttempts: Attempt[] = []): { status: number; message: string; attempts: Attempt[] } {
  const apiError = err instanceof ChainFailed ? err.apiError : err instanceof ApiError ? err : undefined;
  return {
    status: apiError?.status ?? 502,
    message: apiError?.message ?? (err instanceof Error ? err.message : String(err)),
    attempts: err instanceof ChainFailed ? err.attempts : servedAttempts,
  };
}
