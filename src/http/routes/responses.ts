import type { ResponsesDoor } from '../../doors/responses/door.js';
import type { InputItemQuery } from '../../doors/responses/inputItems.js';
import type { ResponsesRequest } from '../../doors/responses/types.js';
import { validationFailed } from '../../errors.js';
import type { Operations } from '../operations.js';
import { gatewayContext } from '../requestMeta.js';
import { sseEventWriter } from '../sse.js';
import { principalOf, reply, type AppContext } from '../state.js';

// OpenAI's Responses API (CONTRACT.md "Two more front doors"). Its errors are the chat ones: every
// error body already carries the OpenAI-style `error` object that the SDKs and agents read.
export function responsesRoutes(api: Operations, { door }: { door: ResponsesDoor }): void {
  api.add('createResponse', async (ctx: AppContext) => {
    ctx.state.door = 'responses';
    const body = ctx.state.body as ResponsesRequest;
    const context = gatewayContext(ctx);
    if (body.stream) {
      await door.stream(context, body, sseEventWriter(ctx));
      return;
    }
    reply(ctx, await door.create(context, body));
  });

  api.add('getResponse', async (ctx) => {
    // An SDK asked to stream it would otherwise read a JSON answer as a stream of no events.
    if ((ctx.state.query as { stream?: boolean }).stream === true) {
      throw validationFailed({ stream: ['is not served: a stored response is read as JSON, without stream'] });
    }
    ctx.body = await door.get(principalOf(ctx), ctx.params.id!);
  });

  api.add('listResponseInputItems', async (ctx) => {
    ctx.body = await door.inputItems(principalOf(ctx).workspaceId, ctx.params.id!, ctx.state.query as InputItemQuery);
  });

  api.add('deleteResponse', async (ctx) => {
    ctx.body = await door.delete(principalOf(ctx).workspaceId, ctx.params.id!);
  });
}
