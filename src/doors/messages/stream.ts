import type { SseSink } from '../../gateway/chat.js';
import type { PromptUsage, ThinkingBlock, UpstreamChunk } from '../../gateway/providers/types.js';
import { eventFrame, openEventStream, streamEndedAs, writeFrame } from '../../http/sse.js';
import type { AppContext } from '../../http/state.js';
import { messageIdOf, stopReasonOf, toolInputOf, usageOf, type ChatUsage } from './answer.js';

// Chat chunks → Messages stream events. The chat service calls `open` only once the provider's
// first chunk has come (a provider failing before it falls back unseen), so `message_start` and
// the first block go out with real output. A chat error frame becomes an `error` event and the
// stream ends without `message_stop`.

const PING_EVERY_MS = 5_000;

interface ChunkFrame {
  id: string;
  model: string;
  choices: UpstreamChunk['choices'];
  usage?: ChatUsage;
}

// A tool_use block's arguments stream as input_json_delta while they are a JSON object, as
// Anthropic's `input` always is; arguments that open otherwise ("[1,2]", plain text) are held and go
// out once, at the block's end, as the JSON answer gives them ({"arguments": "[1,2]"}): passed on
// raw, the SDK built an array, which the door then refused when the agent sent the turn back.
type ToolArguments = { held: string; streaming: boolean };
type OpenBlock = { kind: 'text' | 'reasoning'; index: number } | { kind: 'tool'; index: number; call: number; args: ToolArguments };

/** Writes `event:` + `data:` frames onto the client's response, honouring backpressure. */
class EventWriter {
  constructor(private readonly ctx: AppContext) {}

  open(headers: Record<string, string>): void {
    openEventStream(this.ctx, headers);
  }

  event(type: string, data: Record<string, unknown>): Promise<void> {
    return writeFrame(this.ctx.res, eventFrame(type, { type, ...data }));
  }

  /** Ends the response, after one last event when given (written without waiting: end() flushes it). */
  end(last?: { type: string; data: Record<string, unknown> }): void {
    const res = this.ctx.res;
    if (res.destroyed) return;
    res.end(last ? eventFrame(last.type, { type: last.type, ...last.data }) : undefined);
  }
}

/**
 * An SseSink for the chat service that speaks Anthropic's events. `message_start` gives the prompt
 * as it left, as the tokenizer counts it, as count_tokens does (the provider's own count comes on
 * `message_delta`).
 */
export function messagesEventSink(ctx: AppContext, askedModel: string | undefined): SseSink {
  const writer = new EventWriter(ctx);
  let started = false;
  let promptTokens: () => Promise<PromptUsage> = () => Promise.resolve({ prompt_tokens: 0 });
  let failed = false;
  let nextBlock = 0;
  let open: OpenBlock | undefined;
  const toolBlocks = new Map<number, number>();
  // Calls a provider began while another tool_use block was open (chat streams may interleave
  // them; Anthropic's blocks may not): each goes out whole once the open one is stopped.
  const waiting = new Map<number, { id: string; name: string; json: string }>();

  const start = async (frame: ChunkFrame) => {
    if (started) return;
    started = true;
    await writer.event('message_start', {
      message: {
        id: messageIdOf(frame.id),
        type: 'message',
        role: 'assistant',
        content: [],
        // The model asked for, as the JSON answer says it (answer.ts).
        model: askedModel ?? frame.model,
        stop_reason: null,
        stop_sequence: null,
        // Split as message_delta splits it: a client that keeps each field's largest value (Claude
        // Code) counted a cache hit's whole prompt twice, as input here and as a cache read there.
        usage: usageOf({ ...(await promptTokens()), completion_tokens: 0 }),
      },
    });
    await writer.event('ping', {});
  };
  /** Arguments that are no JSON object, as the one delta the JSON answer's `input` is (none when it is `{}`). */
  const heldArguments = async (index: number, json: string) => {
    const input = toolInputOf(json);
    if (Object.keys(input).length > 0) await writer.event('content_block_delta', { index, delta: { type: 'input_json_delta', partial_json: JSON.stringify(input) } });
  };
  const closeBlock = async () => {
    if (!open) return;
    if (open.kind === 'tool' && !open.args.streaming) await heldArguments(open.index, open.args.held);
    await writer.event('content_block_stop', { index: open.index });
    open = undefined;
    for (const [callIndex, call] of waiting) {
      const index = nextBlock++;
      toolBlocks.set(callIndex, index);
      await writer.event('content_block_start', { index, content_block: { type: 'tool_use', id: call.id, name: call.name, input: {} } });
      if (opensObject(call.json)) await writer.event('content_block_delta', { index, delta: { type: 'input_json_delta', partial_json: call.json } });
      else await heldArguments(index, call.json);
      await writer.event('content_block_stop', { index });
    }
    waiting.clear();
  };
  const text = async (piece: string) => {
    if (open?.kind !== 'text') {
      await closeBlock();
      open = { kind: 'text', index: nextBlock++ };
      await writer.event('content_block_start', { index: open.index, content_block: { type: 'text', text: '' } });
    }
    await writer.event('content_block_delta', { index: open.index, delta: { type: 'text_delta', text: piece } });
  };
  // Reasoning an OpenAI-compatible provider streams as text: a thinking block without a signature
  // (a native Anthropic provider is never given such a block back; see the adapter).
  const reasoning = async (piece: string) => {
    if (open?.kind !== 'reasoning') {
      await closeBlock();
      open = { kind: 'reasoning', index: nextBlock++ };
      await writer.event('content_block_start', { index: open.index, content_block: { type: 'thinking', thinking: '', signature: '' } });
    }
    await writer.event('content_block_delta', { index: open.index, delta: { type: 'thinking_delta', thinking: piece } });
  };
  // A thinking block comes whole from the chat service; it goes out as Anthropic streams one.
  const thinking = async (block: ThinkingBlock) => {
    await closeBlock();
    const index = nextBlock++;
    if (block.type === 'redacted_thinking') {
      await writer.event('content_block_start', { index, content_block: { type: 'redacted_thinking', data: block.data ?? '' } });
    } else {
      await writer.event('content_block_start', { index, content_block: { type: 'thinking', thinking: '', signature: '' } });
      await writer.event('content_block_delta', { index, delta: { type: 'thinking_delta', thinking: block.thinking ?? '' } });
      if (block.signature !== undefined) await writer.event('content_block_delta', { index, delta: { type: 'signature_delta', signature: block.signature } });
    }
    await writer.event('content_block_stop', { index });
  };
  const toolCall = async (call: NonNullable<UpstreamChunk['choices'][number]['delta']['tool_calls']>[number]) => {
    let index = toolBlocks.get(call.index);
    const held = waiting.get(call.index);
    if (held || (index === undefined && open?.kind === 'tool')) {
      const entry = held ?? { id: '', name: '', json: '' };
      if (call.id) entry.id = call.id;
      if (call.function?.name) entry.name += call.function.name;
      entry.json += call.function?.arguments ?? '';
      waiting.set(call.index, entry);
      return;
    }
    if (index === undefined) {
      await closeBlock();
      index = nextBlock++;
      toolBlocks.set(call.index, index);
      open = { kind: 'tool', index, call: call.index, args: { held: '', streaming: false } };
      await writer.event('content_block_start', {
        index,
        content_block: { type: 'tool_use', id: call.id ?? '', name: call.function?.name ?? '', input: {} },
      });
    }
    const piece = call.function?.arguments;
    if (!piece) return;
    const args = open?.kind === 'tool' && open.index === index ? open.args : undefined;
    if (args && !args.streaming) {
      // Held until the arguments show whether they open an object (only blanks so far), or to the end.
      args.held += piece;
      if (!opensObject(args.held)) return;
      args.streaming = true;
      await writer.event('content_block_delta', { index, delta: { type: 'input_json_delta', partial_json: args.held } });
      return;
    }
    await writer.event('content_block_delta', { index, delta: { type: 'input_json_delta', partial_json: piece } });
  };

  let pingedAt = 0;
  return {
    open(headers, countPrompt) {
      promptTokens = countPrompt;
      writer.open(headers);
    },
    // A native provider's thinking goes out whole once signed: meanwhile the message has begun, and
    // a ping now and then shows the client (and any proxy between) that it is at work, as Anthropic's
    // own thinking deltas would.
    async progress(data) {
      if (failed) return;
      if (!started) {
        await start(data as ChunkFrame);
        pingedAt = Date.now();
      } else if (Date.now() - pingedAt >= PING_EVERY_MS) {
        pingedAt = Date.now();
        await writer.event('ping', {});
      }
    },
    async send(data) {
      const record = data as { error?: { message?: string; code?: string | null } } & ChunkFrame;
      if (record.error) {
        failed = true;
        // A web process stopping the stream is Anthropic's overloaded_error (send it again), as its
        // 503s are; Polder's code goes beside the error, as in the door's error bodies.
        const { message = 'the stream broke off', code } = record.error;
        const type = code === 'server_stopping' ? 'overloaded_error' : 'api_error';
        await writer.event('error', { error: { type, message }, ...(code ? { code } : {}) });
        return;
      }
      const frame = record;
      if (frame.choices.length === 0) return; // the include_usage frame: its usage came with the finish
      await start(frame);
      for (const choice of frame.choices) {
        if (choice.index !== 0) continue; // a Message has one answer
        const delta = choice.delta;
        if (typeof delta.reasoning_content === 'string' && delta.reasoning_content !== '') await reasoning(delta.reasoning_content);
        for (const block of delta.thinking_blocks ?? []) await thinking(block);
        if (typeof delta.content === 'string' && delta.content !== '') await text(delta.content);
        for (const call of delta.tool_calls ?? []) await toolCall(call);
        if (choice.finish_reason) {
          await closeBlock();
          await writer.event('message_delta', {
            delta: { stop_reason: stopReasonOf(choice.finish_reason, choice.stop_sequence), stop_sequence: choice.stop_sequence ?? null },
            usage: frame.usage ? usageOf(frame.usage) : { output_tokens: 0 },
            ...(frame.usage?.credits ? { credits: frame.usage.credits } : {}),
          });
        }
      }
    },
    end(outcome) {
      streamEndedAs(ctx, failed ? 'failed' : outcome);
      writer.end(outcome === 'done' && started && !failed ? { type: 'message_stop', data: {} } : undefined);
    },
  };
}

/** Whether JSON text opens an object: its first character that is no blank is "{". */
function opensObject(json: string): boolean {
  const first = /\S/.exec(json);
  return first !== null && first[0] === '{';
}
