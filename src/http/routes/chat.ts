import type { ChatService } from '../../gateway/chat.js';
import type { ChatCompletionRequest } from '../../generated/openapi.js';
import { jsonBody } from '../middleware/body.js';
import { requireScope } from '../middleware/auth.js';
import { applicationName, clientSignal, traceContext } from '../requestMeta.js';
import { sseSink } from '../sse.js';
import { idempotencyOf, reply, type AppContext, type AppRouter } from '../state.js';
import type { Validator } from '../validation.js';

export function chatRoutes(
  router: AppRouter,
  { chat, validator, bodyLimitBytes }: { chat: ChatService; validator: Validator; bodyLimitBytes: number },
): void {
  router.post(
    '/chat/completions',
    requireScope('chat.create'),
    jsonBody(bodyLimitBytes),
    validator.body('ChatCompletionRequest'),
    async (ctx: AppContext) => {
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
    },
  );
}
