import type { Pool } from '../../db/pool.js';
import { notFound, validationFailed } from '../../errors.js';
import type { ChatContext, ChatReply, ChatService } from '../../gateway/chat.js';
import type { Validator } from '../../http/validation.js';
import { finishedResponse, outcomeOfCompletion, responseIdOf, type ResponseFrame } from './answer.js';
import { chatRequestOf, type DoorRequest } from './request.js';
import { chainOf, deleteResponse, findResponse, storeResponse } from './store.js';
import { ResponsesStream, type EventWriter } from './stream.js';
import type { ResponseObject, ResponsesRequest } from './types.js';

// POST /v1/responses is a translation onto the chat service, not a second gateway: routing,
// fallback, egress guard, firewall, memory, cache, idempotency, limits, metering, trace and audit
// all happen in ChatService. The door adds the chain of stored turns in front and the stored
// response behind.

export class ResponsesDoor {
  constructor(private readonly deps: { chat: ChatService; pool: Pool; validator: Validator }) {}

  async create(ctx: ChatContext, body: ResponsesRequest): Promise<ChatReply> {
    const { door, frame, chatCtx } = await this.prepare(ctx, body);
    const reply = await this.deps.chat.complete(chatCtx, door.chat);
    const response = finishedResponse({ ...frame, createdAt: Number(reply.body.created) || frame.createdAt }, outcomeOfCompletion(reply.body));
    await this.keep(ctx, body, door, response);
    return { body: response, headers: reply.headers };
  }

  async stream(ctx: ChatContext, body: ResponsesRequest, writer: EventWriter): Promise<void> {
    const { door, frame, chatCtx } = await this.prepare(ctx, body);
    const events = new ResponsesStream(writer, frame);
    await this.deps.chat.stream(chatCtx, { ...door.chat, stream: true }, events);
    if (events.outcome === 'failed') return;
    if (events.outcome === 'unfinished') {
      writer.end();
      return;
    }
    const response = events.finishedResponse();
    try {
      await this.keep(ctx, body, door, response);
    } catch (err) {
      // The answer is recorded and billed, but a follow-up could not find it: say so rather than complete.
      ctx.log.error({ err }, 'could not store a streamed response');
      await events.fail('storage_failed', 'the response was answered but could not be stored; retry with the same request id to replay it');
      return;
    }
    await events.complete(response);
  }

  async get(workspaceId: string, id: string): Promise<ResponseObject> {
    const response = await findResponse(this.deps.pool, workspaceId, id);
    if (!response) throw notFound(`no response ${id}`);
    return response;
  }

  async delete(workspaceId: string, id: string): Promise<{ id: string; object: 'response'; deleted: true }> {
    if (!(await deleteResponse(this.deps.pool, workspaceId, id))) throw notFound(`no response ${id}`);
    return { id, object: 'response', deleted: true };
  }

  private async prepare(ctx: ChatContext, body: ResponsesRequest): Promise<{ door: DoorRequest; frame: ResponseFrame; chatCtx: ChatContext }> {
    const workspaceId = ctx.principal.workspaceId;
    const previous = body.previous_response_id ?? undefined;
    const chain = previous !== undefined ? await chainOf(this.deps.pool, workspaceId, previous) : [];
    if (previous !== undefined && chain.length === 0) throw notFound(`no response ${previous} (previous_response_id)`);
    const door = chatRequestOf(body, chain);
    // The translation is checked like a chat body, so nothing it builds reaches a provider unchecked.
    const errors = this.deps.validator.check('ChatCompletionRequest', door.chat);
    if (errors) throw validationFailed(errors);
    const id = responseIdOf(workspaceId, ctx.requestId);
    const frame: ResponseFrame = { id, createdAt: Math.floor(Date.now() / 1000), request: body, model: body.model ?? body.models?.[0] ?? '' };
    const chatCtx: ChatContext = {
      ...ctx,
      notes: [`answered through the Responses door as ${id}${previous ? `, continuing ${previous} (${chain.length} earlier turns)` : ''}`, ...door.notes],
    };
    return { door, frame, chatCtx };
  }

  /** `store` (default true) keeps the response and this turn's input for `previous_response_id` and GET. */
  private async keep(ctx: ChatContext, body: ResponsesRequest, door: DoorRequest, response: ResponseObject): Promise<void> {
    if (body.store === false) return;
    await storeResponse(this.deps.pool, {
      workspaceId: ctx.principal.workspaceId,
      organizationId: ctx.principal.organizationId,
      requestId: ctx.requestId,
      previousResponseId: body.previous_response_id ?? null,
      endUser: body.user ?? null,
      input: door.input,
      response,
    });
  }
}
