import type { ServerResponse } from 'node:http';
import type { EventWriter } from '../doors/responses/stream.js';
import type { SseSink } from '../gateway/chat.js';
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

/** Server-Sent Events straight onto the response, honouring backpressure from slow clients. */
export function sseSink(ctx: AppContext): SseSink {
  const res = ctx.res;
  return {
    open(headers) {
      // Koa stays out of the way from here on; the status is set for the access log.
      ctx.status = 200;
      ctx.respond = false;
      res.writeHead(200, {
        'content-type': 'text/event-stream; charset=utf-8',
        'cache-control': 'no-cache',
        connection: 'keep-alive',
        'x-accel-buffering': 'no',
        'x-request-id': ctx.state.requestId,
        ...headers,
      });
    },
    async send(data) {
      if (res.destroyed) return;
      if (!res.write(`data: ${JSON.stringify(data)}\n\n`) && !res.destroyed) await drainedOrClosed(res);
    },
    end(withDone) {
      if (res.destroyed) return;
      res.end(withDone ? 'data: [DONE]\n\n' : undefined);
    },
  };
}

/** Named Server-Sent Events (`event:` and `data:` lines), as the Responses API streams them. */
export function sseEventWriter(ctx: AppContext): EventWriter {
  const res = ctx.res;
  return {
    open(headers) {
      ctx.status = 200;
      ctx.respond = false;
      res.writeHead(200, {
        'content-type': 'text/event-stream; charset=utf-8',
        'cache-control': 'no-cache',
        connection: 'keep-alive',
        'x-accel-buffering': 'no',
        'x-request-id': ctx.state.requestId,
        ...headers,
      });
    },
    async write(event, data) {
      if (res.destroyed) return;
      if (!res.write(`event: ${event}\ndata: ${JSON.stringify(data)}\n\n`) && !res.destroyed) await drainedOrClosed(res);
    },
    end() {
      if (!res.destroyed) res.end();
    },
  };
}
