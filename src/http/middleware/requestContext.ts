import { randomUUID } from 'node:crypto';
import type { Next } from 'koa';
import type { Logger } from '../../logger.js';
import type { AppContext } from '../state.js';

const MAX_REQUEST_ID_LENGTH = 255;

// The caller's own id makes retries idempotent, so it is taken as given when it fits the contract.
function givenRequestId(ctx: AppContext): string | undefined {
  const given = ctx.get('x-request-id') || ctx.get('idempotency-key');
  return given && given.length <= MAX_REQUEST_ID_LENGTH ? given : undefined;
}

/** Request id, a child logger per request, and one access-log line when the response is done. */
export function requestContext(rootLog: Logger) {
  return async function requestContextMiddleware(ctx: AppContext, next: Next): Promise<void> {
    const started = process.hrtime.bigint();
    const given = givenRequestId(ctx);
    const requestId = given ?? randomUUID();
    ctx.state.requestId = requestId;
    ctx.state.requestIdGiven = given !== undefined;
    ctx.state.log = rootLog.child({ request_id: requestId });
    ctx.set('X-Request-Id', requestId);
    try {
      await next();
    } finally {
      const principal = ctx.state.principal;
      ctx.state.log.info(
        {
          req: { method: ctx.method, url: ctx.url, headers: ctx.headers },
          status: ctx.status,
          duration_ms: Number(process.hrtime.bigint() - started) / 1e6,
          ...(principal ? { key_id: principal.keyId, workspace_id: principal.workspaceId } : {}),
        },
        'request',
      );
    }
  };
}
