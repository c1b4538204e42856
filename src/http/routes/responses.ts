import type { ResponsesDoor } from '../../doors/responses/door.js';
import type { ResponsesRequest } from '../../doors/responses/types.js';
import { jsonBody } from '../middleware/body.js';
import { requireScope } from '../middleware/auth.js';
import { applicationName, clientSignal, traceContext } from '../requestMeta.js';
import { sseEventWriter } from '../sse.js';
import { idempotencyOf, principalOf, reply, type AppContext, type AppRouter } from '../state.js';
import type { Validator } from '../validation.js';

// OpenAI's Responses API (CONTRACT.md "Two more front doors"). Its errors are the chat ones: every
// error body already carries the OpenAI-style `error` object that the SDKs and agents read.
export function responsesRoutes(
  router: AppRouter,
  { door, validator, bodyLimitBytes }: { door: ResponsesDoor; validator: Validator; bodyLimitBytes: number },
): void {
  router.post('/responses', requireScope('chat.create'), jsonBody(bodyLimitBytes), validator.body('ResponsesRequest'), async (ctx: AppContext) => {
    const body = ctx.state.body as ResponsesRequest;
    const context = {
      ...idempotencyOf(ctx),
      application: applicationName(ctx),
      traceContext: traceContext(ctx),
      signal: clientSignal(ctx),
      log: ctx.state.log,
    };
    if (body.stream) {
      await door.stream(context, body, sseEventWriter(ctx));
      return;
    }
    reply(ctx, await door.create(context, body));
  });

  router.get('/responses/:id', requireScope('chat.create'), async (ctx) => {
    ctx.body = await door.get(principalOf(ctx).workspaceId, ctx.params.id!);
  });

  router.delete('/responses/:id', requireScope('chat.create'), async (ctx) => {
    ctx.body = await door.delete(principalOf(ctx).workspaceId, ctx.params.id!);
  });
}
