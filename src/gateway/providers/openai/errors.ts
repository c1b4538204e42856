// Turning what can go wrong on the wire into UpstreamErrors, whose kind decides fallback.
import { UpstreamError } from '../types.js';

/** Upstream error messages are cut to this many characters. */
export const MAX_UPSTREAM_MESSAGE = 500;

/** What the error mapping needs to know about the call. */
export interface CallContext {
  providerId: string;
  timeoutMs: number;
  bodyTimeoutMs: number;
  signal: AbortSignal;
  /** Removed from any message the provider echoes back. */
  apiKey: string | undefined;
}

const CONNECT_CODES = new Set([
  'UND_ERR_CONNECT_TIMEOUT',
  'UND_ERR_SOCKET',
  'UND_ERR_CLOSED',
  'UND_ERR_DESTROYED',
  'ECONNREFUSED',
  'ECONNRESET',
  'ECONNABORTED',
  'EPIPE',
  'ETIMEDOUT',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'ENETDOWN',
  'EHOSTDOWN',
  'ENOTFOUND',
  'EAI_AGAIN',
  'EADDRNOTAVAIL',
]);

const PROTOCOL_CODES = new Set([
  'UND_ERR_RES_CONTENT_LENGTH_MISMATCH',
  'UND_ERR_RES_EXCEEDED_MAX_SIZE',
  'UND_ERR_HEADERS_OVERFLOW',
]);

export function abortedError(providerId: string): UpstreamError {
  return new UpstreamError('aborted', `${providerId}: request aborted`);
}

export function protocolError(providerId: string, what: string, upstreamMessage?: string): UpstreamError {
  return new UpstreamError(
    'protocol',
    `${providerId}: ${what}`,
    upstreamMessage === undefined ? {} : { upstreamMessage },
  );
}

/** Maps an error thrown by undici (or a socket) during a call. */
export function transportError(err: unknown, ctx: CallContext): UpstreamError {
  if (err instanceof UpstreamError) return err;
  // Checked first: once our signal fired, whatever the socket reports is a consequence of it.
  if (ctx.signal.aborted) return abortedError(ctx.providerId);
  const e = err as { code?: unknown; name?: unknown; message?: unknown };
  const code = typeof e?.code === 'string' ? e.code : undefined;
  if (code === 'UND_ERR_HEADERS_TIMEOUT') {
    return new UpstreamError('timeout', `${ctx.providerId}: no response within ${ctx.timeoutMs} ms`);
  }
  if (code === 'UND_ERR_BODY_TIMEOUT') {
    return new UpstreamError('timeout', `${ctx.providerId}: the response stalled for ${ctx.bodyTimeoutMs} ms`);
  }
  if (code === 'UND_ERR_CONNECT_TIMEOUT') {
    return new UpstreamError('connect', `${ctx.providerId}: connection timed out`);
  }
  if (code !== undefined && (PROTOCOL_CODES.has(code) || code.startsWith('HPE_'))) {
    return protocolError(ctx.providerId, `malformed HTTP response (${code})`);
  }
  if (e?.name === 'HTTPParserError') return protocolError(ctx.providerId, 'malformed HTTP response');
  // Connection failures, TLS and certificate errors, DNS, and anything unforeseen: the provider
  // could not be reached or dropped us, which is worth trying the next one for.
  const detail = code ?? (typeof e?.name === 'string' ? e.name : 'error');
  const known = code !== undefined && CONNECT_CODES.has(code);
  return new UpstreamError('connect', `${ctx.providerId}: ${known ? 'connection failed' : 'request failed'} (${detail})`);
}

/** The status error for a non-2xx answer, with the provider's message from its body. */
export function statusError(status: number, retryAfter: string | undefined, text: string, ctx: CallContext): UpstreamError {
  // Refused credentials are the gateway's, not the caller's: what the provider says about its key
  // (OpenAI's 401 names a part of it) is not the caller's to read.
  const upstreamMessage = CREDENTIAL_STATUSES.has(status) ? "it refused the gateway's credentials for it" : messageFromText(text, ctx.apiKey);
  const details: { status: number; retryAfter?: string; upstreamMessage?: string } = { status };
  if (retryAfter !== undefined && retryAfter !== '') details.retryAfter = retryAfter;
  if (upstreamMessage !== undefined) details.upstreamMessage = upstreamMessage;
  return new UpstreamError(
    'status',
    `${ctx.providerId} answered ${status}${upstreamMessage === undefined ? '' : `: ${upstreamMessage}`}`,
    details,
  );
}

/**
 * An `{"error": …}` object found where a result was expected (a 200 body, a stream event).
 * A numeric code or status in 400–599 makes it a status error, so a rejected request is not
 * retried elsewhere; otherwise it is a protocol error.
 */
export function errorFromBody(body: Record<string, unknown>, ctx: Pick<CallContext, 'providerId' | 'apiKey'>): UpstreamError {
  const message = messageFromJson(body, ctx.apiKey);
  const inner = isRecord(body.error) ? body.error : body;
  const status = [inner.status, inner.code, body.status, body.code].find(
    (v): v is number => typeof v === 'number' && Number.isInteger(v) && v >= 400 && v <= 599,
  );
  if (status !== undefined) {
    return new UpstreamError('status', `${ctx.providerId} reported ${status}${message === undefined ? '' : `: ${message}`}`, {
      status,
      ...(message === undefined ? {} : { upstreamMessage: message }),
    });
  }
  return protocolError(ctx.providerId, `reported an error${message === undefined ? '' : `: ${message}`}`, message);
}

/** The provider's own message from an error body: `{error: {message}}`, `{error: "…"}`, `{message}`, `{detail}`. */
export function messageFromText(text: string, apiKey?: string): string | undefined {
  const trimmed = redact(text, apiKey).trim();
  if (trimmed === '') return undefined;
  if (trimmed.startsWith('{')) {
    try {
      const parsed: unknown = JSON.parse(trimmed);
      if (isRecord(parsed)) return messageFromJson(parsed) ?? truncate(trimmed);
    } catch {
      // Not JSON after all: fall through to the text itself.
    }
  }
  // An HTML error page from a proxy says nothing useful.
  if (trimmed.startsWith('<')) return undefined;
  return truncate(trimmed);
}

function messageFromJson(body: Record<string, unknown>, apiKey?: string): string | undefined {
  const candidates = [isRecord(body.error) ? body.error.message : body.error, body.message, body.detail];
  for (const c of candidates) {
    if (typeof c === 'string' && c.trim() !== '') return truncate(redact(c, apiKey).trim());
    // Mistral's validation errors: {"message": {"detail": [...]}}.
    if (c !== undefined && c !== null && typeof c === 'object') return truncate(redact(JSON.stringify(c), apiKey));
  }
  return undefined;
}

function truncate(s: string): string {
  return s.length > MAX_UPSTREAM_MESSAGE ? `${s.slice(0, MAX_UPSTREAM_MESSAGE - 1)}…` : s;
}

const CREDENTIAL_STATUSES = new Set([401, 403]);

// Credentials a provider may quote in its messages: bearer tokens and key-shaped words (sk-…,
// sk-proj-…, sk-ant-…, api_key-…, whole or starred), besides our own key as configured.
const SECRET_LIKE = /\b(?:bearer\s+[\w.~+/=-]{8,}|(?:sk|pk|rk|api[_-]?key)[-_][\w*.-]{10,})/gi;

function redact(message: string, apiKey: string | undefined): string {
  const withoutKey = apiKey && apiKey.length >= 8 && message.includes(apiKey) ? message.split(apiKey).join('[redacted]') : message;
  return withoutKey.replace(SECRET_LIKE, '[redacted]');
}

export function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}
