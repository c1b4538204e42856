import type { ChatService } from '../../gateway/chat.js';
import type { ChatCompletionRequest } from '../../generated/openapi.js';
import type { Operations } from '../operations.js';
import { gatewayContext } from '../requestMeta.js';
import { sseSink } from '../sse.js';
import { reply, type AppContext } from '../state.js';

export function chatRoutes(api: Operations, { chat }: { chat: ChatService }): void {
  api.add('createChatCompletion', async (ctx: AppContext) => {
    const body = ctx.state.body as ChatCompletionRequest;
    const context = gatewayContext(ctx);
    if (body.stream) {
      await chat.stream(context, body, sseSink(ctx));
      return;
    }
    reply(ctx, await chat.complete(context, body));
  });
}
