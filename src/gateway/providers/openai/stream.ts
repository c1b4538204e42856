// A provider's event stream as an async iterator of UpstreamChunks.
//
// The call (call.ts) feeds the response bytes in as they arrive; they are parsed incrementally
// and the chunks queued for the consumer, who pulls them with next(). Anything that ends the
// stream other than `data: [DONE]` (a cut connection, an idle timeout, our abort, an
// `{"error": …}` event, malformed JSON, EOF before every choice finished) reaches the consumer as
// an UpstreamError after the chunks that came before it: never as a silent end. A body that ends
// cleanly once every choice has its finish_reason is complete without [DONE]: the answer is whole
// (some servers never send it, and OpenAI's SDKs take such a stream as finished).
//
// Consumer-side: if the consumer falls HIGH_WATER chunks behind, the source is paused; if it
// leaves before the end (return(), i.e. a `break`, or the client went away), the source is
// cancelled, which aborts the upstream request.
import type { UpstreamChunk, UpstreamError } from '../types.js';
import { type CallContext, errorFromBody, isRecord, protocolError } from './errors.js';
import { toChunk } from './response.js';
import { type SseEvent, SseParser } from './sse.js';
import { ToolCallDeltas } from './toolCallDeltas.js';

/** What feeds the reader: the HTTP call. */
export interface ChunkSource {
  pause(): void;
  resume(): void;
  /** The consumer made progress while the source is paused. */
  touch(): void;
  /** Abort the upstream request: the consumer will read no more. */
  cancel(reason: UpstreamError): void;
}

/** Queued chunks beyond which the source is paused until the consumer catches up. */
const HIGH_WATER = 256;

const DONE: IteratorReturnResult<undefined> = Object.freeze({ done: true, value: undefined });

export class SseChunkReader implements AsyncIterableIterator<UpstreamChunk> {
  private readonly parser = new SseParser();
  private readonly toolCalls = new ToolCallDeltas();
  private readonly events: SseEvent[] = [];
  private queue: UpstreamChunk[] = [];
  private head = 0;
  /** `data: [DONE]` arrived: the stream is complete. */
  private complete = false;
  /** A chunk with output (text, a tool call, reasoning, a finish) has been queued. */
  private output = false;
  /** Choices seen without their finish_reason yet, and those finished. */
  private readonly unfinished = new Set<number>();
  private readonly finished = new Set<number>();
  private failure: UpstreamError | undefined;
  /** The consumer has had the end (or the failure), or left: nothing more is delivered. */
  private settled = false;
  private paused = false;
  private waiter: (() => void) | undefined;

  constructor(
    private readonly source: ChunkSource,
    private readonly ctx: Pick<CallContext, 'providerId' | 'apiKey'>,
  ) {}

  [Symbol.asyncIterator](): this {
    return this;
  }

  // ---- fed by the source -----------------------------------------------------------------

  /** The next bytes of the body. */
  data(bytes: Uint8Array): void {
    if (this.complete || this.failure) return; // after [DONE]: the rest is discarded
    const events = this.events;
    try {
      this.parser.push(bytes, events);
    } catch (err) {
      events.length = 0;
      this.fail(protocolError(this.ctx.providerId, (err as Error).message));
      return;
    }
    if (events.length > 0) this.handle(events);
  }

  /** The body ended cleanly. Without [DONE] first, that is a failure unless every choice finished. */
  end(): void {
    if (this.complete || this.failure) return;
    const events = this.events;
    this.parser.end(events);
    if (events.length > 0) this.handle(events);
    if (this.complete || this.failure) return;
    if (this.finished.size > 0 && this.unfinished.size === 0) {
      this.complete = true;
      this.wake();
    } else {
      this.fail(protocolError(this.ctx.providerId, 'the stream ended before its answer finished'));
    }
  }

  /** The call failed (connection, timeout, abort). Ignored once the stream is complete. */
  error(err: UpstreamError): void {
    if (this.complete || this.failure) return;
    this.failure = err;
    this.wake();
  }

  // ---- consumer side -----------------------------------------------------------------------

  /**
   * Resolves once the first chunk that carries output is queued (or the stream completed); rejects
   * if the stream fails before that. OpenAI, vLLM and Mistral open with a chunk that only names the
   * role: a provider that fails after it has still answered nothing, and the chain falls back.
   */
  first(): Promise<void> {
    return new Promise((resolve, reject) => {
      const check = (): void => {
        const queued = this.queue.length - this.head;
        if (this.output || (queued > 0 && (this.complete || queued >= HIGH_WATER))) resolve();
        else if (this.failure) {
          this.settled = true;
          reject(this.failure);
        } else if (this.complete) {
          this.settled = true;
          reject(protocolError(this.ctx.providerId, 'the stream ended before its first chunk'));
        } else this.waiter = check;
      };
      check();
    });
  }

  next(): Promise<IteratorResult<UpstreamChunk>> {
    if (this.head < this.queue.length) {
      const value = this.queue[this.head]!;
      this.head++;
      if (this.paused) this.source.touch();
      if (this.head === this.queue.length) {
        this.queue = [];
        this.head = 0;
        if (this.paused) {
          this.paused = false;
          this.source.resume();
        }
      }
      return Promise.resolve({ done: false, value });
    }
    if (this.settled) return Promise.resolve(DONE);
    if (this.failure) {
      this.settled = true;
      return Promise.reject(this.failure);
    }
    if (this.complete) {
      this.settled = true;
      return Promise.resolve(DONE);
    }
    return new Promise((resolve) => {
      this.waiter = () => resolve(this.next());
    });
  }

  /** The consumer leaves (a `break`, or the client went away): stops the upstream request. */
  return(): Promise<IteratorResult<UpstreamChunk>> {
    this.settled = true;
    this.queue = [];
    this.head = 0;
    if (!this.complete && !this.failure) {
      this.failure = protocolError(this.ctx.providerId, 'the consumer left the stream');
      this.source.cancel(this.failure);
    } else if (this.paused) {
      this.paused = false;
      this.source.resume();
    }
    this.wake();
    return Promise.resolve(DONE);
  }

  // ---- internals ---------------------------------------------------------------------------

  private handle(events: SseEvent[]): void {
    for (let i = 0; i < events.length; i++) {
      const ev = events[i]!;
      const data = ev.data;
      if (data === '[DONE]') {
        this.complete = true;
        const rest = this.toolCalls.flush();
        if (rest !== null) this.queue.push(rest);
        break;
      }
      if (ev.event !== 'message' && ev.event !== 'error') continue; // e.g. `event: ping`
      if (data.length === 0) continue;
      let raw: unknown;
      try {
        raw = JSON.parse(data);
      } catch {
        this.fail(protocolError(this.ctx.providerId, 'a stream event is not valid JSON'));
        break;
      }
      if (!isRecord(raw)) {
        this.fail(protocolError(this.ctx.providerId, 'a stream event is not a JSON object'));
        break;
      }
      if (ev.event === 'error' || (raw.error !== undefined && raw.error !== null && raw.choices === undefined)) {
        this.fail(errorFromBody(raw, this.ctx));
        break;
      }
      try {
        const chunk = toChunk(raw, this.ctx.providerId);
        this.toolCalls.normalize(chunk);
        if (!this.output) this.output = carriesOutput(chunk);
        for (const choice of chunk.choices) this.trackFinish(choice.index, choice.finish_reason != null);
        this.queue.push(chunk);
      } catch (err) {
        this.fail(err as UpstreamError);
        break;
      }
    }
    events.length = 0;
    if (!this.complete && !this.paused && !this.failure && this.queue.length - this.head > HIGH_WATER) {
      this.paused = true;
      this.source.pause();
    }
    this.wake();
  }

  private trackFinish(index: number, finishes: boolean): void {
    if (finishes) {
      this.unfinished.delete(index);
      this.finished.add(index);
    } else if (!this.finished.has(index)) {
      this.unfinished.add(index);
    }
  }

  /** A failure found in the stream itself: recorded, and the upstream request aborted. */
  private fail(err: UpstreamError): void {
    if (this.failure || this.complete) return;
    this.failure = err;
    this.source.cancel(err);
    this.wake();
  }

  private wake(): void {
    const w = this.waiter;
    if (w) {
      this.waiter = undefined;
      w();
    }
  }
}

function carriesOutput(chunk: UpstreamChunk): boolean {
  return chunk.choices.some(
    ({ delta, finish_reason }) =>
      finish_reason != null ||
      !!delta.content ||
      !!delta.refusal ||
      !!delta.reasoning_content ||
      (delta.tool_calls?.length ?? 0) > 0 ||
      (delta.thinking_blocks?.length ?? 0) > 0,
  );
}

/** A fixed list of chunks as a ChatStream iterator (a provider that answered a stream with JSON). */
export function chunksOf(chunks: UpstreamChunk[]): AsyncIterable<UpstreamChunk> {
  return {
    async *[Symbol.asyncIterator]() {
      yield* chunks;
    },
  };
}
