import type { Dispatcher } from 'undici';
import { abortedError, type CallContext, statusError, transportError } from '../openai/errors.js';

// One HTTP call to the Messages API through a kept-alive pool: the headers must come within the
// provider's timeout, the body may not stall longer than its body timeout, and the client going
// away aborts it (the provider then sees the connection close).

/** At most this much of an error answer is read for its message. */
const MAX_ERROR_BODY = 64 * 1024;

export interface MessagesCall {
  dispatcher: Dispatcher;
  path: string;
  headers: Record<string, string>;
  body: string;
  ctx: CallContext;
}

async function errorText(body: AsyncIterable<Buffer>): Promise<string> {
  let text = '';
  for await (const piece of body) {
    text += piece.toString('utf8');
    if (text.length > MAX_ERROR_BODY) break;
  }
  return text.slice(0, MAX_ERROR_BODY);
}

/** The 2xx response; any other status, a timeout or a transport failure is an UpstreamError. */
export async function post(spec: MessagesCall): Promise<Dispatcher.ResponseData> {
  const { ctx } = spec;
  if (ctx.signal.aborted) throw abortedError(ctx.providerId);
  let response: Dispatcher.ResponseData;
  try {
    response = await spec.dispatcher.request({
      path: spec.path,
      method: 'POST',
      headers: spec.headers,
      body: spec.body,
      signal: ctx.signal,
      headersTimeout: ctx.timeoutMs,
      bodyTimeout: ctx.bodyTimeoutMs,
    });
  } catch (err) {
    throw transportError(err, ctx);
  }
  if (response.statusCode >= 200 && response.statusCode < 300) return response;
  const retryAfter = response.headers['retry-after'];
  let text = '';
  try {
    text = await errorText(response.body);
  } catch {
    // the message is a courtesy; the status decides
  }
  throw statusError(response.statusCode, Array.isArray(retryAfter) ? retryAfter[0] : retryAfter, text, ctx);
}

/** The response body read whole as JSON. */
export async function jsonOf(response: Dispatcher.ResponseData, ctx: CallContext): Promise<unknown> {
  try {
    return await response.body.json();
  } catch (err) {
    throw transportError(err, ctx);
  }
}
