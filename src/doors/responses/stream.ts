import type { SseSink, StreamEnd } from '../../gateway/chat.js';
import type { AnswerRun, ThinkingBlock, UpstreamChunk } from '../../gateway/providers/types.js';
import {
  contentPart,
  finishedResponse,
  functionCallItem,
  itemIdOf,
  messageItem,
  messageItemOf,
  reasoningAsSummary,
  reasoningItem,
  responseObject,
  thinkingText,
  type ChatOutcome,
  type ChatUsage,
  type ResponseFrame,
} from './answer.js';
import type { FunctionCallItem, MessageItem, OutputItem, ReasoningItem, ResponseObject } from './types.js';

// Chat chunks in, Responses events out. The chat service opens the sink only once the provider's
// first output came (after any fallback), so `response.created` is never sent for a provider that
// then fails over. A chat error frame after that becomes `response.failed` and an `error` event;
// the clean end (`response.completed`) is left to the door, which stores the response first.

/** Where the events go: SSE frames on the client's response. */
export interface EventWriter {
  open(headers: Record<string, string>): void;
  write(event: string, data: unknown): Promise<void>;
  /** `failed`: the stream ends with an error event. */
  end(failed?: boolean): void;
  /** The client left: the stream is counted as 499 (sse.ts). */
  closed(): void;
}

type ChatFrame = { created?: number; choices?: UpstreamChunk['choices']; usage?: ChatUsage; sources?: unknown[]; model?: string; error?: { message: string; code?: string | null } };

/** A part of a message item: its text, or what the model refused with. */
interface OpenPart {
  type: 'output_text' | 'refusal';
  text: string;
}

interface OpenMessage {
  kind: 'message';
  index: number;
  /** In the order they came; the last is the one open. */
  parts: OpenPart[];
}

interface OpenReasoning {
  kind: 'reasoning';
  index: number;
  text: string;
}

interface OpenCall {
  kind: 'call';
  index: number;
  /** The chat tool call's index within the choice. */
  chatIndex: number;
  id: string;
  name: string;
  arguments: string;
  /** Begun while another call was open: sent whole once that one is done. */
  waiting?: boolean;
}

export class ResponsesStream implements SseSink {
  private sequence = 0;
  private opened = false;
  private readonly done: OutputItem[] = [];
  private current: OpenReasoning | OpenMessage | OpenCall | undefined;
  private readonly calls = new Map<number, OpenCall>();
  /**
   * Calls a provider began while another was still streaming (chat streams may interleave them):
   * an item's events may not interleave, so they go out whole after it, at the output indices
   * they were given.
   */
  private readonly waiting: OpenCall[] = [];
  private text = '';
  private refusal = '';
  /** The messages and calls in the order they opened: the final output lists the items so. */
  private readonly items: (OpenMessage | OpenCall)[] = [];
  private reasoning = '';
  private readonly thinkingBlocks: ThinkingBlock[] = [];
  private finishReason: string | undefined;
  private usage: ChatUsage | null = null;
  private sources: unknown[] = [];
  private model: string;
  private readonly frame: ResponseFrame;
  /** How the chat stream ended: with an answer, with an error, or not at all (client gone). */
  outcome: 'answered' | 'failed' | 'unfinished' = 'unfinished';

  constructor(
    private readonly writer: EventWriter,
    frame: ResponseFrame,
  ) {
    this.frame = { ...frame };
    this.model = frame.model;
  }

  open(headers: Record<string, string>): void {
    this.writer.open(headers);
  }

  async send(data: unknown): Promise<void> {
    const frame = data as ChatFrame;
    if (frame.model) this.model = frame.model;
    if (!this.opened) {
      this.opened = true;
      // The chat answer's own time: a replay of it says the same.
      if (frame.created) this.frame.createdAt = frame.created;
      const response = this.snapshot('in_progress', []);
      await this.emit('response.created', { response });
      await this.emit('response.in_progress', { response });
    }
    if (frame.error) {
      await this.fail(frame.error.code ?? 'upstream_stream_error', frame.error.message);
      return;
    }
    for (const choice of frame.choices ?? []) {
      if (choice.index !== 0) continue;
      const { content, refusal, tool_calls: calls, reasoning_content: reasoning, thinking_blocks: blocks } = choice.delta;
      if (reasoning) await this.reasoningDelta(reasoning);
      for (const block of blocks ?? []) {
        this.thinkingBlocks.push(block);
        // A redacted block has no text, but it opens the reasoning item all the same (its output index is taken).
        const masked = thinkingText([block]);
        const text = masked === null || !this.frame.showThinking ? masked : this.frame.showThinking(masked);
        await this.reasoningDelta(text === null ? '' : this.reasoning === '' ? text : `\n\n${text}`);
      }
      if (content) await this.messageDelta('output_text', content);
      if (refusal) await this.messageDelta('refusal', refusal);
      for (const call of calls ?? []) await this.callDelta(call);
      if (choice.finish_reason) this.finishReason = choice.finish_reason;
    }
    if (frame.usage) this.usage = frame.usage;
    if (frame.sources) this.sources = frame.sources;
  }

  end(outcome: StreamEnd): void {
    if (this.outcome === 'unfinished' && outcome === 'done') this.outcome = 'answered';
    if (outcome === 'closed') this.writer.closed();
  }

  /** The order the text, refusal and calls streamed in (see `ChatOutcome.order`). */
  private order(): AnswerRun[] {
    return this.items.flatMap((open): AnswerRun[] =>
      open.kind === 'call' ? [{ tool_call: open.chatIndex }] : open.parts.map((part) => (part.type === 'output_text' ? { content: part.text.length } : { refusal: part.text.length }))
    );
  }

  /** The answer as the chat stream delivered it, for the final object of a replay (which is not stored again). */
  chatOutcome(): ChatOutcome {
    return {
      model: this.model,
      reasoning: this.reasoning === '' ? null : this.reasoning,
      thinkingBlocks: this.thinkingBlocks,
      text: this.text === '' ? null : this.text,
      refusal: this.refusal === '' ? null : this.refusal,
      // By their chat index, which the runs name them by.
      toolCalls: [...this.calls.values()].sort((a, b) => a.chatIndex - b.chatIndex).map(({ id, name, arguments: args }) => ({ id, name, arguments: args })),
      finishReason: this.finishReason ?? 'stop',
      usage: this.usage,
      sources: this.sources,
      order: this.order(),
    };
  }

  /** The whole response, built as the JSON answer is. */
  finishedResponse(): ResponseObject {
    return finishedResponse(this.frame, this.chatOutcome());
  }

  /**
   * Closes the open item and sends the whole response: `response.completed`, or, as OpenAI ends an
   * answer cut by max_output_tokens or a content filter, `response.incomplete`.
   */
  async complete(response: ResponseObject): Promise<void> {
    if (!this.opened) await this.send({});
    await this.closeCurrent(response.output);
    await this.emit(response.status === 'incomplete' ? 'response.incomplete' : 'response.completed', { response });
    this.writer.end();
  }

  /** A failure after the stream began: the response fails, and an `error` event says why. */
  async fail(code: string, message: string): Promise<void> {
    if (this.outcome === 'failed') return;
    this.outcome = 'failed';
    const output = [...this.done];
    const response = this.snapshot('failed', output, { code, message });
    await this.emit('response.failed', { response });
    await this.emit('error', { code, message, param: null });
    this.writer.end(true);
  }

  private snapshot(status: ResponseObject['status'], output: OutputItem[], error?: { code: string; message: string }): ResponseObject {
    return responseObject(
      { ...this.frame, model: this.model },
      { status, output, usage: null, sources: [], ...(error ? { error } : {}) },
    );
  }

  private async emit(type: string, fields: Record<string, unknown>): Promise<void> {
    await this.writer.write(type, { type, sequence_number: this.sequence++, ...fields });
  }

  private nextIndex(): number {
    return this.done.length + (this.current ? 1 : 0) + this.waiting.length;
  }

  private async reasoningDelta(delta: string): Promise<void> {
    // As the item's summary when the request asked for summaries (see reasoningAsSummary), else as its content.
    const asSummary = reasoningAsSummary(this.frame.request);
    if (this.current?.kind !== 'reasoning') {
      await this.closeCurrent();
      const index = this.nextIndex();
      this.current = { kind: 'reasoning', index, text: '' };
      const { id } = reasoningItem(this.frame.id, index, '', [], asSummary);
      if (asSummary) {
        await this.emit('response.output_item.added', { output_index: index, item: { id, type: 'reasoning', summary: [] } });
        await this.emit('response.reasoning_summary_part.added', { item_id: id, output_index: index, summary_index: 0, part: { type: 'summary_text', text: '' } });
      } else {
        await this.emit('response.output_item.added', { output_index: index, item: { id, type: 'reasoning', summary: [], content: [] } });
        await this.emit('response.content_part.added', { item_id: id, output_index: index, content_index: 0, part: { type: 'reasoning_text', text: '' } });
      }
    }
    const open = this.current as OpenReasoning;
    if (delta === '') return;
    open.text += delta;
    this.reasoning += delta;
    const itemId = itemIdOf(this.frame.id, 'rs', open.index);
    if (asSummary) await this.emit('response.reasoning_summary_text.delta', { item_id: itemId, output_index: open.index, summary_index: 0, delta });
    else await this.emit('response.reasoning_text.delta', { item_id: itemId, output_index: open.index, content_index: 0, delta });
  }

  private async messageDelta(type: OpenPart['type'], delta: string): Promise<void> {
    if (this.current?.kind !== 'message') {
      // Text after a tool call is rare; it starts a message of its own place.
      await this.closeCurrent();
      const index = this.nextIndex();
      this.current = { kind: 'message', index, parts: [] };
      this.items.push(this.current);
      const item = messageItem(this.frame.id, index, '', 'in_progress');
      await this.emit('response.output_item.added', { output_index: index, item: { ...item, content: [] } });
    }
    const open = this.current as OpenMessage;
    const itemId = itemIdOf(this.frame.id, 'msg', open.index);
    let part = open.parts[open.parts.length - 1];
    if (part?.type !== type) {
      // A refusal after text (or text after a refusal) is a part of its own, as in OpenAI's message items.
      if (part) await this.partDone(itemId, open);
      part = { type, text: '' };
      open.parts.push(part);
      await this.emit('response.content_part.added', { item_id: itemId, output_index: open.index, content_index: open.parts.length - 1, part: contentPart(type, '') });
    }
    part.text += delta;
    // Written out, not spread from a shared object: this runs for every delta of every stream.
    if (type === 'output_text') {
      this.text += delta;
      await this.emit('response.output_text.delta', { item_id: itemId, output_index: open.index, content_index: open.parts.length - 1, delta, logprobs: [] });
    } else {
      this.refusal += delta;
      await this.emit('response.refusal.delta', { item_id: itemId, output_index: open.index, content_index: open.parts.length - 1, delta });
    }
  }

  /** The done events of a message's last part; with the final item, the part as it is in it. */
  private async partDone(itemId: string, open: OpenMessage, final?: MessageItem): Promise<void> {
    const contentIndex = open.parts.length - 1;
    const part = open.parts[contentIndex]!;
    const where = { item_id: itemId, output_index: open.index, content_index: contentIndex };
    const finalPart = final?.content[contentIndex];
    if (part.type === 'output_text') await this.emit('response.output_text.done', { ...where, text: part.text, logprobs: [] });
    else await this.emit('response.refusal.done', { ...where, refusal: part.text });
    await this.emit('response.content_part.done', { ...where, part: finalPart?.type === part.type ? finalPart : contentPart(part.type, part.text) });
  }

  private async callDelta(delta: NonNullable<UpstreamChunk['choices'][number]['delta']['tool_calls']>[number]): Promise<void> {
    let open = this.calls.get(delta.index);
    if (!open && this.current?.kind === 'call') {
      open = { kind: 'call', index: this.current.index + 1 + this.waiting.length, chatIndex: delta.index, id: '', name: '', arguments: '', waiting: true };
      this.calls.set(delta.index, open);
      this.items.push(open);
      this.waiting.push(open);
    }
    if (open?.waiting) {
      if (delta.id) open.id = delta.id;
      if (delta.function?.name) open.name += delta.function.name;
      open.arguments += delta.function?.arguments ?? '';
      return;
    }
    if (!open) {
      await this.closeCurrent();
      open = { kind: 'call', index: this.nextIndex(), chatIndex: delta.index, id: delta.id ?? '', name: delta.function?.name ?? '', arguments: '' };
      this.calls.set(delta.index, open);
      this.items.push(open);
      this.current = open;
      const item = functionCallItem(this.frame.id, open.index, open, 'in_progress');
      await this.emit('response.output_item.added', { output_index: open.index, item });
    } else {
      if (delta.id) open.id = delta.id;
      if (delta.function?.name) open.name += delta.function.name;
    }
    const args = delta.function?.arguments;
    if (args) {
      open.arguments += args;
      await this.emit('response.function_call_arguments.delta', {
        item_id: functionCallItem(this.frame.id, open.index, open, 'in_progress').id,
        output_index: open.index,
        delta: args,
      });
    }
  }

  /** Sends the done events of the open item; with the final output, the items as they are in it. */
  private async closeCurrent(finalOutput?: OutputItem[]): Promise<void> {
    const open = this.current;
    if (!open) return;
    this.current = undefined;
    if (open.kind === 'reasoning') {
      const asSummary = reasoningAsSummary(this.frame.request);
      const item = finalOf<ReasoningItem>(finalOutput, open.index, 'reasoning') ?? reasoningItem(this.frame.id, open.index, open.text, this.thinkingBlocks, asSummary);
      const where = { item_id: item.id, output_index: open.index };
      if (asSummary) {
        await this.emit('response.reasoning_summary_text.done', { ...where, summary_index: 0, text: open.text });
        await this.emit('response.reasoning_summary_part.done', { ...where, summary_index: 0, part: { type: 'summary_text', text: open.text } });
      } else {
        await this.emit('response.reasoning_text.done', { ...where, content_index: 0, text: open.text });
        await this.emit('response.content_part.done', { ...where, content_index: 0, part: { type: 'reasoning_text', text: open.text } });
      }
      await this.emit('response.output_item.done', { output_index: open.index, item });
      this.done.push(item);
    } else if (open.kind === 'message') {
      const final = finalOf<MessageItem>(finalOutput, open.index, 'message');
      const item = final ?? messageItemOf(this.frame.id, open.index, open.parts.map((part) => contentPart(part.type, part.text)), 'completed');
      await this.partDone(item.id, open, final);
      await this.emit('response.output_item.done', { output_index: open.index, item });
      this.done.push(item);
    } else {
      await this.callDone(open, finalOutput);
      for (const call of this.waiting.splice(0)) {
        call.waiting = false;
        const added = functionCallItem(this.frame.id, call.index, { ...call, arguments: '' }, 'in_progress');
        await this.emit('response.output_item.added', { output_index: call.index, item: added });
        if (call.arguments !== '') {
          await this.emit('response.function_call_arguments.delta', { item_id: added.id, output_index: call.index, delta: call.arguments });
        }
        await this.callDone(call, finalOutput);
      }
    }
  }

  private async callDone(call: OpenCall, finalOutput: OutputItem[] | undefined): Promise<void> {
    const item = finalOf<FunctionCallItem>(finalOutput, call.index, 'function_call') ?? functionCallItem(this.frame.id, call.index, call, 'completed');
    await this.emit('response.function_call_arguments.done', { item_id: item.id, output_index: call.index, name: item.name, arguments: item.arguments });
    await this.emit('response.output_item.done', { output_index: call.index, item });
    this.done.push(item);
  }
}

/** The final output's item at `index` when it is of this type (it is, unless the provider sent reasoning after other output). */
function finalOf<T extends OutputItem>(output: OutputItem[] | undefined, index: number, type: T['type']): T | undefined {
  const item = output?.[index];
  return item?.type === type ? (item as T) : undefined;
}
