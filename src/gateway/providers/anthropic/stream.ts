import type { PromptUsage, ThinkingBlock, UpstreamChunk, UpstreamUsage } from '../types.js';
import { UpstreamError } from '../types.js';
import { isRecord, MAX_UPSTREAM_MESSAGE } from '../openai/errors.js';
import { finishReasonOf, stopSequenceOf, thinkingBlockOf, usageOf } from './response.js';

// A Messages event stream as chat chunks: text deltas become content, tool_use blocks become tool
// calls (their input_json_delta pieces the arguments, in order), message_delta the finish with
// usage. A thinking block is gathered and sent on whole at its end (its signature covers it).

export interface SseEvent {
  event: string;
  data: string;
}

/** Server-Sent Events from raw bytes; lines may be split anywhere, also inside a UTF-8 character. */
export async function* sseEvents(body: AsyncIterable<Buffer | Uint8Array>): AsyncGenerator<SseEvent> {
  const decoder = new TextDecoder();
  let buffer = '';
  let event = '';
  let data: string[] = [];
  const lineOf = function* (line: string): Generator<SseEvent> {
    if (line === '') {
      if (data.length > 0) yield { event: event || 'message', data: data.join('\n') };
      event = '';
      data = [];
    } else if (line.startsWith('event:')) event = line.slice(6).trim();
    else if (line.startsWith('data:')) data.push(line.slice(line.startsWith('data: ') ? 6 : 5));
    // comments (`:`) and other fields are ignored
  };
  for await (const piece of body) {
    buffer += decoder.decode(piece, { stream: true });
    let newline = buffer.search(/\r\n|\n|\r/);
    while (newline !== -1) {
      const line = buffer.slice(0, newline);
      buffer = buffer.slice(newline + (buffer.startsWith('\r\n', newline) ? 2 : 1));
      yield* lineOf(line);
      newline = buffer.search(/\r\n|\n|\r/);
    }
  }
  buffer += decoder.decode();
  if (buffer !== '') yield* lineOf(buffer);
  yield* lineOf('');
}

/** Turns one stream's events into chunks; keeps which block is which tool call. */
export class MessagesStreamTranslator {
  private readonly toolOfBlock = new Map<number, number>();
  /** Thinking blocks being received, sent on as a whole at their content_block_stop. */
  private readonly thinkingOfBlock = new Map<number, ThinkingBlock>();
  private startUsage: Record<string, unknown> = {};
  /** message_start's count of the prompt, until a chunk carries it. */
  private promptUsage: PromptUsage | undefined;
  ended = false;

  constructor(private readonly providerId: string) {}

  translate(event: SseEvent): UpstreamChunk | undefined {
    const chunk = this.chunkOf(event);
    // The prompt's count rides on the first chunk after it: message_start itself is no output, and
    // the stream must not count as begun before its first output (a failure before it falls back).
    if (chunk && this.promptUsage) {
      chunk.promptUsage = this.promptUsage;
      this.promptUsage = undefined;
    }
    return chunk;
  }

  private chunkOf(event: SseEvent): UpstreamChunk | undefined {
    if (event.event === 'ping') return undefined;
    let data: unknown;
    try {
      data = JSON.parse(event.data);
    } catch {
      throw new UpstreamError('protocol', `${this.providerId}: an event of the stream is not JSON`);
    }
    if (!isRecord(data)) return undefined;
    switch (data.type) {
      case 'message_start': {
        const message = isRecord(data.message) ? data.message : {};
        this.startUsage = isRecord(message.usage) ? message.usage : {};
        const prompt = typeof this.startUsage.input_tokens === 'number' ? usageOf(this.startUsage, 0) : undefined;
        if (prompt) this.promptUsage = { prompt_tokens: prompt.prompt_tokens, ...(prompt.prompt_tokens_details ? { prompt_tokens_details: prompt.prompt_tokens_details } : {}) };
        return undefined;
      }
      case 'content_block_start': {
        const block = isRecord(data.content_block) ? data.content_block : {};
        const index = Number(data.index);
        if (block.type === 'tool_use') {
          const tool = this.toolOfBlock.size;
          this.toolOfBlock.set(index, tool);
          return delta({ tool_calls: [{ index: tool, id: String(block.id ?? ''), type: 'function', function: { name: String(block.name ?? ''), arguments: '' } }] });
        }
        if (block.type === 'thinking' || block.type === 'redacted_thinking') {
          this.thinkingOfBlock.set(index, thinkingBlockOf(block));
          return thinkingProgress();
        }
        if (block.type === 'text' && typeof block.text === 'string' && block.text !== '') return delta({ content: block.text });
        return undefined;
      }
      case 'content_block_stop': {
        const block = this.thinkingOfBlock.get(Number(data.index));
        if (!block) return undefined;
        this.thinkingOfBlock.delete(Number(data.index));
        return delta({ thinking_blocks: [block] });
      }
      case 'content_block_delta': {
        const change = isRecord(data.delta) ? data.delta : {};
        if (change.type === 'text_delta' && typeof change.text === 'string') return delta({ content: change.text });
        if (change.type === 'input_json_delta' && typeof change.partial_json === 'string') {
          const tool = this.toolOfBlock.get(Number(data.index));
          if (tool === undefined || change.partial_json === '') return undefined;
          return delta({ tool_calls: [{ index: tool, function: { arguments: change.partial_json } }] });
        }
        const thinking = this.thinkingOfBlock.get(Number(data.index));
        if (thinking && change.type === 'thinking_delta' && typeof change.thinking === 'string') {
          thinking.thinking = (thinking.thinking ?? '') + change.thinking;
          return thinkingProgress();
        }
        if (thinking && change.type === 'signature_delta' && typeof change.signature === 'string') thinking.signature = change.signature;
        return undefined; // citations_delta
      }
      case 'message_delta': {
        const change = isRecord(data.delta) ? data.delta : {};
        const usage = isRecord(data.usage) ? data.usage : {};
        const merged: UpstreamUsage | undefined = usageOf({ ...this.startUsage, ...usage }, typeof usage.output_tokens === 'number' ? usage.output_tokens : undefined);
        return { choices: [{ index: 0, delta: {}, finish_reason: finishReasonOf(change.stop_reason), ...stopSequenceOf(change) }], ...(merged ? { usage: merged } : {}) };
      }
      case 'message_stop':
        this.ended = true;
        return undefined;
      case 'error': {
        const error = isRecord(data.error) ? data.error : {};
        const message = typeof error.message === 'string' ? error.message.slice(0, MAX_UPSTREAM_MESSAGE) : 'stream error';
        // overloaded_error is Anthropic's 529: worth the next provider, as a 5xx is.
        const status = error.type === 'overloaded_error' ? 529 : error.type === 'rate_limit_error' ? 429 : 500;
        throw new UpstreamError('status', `${this.providerId} reported an error mid-stream: ${message}`, { status, upstreamMessage: message });
      }
      default:
        return undefined;
    }
  }
}

/**
 * A thinking block begun or grown: no output yet (it goes out whole, signed), but the stream has
 * begun. The gateway commits to this provider then, as Anthropic's own clients see thinking from its
 * start: a long think sent nothing for minutes, not even the status, and idle proxies cut it (QA).
 */
function thinkingProgress(): UpstreamChunk {
  return { choices: [], progress: true };
}

function delta(change: UpstreamChunk['choices'][number]['delta']): UpstreamChunk {
  return { choices: [{ index: 0, delta: change, finish_reason: null }] };
}
