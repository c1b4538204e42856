import type { ParameterizedContext } from 'koa';
import type Router from '@koa/router';
import type { Pool, PoolClient } from '../db/pool.js';
import type { ErrorShape } from '../errors.js';
import type { Logger } from '../logger.js';
import { runOnce, type IdempotencyContext, type RequestKind, type StoredResponse } from '../metering/requestIds.js';
import type { Principal } from '../tenancy/store.js';

export interface AppState {
  requestId: string;
  /** The request id came from the caller (X-Request-Id or Idempotency-Key), not generated. */
  requestIdGiven: boolean;
  /** The presence key of this process (db/presence.ts), which its claims of request ids carry. */
  claimHolder?: number;
  /** Aborted (with ServerStopping) when the web process stops the requests it still handles. */
  stopSignal?: AbortSignal;
  log: Logger;
  principal?: Principal;
  /** The parsed and validated JSON body, set by the body and validation middleware. */
  body?: unknown;
  /** The parsed and validated query, set by the validation middleware. */
  query?: Record<string, unknown>;
  /** Set by a door whose clients read errors in another shape (see errors.ts). */
  errorShape?: ErrorShape;
  /**
   * Set by a vendor's door: its coding agents act on a prompt too long for the context only when it
   * is answered as their vendor answers it, a 400 (decision 0037).
   */
  door?: 'messages' | 'responses';
  /** How an event stream ended when not as its 200 header said (sse.ts streamEndedAs): 499 or 502. */
  streamStatus?: number;
}

export type AppContext = ParameterizedContext<AppState>;
export type AppRouter = Router<AppState>;

/** The acting key; routes behind `authenticate` can rely on it. */
export function principalOf(ctx: AppContext): Principal {
  const principal = ctx.state.principal;
  if (!principal) throw new Error('route is not behind authenticate()');
  return principal;
}

/** Who asks and under which request id, and whether the caller chose it (then a retry may follow). */
export function idempotencyOf(ctx: AppContext): IdempotencyContext & { principal: Principal } {
  return { principal: principalOf(ctx), requestId: ctx.state.requestId, callerRequestId: ctx.state.requestIdGiven, claimHolder: ctx.state.claimHolder };
}

/** Sends an answer that may be a replay of a stored one. */
export function reply(ctx: AppContext, response: StoredResponse): void {
  ctx.status = response.status ?? 200;
  ctx.set(response.headers);
  ctx.body = response.body;
}

/**
 * Answers a POST that creates something, at most once per caller-chosen request id (runOnce):
 * `create` runs in the transaction that completes the claim and returns the body to send; a retry
 * gets the first answer again. `admit` (a budget check) runs before, on a connection of its own.
 */
export async function createOnce(
  ctx: AppContext,
  pool: Pool,
  {
    kind,
    status,
    admit,
    endUser = null,
  }: { kind: RequestKind; status: number; admit?: (principal: Principal) => Promise<void>; endUser?: string | null },
  create: (db: PoolClient, principal: Principal) => Promise<Record<string, unknown>>,
): Promise<void> {
  const request = { ...idempotencyOf(ctx), kind, body: ctx.state.body as Record<string, unknown> };
  reply(
    ctx,
    await runOnce(
      pool,
      request,
      async (db) => ({ status, body: await create(db, request.principal), headers: {} }),
      admit && (() => admit(request.principal)),
      { endUser, factIds: [] },
    ),
  );
}
