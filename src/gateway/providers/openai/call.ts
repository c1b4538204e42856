// One HTTP call to a provider, driven through undici's dispatcher API with our own handler.
//
// Why not `pool.request()`: it wraps every response in a Readable stream, and its header and
// body timeouts run on undici's coarse timers (about a second of slack). Driving the dispatch
// ourselves keeps the hot path to one handler object and the response bytes, lets the SSE parser
// take bytes straight off the socket, and gives exact timeouts:
// - headers: `timeoutMs` from the call's start (queueing and connecting included) until the
//   response headers; a provider that accepts the connection and never answers is abandoned
//   then, so the gateway can fall back;
// - idle: `bodyTimeoutMs` without progress: no new bytes from the provider and, while we hold
//   the socket paused because the consumer is behind, no chunk taken by the consumer.
// Connection set-up has its own limit in the pool (connectTimeout).
//
// Every ending releases the socket properly: a complete response leaves it to the pool; a
// failure, a timeout, our abort or a consumer leaving a stream early aborts the request, which
// destroys its socket (the provider sees the connection close and stops generating).
import type { Dispatcher } from 'undici';
import { UpstreamError } from '../types.js';
import { abortedError, type CallContext, protocolError, statusError, transportError } from './errors.js';
import { SseChunkReader } from './stream.js';

/** JSON answers larger than this are refused (a misbehaving provider must not exhaust memory). */
const MAX_JSON_BODY = 256 * 1024 * 1024;
/** At most this much of an error answer is read for its message. */
const MAX_ERROR_BODY = 64 * 1024;

export interface CallSpec {
  dispatcher: Dispatcher;
  path: string;
  headers: Readonly<Record<string, string>>;
  body: string;
  ctx: CallContext;
  /** Expect an event stream (a JSON answer is still accepted, and returned as JSON). */
  sse: boolean;
}

/** The parsed JSON answer, or, for an event stream, the reader once its first chunk arrived. */
export type CallResult = { json: unknown } | { stream: SseChunkReader };

const enum Mode {
  Waiting,
  Json,
  Sse,
  Error,
}

export function call(spec: CallSpec): Promise<CallResult> {
  return new Call(spec).promise;
}

class Call implements Dispatcher.DispatchHandler {
  readonly promise: Promise<CallResult>;
  private resolve!: (r: CallResult) => void;
  private reject!: (e: UpstreamError) => void;
  private settled = false;

  private readonly ctx: CallContext;
  private readonly sse: boolean;
  private controller: Dispatcher.DispatchController | null = null;
  /** Set when we ended the call ourselves (abort, timeout, consumer gone) or it failed. */
  private failure: UpstreamError | null = null;
  /** The HTTP exchange is over (response complete or errored). */
  private over = false;
  private headersTimer: NodeJS.Timeout | undefined;
  private idleTimer: NodeJS.Timeout | undefined;
  private listening = false;

  private mode = Mode.Waiting;
  private status = 0;
  private retryAfter: string | undefined;
  private parts: Buffer[] = [];
  private size = 0;
  private reader: SseChunkReader | null = null;
  private paused = false;

  constructor(spec: CallSpec) {
    this.promise = new Promise<CallResult>((resolve, reject) => {
      this.resolve = resolve;
      this.reject = reject;
    });
    this.ctx = spec.ctx;
    this.sse = spec.sse;
    const signal = spec.ctx.signal;
    if (signal.aborted) {
      this.over = true;
      this.settleError(abortedError(spec.ctx.providerId));
      return;
    }
    signal.addEventListener('abort', this.onAbort);
    this.listening = true;
    this.headersTimer = setTimeout(this.onHeadersTimeout, spec.ctx.timeoutMs);
    spec.dispatcher.dispatch(
      {
        path: spec.path,
        method: 'POST',
        headers: spec.headers,
        body: spec.body,
        // Backstops only: our own timers above are exact and fire first.
        headersTimeout: spec.ctx.timeoutMs + 1_000,
        bodyTimeout: 0,
      },
      this,
    );
  }

  // ---- undici handler ----------------------------------------------------------------------

  onRequestStart(controller: Dispatcher.DispatchController): void {
    this.controller = controller;
    if (this.failure) controller.abort(this.failure);
  }

  onResponseStart(
    _controller: Dispatcher.DispatchController,
    statusCode: number,
    headers: Record<string, string | string[] | undefined>,
  ): void {
    if (this.failure || statusCode < 200) return; // 1xx: informational, the real answer follows
    clearTimeout(this.headersTimer);
    this.headersTimer = undefined;
    this.status = statusCode;
    if (statusCode > 299) {
      this.mode = Mode.Error;
      const ra = headers['retry-after'];
      this.retryAfter = Array.isArray(ra) ? ra[0] : ra;
    } else if (this.sse && !isJson(headers['content-type'])) {
      this.mode = Mode.Sse;
      const reader = new SseChunkReader(this, this.ctx);
      this.reader = reader;
      reader.first().then(
        () => this.settle({ stream: reader }),
        (err: UpstreamError) => this.settleError(err),
      );
    } else {
      this.mode = Mode.Json;
    }
    this.idleTimer = setTimeout(this.onIdleTimeout, this.ctx.bodyTimeoutMs);
  }

  onResponseData(_controller: Dispatcher.DispatchController, chunk: Buffer): void {
    if (this.failure) return;
    this.idleTimer?.refresh();
    switch (this.mode) {
      case Mode.Sse:
        this.reader!.data(chunk);
        return;
      case Mode.Json:
        this.parts.push(chunk);
        this.size += chunk.length;
        if (this.size > MAX_JSON_BODY) this.fail(protocolError(this.ctx.providerId, 'the response is too large'));
        return;
      case Mode.Error:
        this.parts.push(chunk);
        this.size += chunk.length;
        // Enough to find the message; the rest is not worth keeping the socket for.
        if (this.size >= MAX_ERROR_BODY) this.fail(statusError(this.status, this.retryAfter, this.text(), this.ctx));
        return;
      default:
        return;
    }
  }

  onResponseEnd(): void {
    this.over = true;
    this.cleanup();
    if (this.failure) return;
    switch (this.mode) {
      case Mode.Sse:
        this.reader!.end();
        return;
      case Mode.Error:
        this.settleError(statusError(this.status, this.retryAfter, this.text(), this.ctx));
        return;
      default: {
        let json: unknown;
        try {
          json = JSON.parse(this.text());
        } catch {
          this.settleError(protocolError(this.ctx.providerId, 'the response is not valid JSON'));
          return;
        }
        this.settle({ json });
      }
    }
  }

  onResponseError(_controller: Dispatcher.DispatchController | undefined, err: Error): void {
    this.over = true;
    this.cleanup();
    if (this.failure) return; // our own abort coming back
    this.failure = transportError(err, this.ctx);
    this.deliver(this.failure);
  }

  // ---- the stream reader's source --------------------------------------------------------

  /** The consumer is behind: stop reading the socket until it catches up. */
  pause(): void {
    if (this.paused || this.over) return;
    this.paused = true;
    this.controller?.pause();
  }

  resume(): void {
    if (!this.paused || this.over) return;
    this.paused = false;
    this.idleTimer?.refresh();
    this.controller?.resume();
  }

  /**
   * The consumer took a chunk while the socket is paused: that is progress too. So the idle
   * timeout cuts a stream only when neither side moved for bodyTimeoutMs (a consumer that
   * stopped pulling without leaving must not hold the socket forever).
   */
  touch(): void {
    this.idleTimer?.refresh();
  }

  /** The consumer left before the end: abort the upstream request. */
  cancel(reason: UpstreamError): void {
    this.fail(reason);
  }

  // ---- endings -----------------------------------------------------------------------------

  private readonly onAbort = (): void => {
    this.fail(abortedError(this.ctx.providerId));
  };

  private readonly onHeadersTimeout = (): void => {
    this.headersTimer = undefined;
    // undici starts a request (onRequestStart) once one of the pool's connections takes it.
    if (this.controller === null) {
      this.fail(
        new UpstreamError('timeout', `${this.ctx.providerId}: no connection to it came free within ${this.ctx.timeoutMs} ms (all of this process's are busy)`, {
          queued: true,
        }),
      );
      return;
    }
    this.fail(transportError(Object.assign(new Error('headers timeout'), { code: 'UND_ERR_HEADERS_TIMEOUT' }), this.ctx));
  };

  private readonly onIdleTimeout = (): void => {
    // Paused, the socket waited on our consumer, which took nothing for the whole timeout: a client
    // that stopped reading, not a provider that stalled (it may have sent everything long before).
    if (this.paused) {
      this.fail(new UpstreamError('timeout', `the client read nothing for ${this.ctx.bodyTimeoutMs} ms`, { consumerStalled: true }));
      return;
    }
    this.fail(transportError(Object.assign(new Error('body timeout'), { code: 'UND_ERR_BODY_TIMEOUT' }), this.ctx));
  };

  /** Ends the call from our side: aborts the request (its socket is destroyed) and reports `err`. */
  private fail(err: UpstreamError): void {
    if (this.failure || this.over) return;
    // (After a stream's [DONE] this still aborts a response that does not end: it frees the socket,
    // and the reader, already complete, ignores the error.)
    this.failure = err;
    this.cleanup();
    // Without a controller the request has not started; onRequestStart aborts it.
    if (this.controller && !this.controller.aborted) this.controller.abort(err);
    this.deliver(err);
  }

  private deliver(err: UpstreamError): void {
    if (this.reader) this.reader.error(err);
    else this.settleError(err);
  }

  private cleanup(): void {
    clearTimeout(this.headersTimer);
    clearTimeout(this.idleTimer);
    this.headersTimer = undefined;
    if (this.listening) {
      this.listening = false;
      this.ctx.signal.removeEventListener('abort', this.onAbort);
    }
  }

  private settle(result: CallResult): void {
    if (this.settled) return;
    this.settled = true;
    this.resolve(result);
  }

  private settleError(err: UpstreamError): void {
    if (this.settled) return;
    this.settled = true;
    this.reject(err);
  }

  private text(): string {
    const parts = this.parts;
    this.parts = [];
    if (parts.length === 1) return parts[0]!.toString('utf8');
    return Buffer.concat(parts, this.size).toString('utf8');
  }
}

function isJson(value: string | string[] | undefined): boolean {
  const v = Array.isArray(value) ? value[0] : value;
  return v !== undefined && v.includes('json');
}
