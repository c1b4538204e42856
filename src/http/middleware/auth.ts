import type { Next } from 'koa';
import { ApiError, insufficientScope, unauthorized } from '../../errors.js';
import { ExpiredKey, isWellFormedKey, type KeyResolver } from '../../tenancy/keys.js';
import type { Scope } from '../../tenancy/scopes.js';
import type { AppContext } from '../state.js';

const BEARER = /^Bearer\s+(\S+)\s*$/i;

export function authenticate(keys: KeyResolver) {
  return async function authenticateMiddleware(ctx: AppContext, next: Next): Promise<void> {
    const header = ctx.get('authorization');
    // Anthropic's clients send the key as x-api-key (decision 0006); Authorization wins when both come.
    const apiKeyHeader = ctx.get('x-api-key').trim();
    if (!header && !apiKeyHeader) {
      // The Messages door's clients know the x-api-key header; the others, Authorization.
      throw unauthorized(
        ctx.state.errorShape === 'anthropic'
          ? 'missing API key; send "x-api-key: <API key>" or "Authorization: Bearer <API key>"'
          : 'missing Authorization header; send "Authorization: Bearer <API key>"',
      );
    }
    const secret = header ? BEARER.exec(header)?.[1] : apiKeyHeader;
    if (!secret) throw unauthorized('malformed Authorization header; send "Authorization: Bearer <API key>"');
    // A malformed token cannot match any key, so it costs no lookup.
    const identified = isWellFormedKey(secret) ? await keys.identify(secret) : undefined;
    if (!identified) throw unauthorized('invalid or revoked API key');
    if (identified instanceof ExpiredKey) {
      throw unauthorized(
        `this API key expired at ${identified.expiredAt.toISOString()}; an organization key can extend its expiry (PATCH /v1/keys/${identified.keyId}) or create a new key`,
      );
    }
    ctx.state.principal = identified;
    await next();
  };
}

export function requireScope(scope: Scope) {
  return async function requireScopeMiddleware(ctx: AppContext, next: Next): Promise<void> {
    if (!ctx.state.principal?.scopes.includes(scope)) throw insufficientScope(scope);
    await next();
  };
}

/** For what only an organization key may do, whatever scopes a restricted key holds. */
export function requireOrganizationKey(forWhat: string) {
  return async function requireOrganizationKeyMiddleware(ctx: AppContext, next: Next): Promise<void> {
    if (ctx.state.principal?.kind !== 'organization') {
      throw new ApiError({
        status: 403,
        message: `${forWhat} needs an organization key; this is a restricted key`,
        type: 'permission_error',
        code: 'insufficient_scope',
      });
    }
    await next();
  };
}
