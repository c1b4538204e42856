import { createHash, randomUUID } from 'node:crypto';
import type { Next } from 'koa';
import type { Logger } from '../../logger.js';
import { observeHttpRequest, UNMATCHED_ROUTE } from '../../metrics.js';
import type { AppContext } from '../state.js';

const MAX_REQUEST_ID_LENGTH = 255;

// The caller's own id makes retries idempotent, so it is taken as given when it fits the contract.
// A longer one is replaced by a UUID (CONTRACT.md), made from it rather than at random: a retry
// with the same long Idempotency-Key gets the same UUID, and is replayed, not billed twice.
function givenRequestId(ctx: AppContext): string | undefined {
  const header = ctx.get('x-request-id') || ctx.get('idempotency-key');
  if (!header) return undefined;
  const id = utf8Of(header);
  return id.length <= MAX_REQUEST_ID_LENGTH ? id : uuidOf(id);
}

/** A UUID (version 8: made by our own rule) that is a SHA-256 of the id. */
function uuidOf(id: string): string {
  const hash = createHash('sha256').update('polder request id\0').update(id).digest();
  hash[6] = (hash[6]! & 0x0f) | 0x80;
  hash[8] = (hash[8]! & 0x3f) | 0x80;
  const hex = hash.subarray(0, 16).toString('hex');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20, 32)}`;
}

const UTF8 = new TextDecoder('utf-8', { fatal: true });
const ASCII = /^[\x00-\x7f]*$/;

/**
 * Node hands a header over as Latin-1, one character per byte: an id sent in UTF-8 ("Zoë") would
 * be stored, and shown in traces, as "ZoÃ«". Bytes that are valid UTF-8 are read as UTF-8.
 */
function utf8Of(header: string): string {
  if (ASCII.test(header)) return header;
  try {
    return UTF8.decode(Buffer.from(header, 'latin1'));
  } catch {
    return header;
  }
}

interface MatchedLayer {
  path: string | RegExp;
  methods: string[];
}

// The route pattern that served the request (e.g. /v1/traces/:id), for metric labels: a raw URL
// carries ids and would make a series per request. @koa/router lists the layers whose path
// matched; the route is the last one that takes this method (a 401 from the auth middleware still
// names the route it guarded; a 404 or 405 names none).
function routeOf(ctx: AppContext): string {
  const matched = (ctx as { matched?: MatchedLayer[] }).matched;
  if (matched) {
    for (let i = matched.length - 1; i >= 0; i--) {
      const layer = matched[i]!;
      if (layer.methods.includes(ctx.method)) return String(layer.path);
    }
  }
  return UNMATCHED_ROUTE;
}

// The access log keeps what an operator needs (path, parameter names, paging and grouping) and
// leaves out what can name an end-user or carry their words: `user_ref`, `user`, `q`, tags, thread
// names chosen by the caller, in the query or in the path.
const LOGGED_QUERY_VALUES = new Set(['limit', 'cursor', 'from', 'to', 'group_by', 'action', 'model', 'collection', 'application', 'trace_id']);
const PERSONAL_PATH_PARAMS = ['thread'];
const REDACTED = '[redacted]';

// Headers are logged by name, with the value only of those known to hold nothing secret or
// personal: a caller may put a key in any header (X-Goog-Api-Key, X-Auth-Token), and a proxy an
// address (X-Forwarded-For). The logger's redaction of credential headers stays as a second guard.
const LOGGED_HEADER_VALUES = new Set([
  'host',
  'user-agent',
  'accept',
  'accept-encoding',
  'content-type',
  'content-length',
  'content-encoding',
  'transfer-encoding',
  'connection',
  'x-request-id',
  'idempotency-key',
  'traceparent',
  'anthropic-version',
  'anthropic-beta',
  'openai-beta',
  'x-stainless-lang',
  'x-stainless-package-version',
  'x-stainless-runtime',
  'x-stainless-runtime-version',
  'x-stainless-retry-count',
]);

function loggableHeaders(headers: AppContext['headers']): Record<string, unknown> {
  const logged: Record<string, unknown> = {};
  for (const name in headers) logged[name] = LOGGED_HEADER_VALUES.has(name) ? headers[name] : REDACTED;
  return logged;
}

function loggableUrl(ctx: AppContext): string {
  let path = ctx.path;
  const params = (ctx as { params?: Record<string, string> }).params ?? {};
  for (const name of PERSONAL_PATH_PARAMS) {
    const value = params[name];
    if (value) path = path.replace(`/${encodeURIComponent(value)}`, `/${REDACTED}`).replace(`/${value}`, `/${REDACTED}`);
  }
  if (ctx.querystring === '') return path;
  const query = [...new URLSearchParams(ctx.querystring)]
    .map(([name, value]) => `${encodeURIComponent(name)}=${LOGGED_QUERY_VALUES.has(name) ? encodeURIComponent(value) : REDACTED}`)
    .join('&');
  return `${path}?${query}`;
}

/**
 * The status an operator should see of an event stream (written by the handler itself, Koa out
 * of the way), as its trace says, not the 200 its header went out with: 499 when the client left
 * before its end was written or its handler saw it go, 502 when it ended with an error event
 * (sse.ts streamEndedAs).
 */
function answeredStatus(ctx: AppContext): number {
  if (ctx.respond !== false || !ctx.res.headersSent) return ctx.status;
  if (!ctx.res.writableEnded) return CLIENT_CLOSED;
  return ctx.state.streamStatus ?? ctx.status;
}
const CLIENT_CLOSED = 499;

/** Request id, a child logger per request, one access-log line and the request metrics when the response is done. */
export function requestContext(rootLog: Logger, claimHolder?: number) {
  return async function requestContextMiddleware(ctx: AppContext, next: Next): Promise<void> {
    const started = process.hrtime.bigint();
    const given = givenRequestId(ctx);
    const requestId = given ?? randomUUID();
    ctx.state.requestId = requestId;
    ctx.state.requestIdGiven = given !== undefined;
    ctx.state.claimHolder = claimHolder;
    ctx.state.log = rootLog.child({ request_id: requestId });
    // Every answer carries it, event streams included (writeHead keeps headers set before it). Node
    // writes a header's characters as UTF-8 or as Latin-1 depending on the body, so an id that is
    // not ASCII is echoed percent-encoded: the form it takes in /v1/traces/{id}.
    ctx.set('X-Request-Id', ASCII.test(requestId) ? requestId : encodeURIComponent(requestId));
    try {
      await next();
    } finally {
      const principal = ctx.state.principal;
      const durationMs = Number(process.hrtime.bigint() - started) / 1e6;
      const status = answeredStatus(ctx);
      observeHttpRequest(ctx.method, routeOf(ctx), status, durationMs / 1000);
      // A failure the client saw (5xx) is logged at warn, so that LOG_LEVEL=warn, which drops the
      // access line of every answered request, still shows it with the request id the client has.
      ctx.state.log[status >= 500 ? 'warn' : 'info'](
        {
          req: { method: ctx.method, url: loggableUrl(ctx), headers: loggableHeaders(ctx.headers) },
          status,
          duration_ms: durationMs,
          ...(principal ? { key_id: principal.keyId, workspace_id: principal.workspaceId } : {}),
        },
        'request',
      );
    }
  };
}
