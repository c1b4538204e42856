import type { Next } from 'koa';
import { countInputTokens } from '../../doors/messages/countTokens.js';
import { messageOf } from '../../doors/messages/answer.js';
import { chatRequestOf } from '../../doors/messages/request.js';
import { messagesEventSink } from '../../doors/messages/stream.js';
import type { Catalog } from '../../gateway/catalog.js';
import type { ChatService } from '../../gateway/chat.js';
import type { MessagesCountTokensRequest, MessagesRequest } from '../../generated/openapi.js';
import type { Operations } from '../operations.js';
import { gatewayContext } from '../requestMeta.js';
import { principalOf, reply, type AppContext } from '../state.js';

const DOOR_PATH = /^\/v1\/messages(\/|$)/;

/**
 * Every answer under /v1/messages, errors included (401s too), is in Anthropic's shape, and carries
 * the request id as Anthropic's `request-id` too (its SDK's `requestID`, what Claude Code logs).
 */
export async function anthropicErrorShape(ctx: AppContext, next: Next): Promise<void> {
  if (DOOR_PATH.test(ctx.path)) {
    ctx.state.errorShape = 'anthropic';
    ctx.state.door = 'messages';
    ctx.set('request-id', ctx.response.get('X-Request-Id'));
  }
  await next();
}

/** Anthropic's Messages API, translated onto the chat service (src/doors/messages/). */
export function messagesRoutes(
  api: Operations,
  { chat, catalog, firewallMaxChars }: { chat: ChatService; catalog: Catalog; firewallMaxChars: number },
): void {
  api.add('createMessage', async (ctx: AppContext) => {
    const body = ctx.state.body as MessagesRequest;
    const { chat: request, notes, anthropic, fieldOf } = await chatRequestOf(body, catalog, (request) => chat.refuseBeyondFirewallBound(principalOf(ctx), request));
    const context = { ...gatewayContext(ctx), notes, fieldOf, contextChecked: true as const, ...(anthropic ? { anthropic } : {}) };
    // What the caller asked for, the first of a chain too (as the Responses door answers).
    const asked = body.model ?? body.models?.[0];
    if (request.stream) {
      await chat.stream(context, request, messagesEventSink(ctx, asked));
      return;
    }
    const answer = await chat.complete(context, request);
    reply(ctx, { ...answer, body: messageOf(answer.body, asked, answer.orders?.[0]) });
  });

  api.add('countMessageTokens', async (ctx: AppContext) => {
    const body = ctx.state.body as MessagesCountTokensRequest;
    ctx.body = { input_tokens: await countInputTokens(principalOf(ctx), body, catalog, firewallMaxChars) };
  });
}
