import type { Next } from 'koa';
import { insufficientScope, unauthorized } from '../../errors.js';
import { isWellFormedKey, type KeyResolver } from '../../tenancy/keys.js';
import type { Scope } from '../../tenancy/scopes.js';
import type { AppContext } from '../state.js';

const BEARER = /^Bearer\s+(\S+)\s*$/i;

export function authenticate(keys: KeyResolver) {
  return async function authenticateMiddleware(ctx: AppContext, next: Next): Promise<void> {
    const header = ctx.get('authorization');
    if (!header) throw unauthorized('missing Authorization header; send "Authorization: Bearer <API key>"');
    const secret = BEARER.exec(header)?.[1];
    if (!secret) throw unauthorized('malformed Authorization header; send "Authorization: Bearer <API key>"');
    // A malformed token cannot match any key, so it costs no lookup.
    const principal = isWellFormedKey(secret) ? await keys.resolve(secret) : undefined;
    if (!principal) throw unauthorized('invalid or revoked API key');
    ctx.state.principal = principal;
    await next();
  };
}

export function requireScope(scope: Scope) {
  return async function requireScopeMiddleware(ctx: AppContext, next: Next): Promise<void> {
    if (!ctx.state.principal?.scopes.includes(scope)) throw insufficientScope(scope);
    await next();
  };
}
