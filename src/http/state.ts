import type { ParameterizedContext } from 'koa';
import type Router from '@koa/router';
import type { Logger } from '../logger.js';
import type { Principal } from '../tenancy/store.js';

export interface AppState {
  requestId: string;
  /** The request id came from the caller (X-Request-Id or Idempotency-Key), not generated. */
  requestIdGiven: boolean;
  log: Logger;
  principal?: Principal;
  /** The parsed and validated JSON body, set by the body and validation middleware. */
  body?: unknown;
  /** The parsed and validated query, set by the validation middleware. */
  query?: Record<string, unknown>;
}

export type AppContext = ParameterizedContext<AppState>;
export type AppRouter = Router<AppState>;

/** The acting key; routes behind `authenticate` can rely on it. */
export function principalOf(ctx: AppContext): Principal {
  const principal = ctx.state.principal;
  if (!principal) throw new Error('route is not behind authenticate()');
  return principal;
}
