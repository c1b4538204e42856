import type { Next } from 'koa';
import type { AppContext } from '../state.js';

// Browser apps call the API as they call OpenAI's (its SDK with `dangerouslyAllowBrowser`), which
// answers CORS. A key travels in a header, never in a cookie: a page can use one only when it holds
// it, so any origin may be answered (docs/decisions/0035-cors-for-any-origin.md). Preflights are
// answered here, before authentication, which a browser's preflight never carries.

const API_PATH = /^\/v1(\/|$)/;
const ALLOWED_METHODS = 'GET, HEAD, POST, PUT, PATCH, DELETE';
// What a client reads from an answer besides the CORS-safelisted headers.
const EXPOSED_HEADERS = [
  'x-request-id',
  'request-id',
  'x-replay',
  'x-model',
  'x-provider',
  'x-cache',
  'retry-after',
  'x-should-retry',
  'x-ratelimit-limit-requests',
  'x-ratelimit-remaining-requests',
  'x-ratelimit-reset-requests',
  'x-ratelimit-limit-tokens',
  'x-ratelimit-remaining-tokens',
  'x-ratelimit-reset-tokens',
].join(', ');
// A preflight's list of headers is echoed (the SDKs send their own x-stainless-* ones), within reason.
const MAX_REQUESTED_HEADERS_CHARS = 2048;
const HEADER_LIST = /^[A-Za-z0-9!#$%&'*+.^_`|~-]+(?:\s*,\s*[A-Za-z0-9!#$%&'*+.^_`|~-]+)*$/;

export async function cors(ctx: AppContext, next: Next): Promise<void> {
  if (!API_PATH.test(ctx.path) || !ctx.get('origin')) return next();
  ctx.set('Access-Control-Allow-Origin', '*');
  const method = ctx.get('access-control-request-method');
  if (ctx.method === 'OPTIONS' && method) {
    const requested = ctx.get('access-control-request-headers').trim();
    if (requested && requested.length <= MAX_REQUESTED_HEADERS_CHARS && HEADER_LIST.test(requested)) {
      ctx.set('Access-Control-Allow-Headers', requested);
    }
    ctx.set('Access-Control-Allow-Methods', ALLOWED_METHODS);
    ctx.set('Access-Control-Max-Age', '600');
    ctx.status = 204;
    return;
  }
  ctx.set('Access-Control-Expose-Headers', EXPOSED_HEADERS);
  await next();
}
