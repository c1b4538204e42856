import type { ChatContext, TraceContext } from '../gateway/chat.js';
import { idempotencyOf, type AppContext } from './state.js';

const MAX_APPLICATION_NAME = 120;
const TRACEPARENT = /^([0-9a-f]{2})-([0-9a-f]{32})-([0-9a-f]{16})-([0-9a-f]{2})$/;

/** The application name header (or its aliases); a value over 120 characters is ignored, not cut. */
export function applicationName(ctx: AppContext): string | null {
  const value = ctx.get('x-application-name') || ctx.get('x-title') || ctx.get('x-openrouter-title');
  return value && value.length <= MAX_APPLICATION_NAME ? value : null;
}

/** W3C trace context; anything unparsable (or the all-zero ids the spec forbids) is ignored. */
export function traceContext(ctx: AppContext): TraceContext | null {
  const match = TRACEPARENT.exec(ctx.get('traceparent').trim().toLowerCase());
  if (!match || match[1] === 'ff') return null;
  const [, , traceId, parentSpanId] = match;
  if (/^0+$/.test(traceId!) || /^0+$/.test(parentSpanId!)) return null;
  return { traceId: traceId!, parentSpanId: parentSpanId! };
}

/**
 * Aborted when the client goes away before its response is complete, or when the web process
 * stops the request at shutdown (the reason is then a ServerStopping).
 */
export function clientSignal(ctx: AppContext): AbortSignal {
  const controller = new AbortController();
  ctx.res.once('close', () => {
    if (!ctx.res.writableFinished) controller.abort();
  });
  const stopSignal = ctx.state.stopSignal;
  return stopSignal ? AbortSignal.any([controller.signal, stopSignal]) : controller.signal;
}

/** Who asks, under which id, from which application and trace, until when: what every door gives the gateway. */
export function gatewayContext(ctx: AppContext): ChatContext {
  return {
    ...idempotencyOf(ctx),
    application: applicationName(ctx),
    traceContext: traceContext(ctx),
    signal: clientSignal(ctx),
    log: ctx.state.log,
  };
}
