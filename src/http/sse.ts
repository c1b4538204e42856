import { once } from 'node:events';
import type { SseSink } from '../gateway/chat.js';
import type { AppContext } from './state.js';

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
      if (!res.write(`data: ${JSON.stringify(data)}\n\n`)) await once(res, 'drain');
    },
    end(withDone) {
      if (res.destroyed) return;
      res.end(withDone ? 'data: [DONE]\n\n' : undefined);
    },
  };
}
