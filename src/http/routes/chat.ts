import type { ChatService } from '../../gateway/chat.js';
import type { ChatCompletionRequest } from '../../generated/openapi.js';
import type { Operations } from '../operations.js';
import { applicationName, clientSignal, traceContext } from '../requestMeta.js';
import { sseSink } from '../sse.js';
import { idempotencyOf, reply, type AppContext } from '../state.js';

export function chatRoutes(api: Operations, { chat }: { chat: ChatService }): void {
  api.add('createChatCompletion', async (ctx: AppContext) => {
    const body = ctx.state.body as ChatCompletionRequest;
    const context = {
      ...idempotencyOf(ctx),
      application: applicationName(ctx),
      traceContext: traceContext(ctx),
      signal: clientSignal(ctx),
      log: ctx.state.log,
    };
    if (body.stream) {
      await chat.stream(context, body, sseSink(ctx));
      return;
    }
    reply(ctx, await chat.complete(context, body));
  });
}
