import type { Context, Next } from 'koa';
import { isDatabaseUnavailable } from './db/unavailable.js';

// The single list of errors the API answers with. Each carries the contract's top-level body and
// the OpenAI-style `error` object that the official SDKs read.
export type OpenAiErrorType =
  | 'invalid_request_error'
  | 'authentication_error'
  | 'permission_error'
  | 'not_found_error'
  | 'conflict_error'
  | 'rate_limit_error'
  | 'insufficient_quota'
  | 'api_error';

export type FieldErrors = Record<string, string[]>;

/**
 * An empty map of field errors without a prototype: its keys come from the caller's JSON, and a
 * field named `constructor` or `__proto__` must be a key like any other, not Object's own.
 */
export function noFieldErrors(): FieldErrors {
  return Object.create(null) as FieldErrors;
}

interface ApiErrorInit {
  status: number;
  message: string;
  type: OpenAiErrorType;
  code?: string;
  errors?: FieldErrors;
  /** Extra top-level body fields the contract names for this case (attempts, provider …). */
  fields?: Record<string, unknown>;
  headers?: Record<string, string>;
}

export class ApiError extends Error {
  override name = 'ApiError';
  readonly status: number;
  readonly type: OpenAiErrorType;
  readonly code: string | undefined;
  readonly errors: FieldErrors | undefined;
  readonly fields: Record<string, unknown>;
  readonly headers: Record<string, string>;

  constructor(init: ApiErrorInit) {
    super(init.message);
    this.status = init.status;
    this.type = init.type;
    this.code = init.code;
    this.errors = init.errors;
    this.fields = init.fields ?? {};
    this.headers = init.headers ?? {};
  }

  body(): Record<string, unknown> {
    const param = this.errors ? (Object.keys(this.errors)[0] ?? null) : null;
    return {
      message: this.message,
      ...(this.errors ? { errors: this.errors } : {}),
      ...(this.code ? { code: this.code } : {}),
      ...this.fields,
      error: { message: this.message, type: this.type, code: this.code ?? null, param },
    };
  }
}

export const unauthorized = (message: string) =>
  new ApiError({ status: 401, message, type: 'authentication_error', code: 'invalid_api_key' });

export const insufficientScope = (scope: string, forWhat?: string) =>
  new ApiError({
    status: 403,
    message: forWhat ? `this key lacks the scope ${scope}, which ${forWhat} needs` : `this key lacks the scope ${scope}`,
    type: 'permission_error',
    code: 'insufficient_scope',
  });

/** A requests or tokens per minute limit is reached (OpenAI's 429, which the SDKs retry after `retry-after`). */
export const rateLimited = (
  message: string,
  retryAfterSeconds: number,
  { waitingHelps = true, rateHeaders = {} }: { waitingHelps?: boolean; rateHeaders?: Record<string, string> } = {},
) =>
  new ApiError({
    status: 429,
    message,
    type: 'rate_limit_error',
    code: 'rate_limited',
    // OpenAI's and Anthropic's SDKs retry every 429 unless told not to (`x-should-retry`): a
    // request larger than the limit itself would be refused again after the wait. The
    // x-ratelimit-* headers say what is left, as on the answers (OpenAI sends them on its 429s).
    headers: { ...rateHeaders, 'retry-after': String(retryAfterSeconds), ...(waitingHelps ? {} : { 'x-should-retry': 'false' }) },
  });

/** A credit budget would be passed: which one, how much of it is used, and when it starts anew. */
export const budgetExhausted = (
  message: string,
  budget: { level: string; window: 'day' | 'month'; limit: number; used: number; resets_at: string },
) => new ApiError({ status: 402, message, type: 'insufficient_quota', code: 'budget_exhausted', fields: { budget } });

export const egressRefused = (message: string) =>
  new ApiError({ status: 403, message, type: 'permission_error', code: 'egress_refused' });

/**
 * Refusals that are traced and audited like a failed call (never billed): the egress guard's, which
 * the privacy officer reads, and a credit budget's, which its owner looks for. A rate limit's 429
 * is not: a limit sheds load, and recording every refusal would add to it (`/metrics` counts them).
 */
/** What a refusal's audit entry says of it: its code, and for a budget which one refused. */
export function refusalDetails(refusal: ApiError): Record<string, unknown> {
  const budget = refusal.fields.budget as { level?: string; window?: string } | undefined;
  return { refused: refusal.code, ...(budget ? { budget: { level: budget.level, window: budget.window } } : {}) };
}

export function isRecordedRefusal(err: unknown): err is ApiError {
  return err instanceof ApiError && (err.code === 'egress_refused' || err.code === 'budget_exhausted');
}

/** `field`: the body field that named what is not there (a 404 on a path names none). */
export const notFound = (message: string, field?: { name: string; code: string }) =>
  new ApiError({ status: 404, message, type: 'not_found_error', ...(field ? { code: field.code, errors: { [field.name]: [message] } } : {}) });

export const conflict = (message: string) => new ApiError({ status: 409, message, type: 'conflict_error' });

/**
 * The request id's first request has not finished. OpenAI's and Anthropic's SDKs retry a 409 on
 * their own, after `retry-after` when it is given: a second is about what a short answer takes.
 */
export const requestStillRunning = () =>
  new ApiError({
    status: 409,
    message: 'a request with this id is still running; retry when it has finished',
    type: 'conflict_error',
    code: 'request_in_progress',
    headers: { 'retry-after': '1' },
  });

export const payloadTooLarge = (limitBytes: number, message = `request body exceeds the limit of ${limitBytes} bytes`) =>
  new ApiError({ status: 413, message, type: 'invalid_request_error', code: 'payload_too_large' });

/**
 * A body the service cannot read as sent: compressed or encoded in a way it does not take. A 400,
 * as the contract answers a body that is not JSON (HTTP would say 415; the contract decides).
 */
export const unsupportedMediaType = (message: string) =>
  new ApiError({ status: 400, message, type: 'invalid_request_error', code: 'unsupported_media_type' });

export const badRequest = (message: string, code?: string) =>
  new ApiError({ status: 400, message, type: 'invalid_request_error', ...(code ? { code } : {}) });

/** SDKs show only the message, so it names the failing fields itself. */
function describeFieldErrors(errors: FieldErrors): string {
  const parts = Object.entries(errors).map(([field, messages]) => `${field}: ${messages.join('; ')}`);
  const shown = parts.slice(0, 3).join('; ');
  return `invalid request: ${shown}${parts.length > 3 ? `; and ${parts.length - 3} more` : ''}`;
}

/**
 * A 422 on the fields at fault. `code` narrows what failed where OpenAI has a code for it, on which
 * clients act: `context_length_exceeded` (a prompt no model of the chain has room to answer; they
 * trim their history) and `model_not_found`.
 */
export const validationFailed = (
  errors: FieldErrors,
  message = describeFieldErrors(errors),
  code: 'validation_failed' | 'context_length_exceeded' | 'model_not_found' = 'validation_failed',
) => new ApiError({ status: 422, message, type: 'invalid_request_error', code, errors });

/** A request whose records a table would refuse: it is answered with this, and not billed. */
export class RecordsRefused extends ApiError {
  constructor(readonly reason: string) {
    super({
      status: 502,
      message: `the answer could not be recorded, so it is not billed and not kept: ${reason}`,
      type: 'api_error',
      code: 'unrecordable_answer',
    });
  }
}

/**
 * The workspace's allowed providers leave none that serves the memory model in the EU. Only a
 * settings change cures it, so it is a 422 that says which change, never a retry or a 500.
 */
export class MemoryEmbeddingNotAllowed extends ApiError {
  override name = 'MemoryEmbeddingNotAllowed';
  constructor(modelId: string, servedBy: string[]) {
    const message =
      `memory is embedded by ${modelId}, which the workspace's allowed_providers leaves no provider for ` +
      `(it is served by ${servedBy.join(', ')}); add one of them to allowed_providers`;
    super({
      status: 422,
      message,
      type: 'invalid_request_error',
      code: 'validation_failed',
      errors: { allowed_providers: [message] },
    });
  }
}

/**
 * Every allowed provider of the memory model failed (503, with the attempts), rejected the
 * request (400), or the caller went away (499): the chain's own answer, worded for memory. An API
 * error, so a chat or a search that needed the embedding answers with it rather than a 500.
 */
export class MemoryEmbeddingFailed extends ApiError {
  override name = 'MemoryEmbeddingFailed';
  constructor(cause: ApiError) {
    super({
      status: cause.status,
      message: `embedding for memory failed: ${cause.message}`,
      type: cause.type,
      ...(cause.code ? { code: cause.code } : {}),
      fields: cause.fields,
      headers: cause.headers,
    });
  }

  /** The provider refused the text as invalid (400): sent again, it would be refused again. */
  get refusedText(): boolean {
    return this.status === 400;
  }
}

/** A dependency (the database) cannot be reached for now; the same request can succeed later. */
const serviceUnavailableInit = (retryAfterSeconds: number): ApiErrorInit => ({
  status: 503,
  message: `the service is temporarily unavailable; retry after ${retryAfterSeconds} s`,
  type: 'api_error',
  code: 'service_unavailable',
  headers: { 'retry-after': String(retryAfterSeconds) },
});

export const serviceUnavailable = (retryAfterSeconds: number) => new ApiError(serviceUnavailableInit(retryAfterSeconds));

/**
 * The database went away while a transaction was being committed: it may have been committed or
 * not, and nobody can tell until it is back. `cause` is the connection's error.
 */
export class CommitOutcomeUnknown extends Error {
  override name = 'CommitOutcomeUnknown';
  constructor(override readonly cause: unknown) {
    super('the database went away while a transaction was being committed');
  }
}

/** Nobody is left to answer; 499 is what proxies log for a client that closed the request. */
export const clientGone = () => new ApiError({ status: 499, message: 'the client closed the request', type: 'api_error', code: 'client_closed' });

/** Why a request's signal was aborted when its web process stopped it at shutdown (InFlight.stop). */
export class ServerStopping extends Error {
  constructor() {
    super('the web process is stopping');
  }
}

/** A request the web process stopped at shutdown: another process (or this one, restarted) takes the retry. */
export const serverStopping = () =>
  new ApiError({
    status: 503,
    message: 'the service stopped this request while restarting; send it again (under the same request id, it runs anew)',
    type: 'api_error',
    code: 'server_stopping',
    headers: { 'retry-after': '1' },
  });

// Long enough for a restarting Postgres to come back, short enough that a client retrying as told
// finds the service again within seconds of it.
const DATABASE_RETRY_AFTER_SECONDS = 2;

// ---- Anthropic's error shape, for the Messages door (/v1/messages) ----

/** How an error body is written: OpenAI's (every route) or Anthropic's (the Messages door). */
export type ErrorShape = 'anthropic';

/** Anthropic's error types by status; its SDKs choose their error class by the status alone. */
function anthropicErrorType(error: ApiError): string {
  switch (error.status) {
    case 401:
      return 'authentication_error';
    case 402:
      return 'billing_error';
    case 403:
      return 'permission_error';
    case 404:
      return 'not_found_error';
    case 413:
      return 'request_too_large';
    case 429:
      return 'rate_limit_error';
    case 503:
      return 'overloaded_error';
    default:
      return error.status >= 500 ? 'api_error' : 'invalid_request_error';
  }
}

/** `{type: "error", error: {type, message}}`, with Polder's own fields (message, code, errors, …) beside it. */
function anthropicBody(error: ApiError): Record<string, unknown> {
  const { error: _openAi, ...polder } = error.body();
  return { type: 'error', error: { type: anthropicErrorType(error), message: error.message }, ...polder };
}

function errorBodyOf(error: ApiError, shape: ErrorShape | undefined): Record<string, unknown> {
  return shape === 'anthropic' ? anthropicBody(error) : error.body();
}

export const internalErrorBody = (requestId: string) => ({
  message: 'internal error',
  request_id: requestId,
  error: { message: 'internal error', type: 'api_error', code: null, param: null },
});

// The one error middleware: it turns any thrown error into the contract's body. A database that
// cannot be reached is answered 503 with retry-after. Unknown faults are logged with their stack
// and answered with a bare 500, never the stack or SQL text.
export async function errorMiddleware(ctx: Context, next: Next): Promise<void> {
  try {
    await next();
    if (ctx.status === 404 && ctx.body === undefined) {
      throw notFound(`no route for ${ctx.method} ${ctx.path}`);
    }
    // The router answered a method the path does not take (405) or no route takes (501), with
    // the Allow header RFC 9110 asks for and no body: the contract's body goes with it.
    if ((ctx.status === 405 || ctx.status === 501) && ctx.body === undefined) {
      throw new ApiError({ status: ctx.status, message: `${ctx.path} does not take ${ctx.method}; it takes ${ctx.response.get('Allow') || 'no method'}`, type: 'invalid_request_error' });
    }
  } catch (err) {
    const apiError = answerableError(err);
    if (apiError && !(err instanceof ApiError) && isDatabaseUnavailable(err)) ctx.state.log?.warn({ err }, 'database unreachable; answered 503');
    if (apiError) {
      // A vendor's door answers a prompt beyond the context as the vendor does (decision 0037): Claude
      // Code then compacts the conversation, and Codex stops retrying what no retry can change.
      ctx.status = apiError.code === 'context_length_exceeded' && ctx.state.door !== undefined ? 400 : apiError.status;
      ctx.set(apiError.headers);
      ctx.body = errorBodyOf(apiError, ctx.state.errorShape);
      return;
    }
    ctx.state.log?.error({ err }, 'unhandled error');
    ctx.status = 500;
    const body = internalErrorBody(String(ctx.state.requestId ?? ''));
    ctx.body = ctx.state.errorShape === 'anthropic' ? { type: 'error', error: { type: 'api_error', message: body.message }, message: body.message, request_id: body.request_id } : body;
  }
}

// Errors raised by Koa or its dependencies (http-errors) carry a client status; keep those as
// client errors rather than turning them into 500s.
/**
 * What a caller is told of an error: the API error it is, or 503 with retry-after when the
 * database could not be reached; undefined for a fault of ours (a 500). For an answer already
 * begun (a stream's error event) as for one not.
 */
export function answerableError(err: unknown): ApiError | undefined {
  if (err instanceof CommitOutcomeUnknown) {
    // "Retry" alone would have a client without a request id store (and be billed for) it twice.
    return new ApiError({
      ...serviceUnavailableInit(DATABASE_RETRY_AFTER_SECONDS),
      message:
        'the database went away while this request was being committed, so it may have been done: ' +
        `sent again under the same X-Request-Id it is safe (done once at most); without one, check before sending it again, after ${DATABASE_RETRY_AFTER_SECONDS} s`,
    });
  }
  return asApiError(err) ?? (isDatabaseUnavailable(err) ? serviceUnavailable(DATABASE_RETRY_AFTER_SECONDS) : undefined);
}

function asApiError(err: unknown): ApiError | undefined {
  if (err instanceof ApiError) return err;
  const status = (err as { status?: unknown } | null)?.status;
  const expose = (err as { expose?: unknown } | null)?.expose;
  if (typeof status === 'number' && status >= 400 && status < 500 && expose === true) {
    const message = err instanceof Error ? err.message : 'bad request';
    if (status === 404) return notFound(message);
    if (status === 405) return new ApiError({ status, message, type: 'invalid_request_error' });
    return badRequest(message);
  }
  return undefined;
}
