import type { ServerResponse } from 'node:http';
import type { EventWriter } from '../doors/responses/stream.js';
import type { SseSink, StreamEnd } from '../gateway/chat.js';
import type { AppContext } from './state.js';

// A client that stops reading and then goes away never drains the socket: waiting for 'drain'
// alone would hold the request (unbilled, its id answering 409, its memory kept) forever.
export function drainedOrClosed(res: ServerResponse): Promise<void> {
  return new Promise((resolve) => {
    const done = () => {
      res.off('drain', done);
      res.off('close', done);
      resolve();
    };
    res.on('drain', done);
    res.on('close', done);
  });
}

/** Starts an answer of Server-Sent Events: Koa stays out of the way from here on. */
export function openEventStream(ctx: AppContext, headers: Record<string, string>): void {
  // The status is set for the access log.
  ctx.status = 200;
  ctx.respond = false;
  ctx.res.writeHead(200, {
    'content-type': 'text/event-stream; charset=utf-8',
    'cache-control': 'no-cache',
    connection: 'keep-alive',
    'x-accel-buffering': 'no',
    ...headers,
  });
}

/**
 * How a stream that went out with a 200 header ended, when not as that said: the access log and
 * /metrics count it as its trace does, 502 when it ended with an error event (a provider that
 * broke off, an answer that could not be recorded), 499 when the client left it.
 */
export function streamEndedAs(ctx: AppContext, outcome: StreamEnd): void {
  if (outcome !== 'done') ctx.state.streamStatus = outcome === 'failed' ? 502 : 499;
}

/** One named event (`event:` and `data:` lines), as the Messages and Responses APIs stream them. */
export function eventFrame(event: string, data: unknown): string {
  return `event: ${event}\ndata: ${JSON.stringify(data)}\n\n`;
}

/** Writes one frame, waiting while a slow client's socket is full (or until the client goes away). */
export async function writeFrame(res: ServerResponse, frame: string): Promise<void> {
  if (res.destroyed) return;
  if (!res.write(frame) && !res.destroyed) await drainedOrClosed(res);
}

/** Chat's Server-Sent Events (`data:` lines) straight onto the response. */
export function sseSink(ctx: AppContext): SseSink {
  const res = ctx.res;
  return {
    open: (headers) => openEventStream(ctx, headers),
    send: (data) => writeFrame(res, `data: ${JSON.stringify(data)}\n\n`),
    end(outcome) {
      streamEndedAs(ctx, outcome);
      if (res.destroyed) return;
      res.end(outcome === 'done' ? 'data: [DONE]\n\n' : undefined);
    },
  };
}

/** Named Server-Sent Events (`event:` and `data:` lines), as the Responses API streams them. */
export function sseEventWriter(ctx: AppContext): EventWriter {
  const res = ctx.res;
  return {
    open: (headers) => openEventStream(ctx, headers),
    write: (event, data) => writeFrame(res, eventFrame(event, data)),
    end(failed) {
      if (failed) streamEndedAs(ctx, 'failed');
      if (!res.destroyed) res.end();
    },
    closed: () => streamEndedAs(ctx, 'closed'),
  };
}
