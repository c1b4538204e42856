import type { IncomingMessage } from 'node:http';
import type { Next } from 'koa';
import { badRequest, payloadTooLarge, validationFailed } from '../../errors.js';
import type { AppContext } from '../state.js';
import { jsonTextDeeperThan, MAX_JSON_DEPTH, pathDeeperThan } from '../../jsonDepth.js';
import { nulFieldErrors } from './refuseNul.js';

/**
 * Reads and parses the JSON body, refusing more than `limitBytes` as soon as the limit is crossed
 * (never buffering an oversized upload). An absent body is allowed only when `optional`.
 */
export function jsonBody(limitBytes: number, { optional = false } = {}) {
  return async function jsonBodyMiddleware(ctx: AppContext, next: Next): Promise<void> {
    const declared = Number(ctx.get('content-length') || NaN);
    if (declared > limitBytes) throw payloadTooLarge(limitBytes);
    const read = await readBody(ctx.req, limitBytes);
    if (read === 'too large') {
      // The rest of the upload is not read: the connection closes once the 413 is sent.
      ctx.set('Connection', 'close');
      throw payloadTooLarge(limitBytes);
    }
    const text = read.toString('utf8');
    if (text.trim() === '') {
      if (!optional) throw badRequest('the request body must be a JSON object', 'invalid_json');
      ctx.state.body = undefined;
    } else {
      try {
        ctx.state.body = JSON.parse(text);
      } catch (err) {
        throw badRequest(`the request body is not valid JSON: ${(err as Error).message}`, 'invalid_json');
      }
      // Before anything walks the body (the NUL check below, validation, hashing).
      if (jsonTextDeeperThan(text)) {
        throw validationFailed({ [pathDeeperThan(ctx.state.body) ?? 'body']: [`nests deeper than ${MAX_JSON_DEPTH} levels`] });
      }
      // JSON can carry a NUL only as this escape; the walk is paid only by bodies that have one.
      const nulErrors = text.includes('\\u0000') ? nulFieldErrors(ctx.state.body) : undefined;
      if (nulErrors) throw validationFailed(nulErrors);
    }
    await next();
  };
}

// Plain stream events: an async iterator over the request costs several objects and promises per
// request, a measurable share of the gateway's CPU for bodies that arrive in one chunk.
function readBody(req: IncomingMessage, limitBytes: number): Promise<Buffer | 'too large'> {
  if (req.readableEnded) return Promise.resolve(Buffer.alloc(0));
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const finish = (outcome: () => void) => {
      req.off('data', onData).off('end', onEnd).off('error', onError).off('close', onClose);
      outcome();
    };
    const onData = (chunk: Buffer) => {
      size += chunk.length;
      if (size > limitBytes) {
        req.pause();
        finish(() => resolve('too large'));
      } else chunks.push(chunk);
    };
    const onEnd = () => finish(() => resolve(chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks, size)));
    const onError = (err: Error) => finish(() => reject(err));
    const onClose = () => finish(() => reject(new Error('the client closed the connection before the body was complete')));
    req.on('data', onData).on('end', onEnd).on('error', onError).on('close', onClose);
  });
}
