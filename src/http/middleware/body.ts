import type { Next } from 'koa';
import { badRequest, payloadTooLarge } from '../../errors.js';
import type { AppContext } from '../state.js';

/**
 * Reads and parses the JSON body, refusing more than `limitBytes` as soon as the limit is crossed
 * (never buffering an oversized upload). An absent body is allowed only when `optional`.
 */
export function jsonBody(limitBytes: number, { optional = false } = {}) {
  return async function jsonBodyMiddleware(ctx: AppContext, next: Next): Promise<void> {
    const declared = Number(ctx.get('content-length') || NaN);
    if (declared > limitBytes) throw payloadTooLarge(limitBytes);
    const chunks: Buffer[] = [];
    let size = 0;
    for await (const chunk of ctx.req as AsyncIterable<Buffer>) {
      size += chunk.length;
      if (size > limitBytes) throw payloadTooLarge(limitBytes);
      chunks.push(chunk);
    }
    const text = Buffer.concat(chunks, size).toString('utf8');
    if (text.trim() === '') {
      if (!optional) throw badRequest('the request body must be a JSON object', 'invalid_json');
      ctx.state.body = undefined;
    } else {
      try {
        ctx.state.body = JSON.parse(text);
      } catch (err) {
        throw badRequest(`the request body is not valid JSON: ${(err as Error).message}`, 'invalid_json');
      }
    }
    await next();
  };
}
