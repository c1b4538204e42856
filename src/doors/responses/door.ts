import type { Pool } from '../../db/pool.js';
import { notFound, validationFailed } from '../../errors.js';
import { heldMemory, memoryReadNeeded, type ChatContext, type ChatReply, type ChatService } from '../../gateway/chat.js';
import type { Principal } from '../../tenancy/store.js';
import type { Validator } from '../../http/validation.js';
import type { Catalog } from '../../gateway/catalog.js';
import { capWithinContext } from '../../gateway/answerRoom.js';
import { renameFields } from '../fieldOrigins.js';
import { finishedResponse, outcomeOfCompletion, responseIdOf, type ResponseFrame } from './answer.js';
import { chatRequestOf, type DoorRequest } from './request.js';
import { inputItemPage, type InputItemPage, type InputItemQuery } from './inputItems.js';
import { chainOf, deleteResponse, findResponse, findResponseInput, type StoredTurn } from './store.js';
import { ResponsesStream, type EventWriter } from './stream.js';
import type { ResponseObject, ResponsesRequest } from './types.js';

// POST /v1/responses is a translation onto the chat service, not a second gateway: routing,
// fallback, egress guard, firewall, memory, cache, idempotency, limits, metering, trace and audit
// all happen in ChatService. The door adds the chain of stored turns in front and the stored
// response behind, which the chat service writes in the same group commit as the request's usage,
// trace and replayable answer (ChatContext.keepAnswer): a response that was answered is stored,
// and a replay never needs to store it again.

export class ResponsesDoor {
  constructor(private readonly deps: { chat: ChatService; pool: Pool; validator: Validator; catalog: Catalog }) {}

  async create(ctx: ChatContext, body: ResponsesRequest): Promise<ChatReply> {
    const { door, frame, chatCtx, answered } = await this.prepare(ctx, body);
    const reply = await this.deps.chat.complete(chatCtx, door.chat);
    // A replay did not answer anew: its response is made from the kept chat answer, as the first was.
    const response = answered.response ?? responseOfChatAnswer(frame, reply);
    return { body: response, headers: reply.headers };
  }

  async stream(ctx: ChatContext, body: ResponsesRequest, writer: EventWriter): Promise<void> {
    const { door, frame, chatCtx, answered } = await this.prepare(ctx, body);
    const events = new ResponsesStream(writer, frame);
    await this.deps.chat.stream(chatCtx, { ...door.chat, stream: true }, events);
    if (events.outcome === 'failed') return;
    if (events.outcome === 'unfinished') {
      writer.end();
      return;
    }
    // By now the response is stored (when asked): a follow-up that names it finds it. A replay was
    // streamed in the order the answer first streamed in, so its own items are the first's.
    await events.complete(answered.response ?? events.finishedResponse());
  }

  async get(principal: Pick<Principal, 'workspaceId' | 'scopes'>, id: string): Promise<ResponseObject> {
    const response = await findResponse(this.deps.pool, principal.workspaceId, id);
    if (!response) throw notFound(`no response ${id}`);
    // A turn that continues one memory was retrieved into carries it too (the model read it).
    if (!principal.scopes.includes('memory.read') && (heldMemory(response) || (await chainOf(this.deps.pool, principal.workspaceId, id)).some((turn) => heldMemory(turn.response)))) {
      throw memoryReadNeeded('reading a response that memory was retrieved into, or that continues one');
    }
    return response;
  }

  async inputItems(workspaceId: string, id: string, query: InputItemQuery): Promise<InputItemPage> {
    const input = await findResponseInput(this.deps.pool, workspaceId, id);
    if (!input) throw notFound(`no response ${id}`);
    return inputItemPage(id, input, query);
  }

  async delete(workspaceId: string, id: string): Promise<{ id: string; object: 'response'; deleted: true }> {
    if (!(await deleteResponse(this.deps.pool, workspaceId, id))) throw notFound(`no response ${id}`);
    return { id, object: 'response', deleted: true };
  }

  private async prepare(
    ctx: ChatContext,
    body: ResponsesRequest,
  ): Promise<{ door: DoorRequest; frame: ResponseFrame; chatCtx: ChatContext; answered: Answered }> {
    const workspaceId = ctx.principal.workspaceId;
    const previous = body.previous_response_id ?? undefined;
    const chain = previous !== undefined ? await chainOf(this.deps.pool, workspaceId, previous) : [];
    if (previous !== undefined && chain.length === 0) {
      throw notFound(`no response ${previous} (previous_response_id)`, { name: 'previous_response_id', code: 'previous_response_not_found' });
    }
    if (!ctx.principal.scopes.includes('memory.read') && chain.some((turn) => heldMemory(turn.response))) {
      throw memoryReadNeeded('continuing a response that memory was retrieved into (previous_response_id)');
    }
    const door = chatRequestOf({ ...body, ...continuedEndUser(body, chain) }, chain);
    // The translation is checked like a chat body, so nothing it builds reaches a provider unchecked;
    // what fails is named as the caller sent it.
    const errors = this.deps.validator.check('ChatCompletionRequest', door.chat);
    if (errors) throw validationFailed(renameFields(errors, door.fieldOf));
    // As on the chat API, a prompt too long for the firewall to scan is told so before the context.
    this.deps.chat.refuseBeyondFirewallBound(ctx.principal, door.chat);
    const lowered = await capWithinContext(this.deps.catalog, door.chat, door.chat.max_completion_tokens ?? undefined, { cap: 'max_output_tokens', prompt: 'input' });
    if (lowered) {
      door.chat.max_completion_tokens = lowered.cap;
      door.notes.push(lowered.note);
    }
    const id = responseIdOf(workspaceId, ctx.requestId);
    let restore = (text: string) => text;
    const frame: ResponseFrame = {
      id,
      createdAt: Math.floor(Date.now() / 1000),
      request: body,
      model: body.model ?? body.models?.[0] ?? '',
      showThinking: (text) => restore(text),
    };
    const answered: Answered = {};
    const chatCtx: ChatContext = {
      ...ctx,
      fieldOf: door.fieldOf,
      contextChecked: true,
      capField: 'max_output_tokens',
      // A retry that asks to store what the first did not (or the reverse) is another request.
      doorFields: { store: body.store !== false },
      withRestorer: (restorer) => (restore = restorer),
      notes: [`answered through the Responses door as ${id}${previous ? `, continuing ${previous} (${chain.length} earlier turns)` : ''}`, ...door.notes],
      // Called once the chat is answered (not for a replay): the response, and with `store` (default
      // true) the row that keeps it and this turn's input for previous_response_id and GET.
      keepAnswer: (answer) => {
        // From the answer as kept for replays and cache hits (its orders too), so that they, the
        // stream and GET list the same items in the same order.
        const response = responseOfChatAnswer(frame, answer);
        answered.response = response;
        if (body.store === false) return undefined;
        return {
          workspace_id: workspaceId,
          organization_id: ctx.principal.organizationId,
          id,
          request_id: ctx.requestId,
          previous_response_id: previous ?? null,
          end_user: door.chat.user ?? null,
          input: door.input,
          response,
        };
      },
    };
    return { door, frame, chatCtx, answered };
  }
}

/**
 * The end-user of a continuation: the one its request names, or else the one the conversation it
 * continues named, so that the turns it carries (theirs) are held as theirs and go with their
 * erasure. Naming another end-user than the conversation's would file their words under someone
 * else: a 422.
 */
function continuedEndUser(body: ResponsesRequest, chain: readonly StoredTurn[]): { user?: string } {
  const theirs = chain.findLast((turn) => turn.end_user !== null)?.end_user ?? undefined;
  if (theirs === undefined) return {};
  if (body.user !== undefined && body.user !== theirs) {
    throw validationFailed({
      user: ['differs from the end-user of the conversation previous_response_id continues; send the same user, or none to continue as theirs'],
    });
  }
  return { user: theirs };
}

/** What the chat service's answer made (not for a replay). */
interface Answered {
  response?: ResponseObject;
}

function responseOfChatAnswer(frame: ResponseFrame, { body, orders }: Pick<ChatReply, 'body' | 'orders'>): ResponseObject {
  const order = orders?.[0];
  const outcome = { ...outcomeOfCompletion(body, frame.showThinking), ...(order ? { order } : {}) };
  return finishedResponse({ ...frame, createdAt: Number(body.created) || frame.createdAt }, outcome);
}
