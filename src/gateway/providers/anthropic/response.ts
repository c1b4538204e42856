import { addContent, inUsualOrder } from '../../completionStream.js';
import type { AnswerRun, ThinkingBlock, UpstreamChoice, UpstreamCompletion, UpstreamUsage } from '../types.js';
import { isRecord } from '../openai/errors.js';

// A Messages answer as the OpenAI-shaped completion the gateway works with. Thinking blocks ride
// along as `thinking_blocks`, byte for byte (their signatures cover them).

/** `{stop_sequence}` when Anthropic says a stop sequence ended the answer (a message, or a message_delta's delta). */
export function stopSequenceOf(raw: Record<string, unknown>): { stop_sequence?: string } {
  return raw.stop_reason === 'stop_sequence' && typeof raw.stop_sequence === 'string' ? { stop_sequence: raw.stop_sequence } : {};
}

export function finishReasonOf(stopReason: unknown): string {
  switch (stopReason) {
    // The answer ran into the model's context window: cut short, as by the cap.
    case 'max_tokens':
    case 'model_context_window_exceeded':
      return 'length';
    case 'tool_use':
      return 'tool_calls';
    case 'refusal':
      return 'content_filter';
    default:
      return 'stop'; // end_turn, stop_sequence, pause_turn
  }
}

/** A thinking block with only its own fields, their strings untouched. */
export function thinkingBlockOf(block: Record<string, unknown>): ThinkingBlock {
  if (block.type === 'redacted_thinking') return { type: 'redacted_thinking', data: String(block.data ?? '') };
  return { type: 'thinking', thinking: String(block.thinking ?? ''), ...(typeof block.signature === 'string' ? { signature: block.signature } : {}) };
}

const count = (value: unknown) => (typeof value === 'number' && Number.isInteger(value) && value >= 0 ? value : 0);

/** Anthropic counts cache reads and writes apart from input_tokens; chat counts them inside prompt_tokens. */
export function usageOf(usage: unknown, outputTokens?: number): UpstreamUsage | undefined {
  if (!isRecord(usage)) return undefined;
  const read = count(usage.cache_read_input_tokens);
  const written = count(usage.cache_creation_input_tokens);
  const prompt = count(usage.input_tokens) + read + written;
  const completion = outputTokens ?? count(usage.output_tokens);
  return {
    prompt_tokens: prompt,
    completion_tokens: completion,
    total_tokens: prompt + completion,
    ...(read > 0 || written > 0 ? { prompt_tokens_details: { cached_tokens: read, cache_write_tokens: written } } : {}),
  };
}

export function toCompletion(raw: unknown, providerId: string): UpstreamCompletion {
  if (!isRecord(raw) || !Array.isArray(raw.content)) throw new Error(`${providerId}: the answer is not a Messages answer`);
  let text: string | null = null;
  const toolCalls: NonNullable<UpstreamChoice['message']['tool_calls']> = [];
  const thinking: ThinkingBlock[] = [];
  // Text and calls in the order the blocks came (text, a call, more text), as a stream gives them.
  const runs: AnswerRun[] = [];
  for (const block of raw.content as unknown[]) {
    if (!isRecord(block)) continue;
    if (block.type === 'thinking' || block.type === 'redacted_thinking') thinking.push(thinkingBlockOf(block));
    else if (block.type === 'text' && typeof block.text === 'string') {
      text = (text ?? '') + block.text;
      if (block.text !== '') addContent(runs, block.text.length);
    } else if (block.type === 'tool_use') {
      runs.push({ tool_call: toolCalls.length });
      toolCalls.push({ id: String(block.id ?? ''), type: 'function', function: { name: String(block.name ?? ''), arguments: JSON.stringify(block.input ?? {}) } });
    }
  }
  const usage = usageOf(raw.usage);
  return {
    id: typeof raw.id === 'string' ? raw.id : '',
    created: Math.floor(Date.now() / 1000),
    choices: [
      {
        index: 0,
        message: {
          role: 'assistant',
          content: text,
          ...(toolCalls.length > 0 ? { tool_calls: toolCalls } : {}),
          ...(thinking.length > 0 ? { thinking_blocks: thinking } : {}),
          ...(inUsualOrder(runs) ? {} : { order: runs }),
        },
        finish_reason: finishReasonOf(raw.stop_reason),
        ...stopSequenceOf(raw),
      },
    ],
    ...(usage ? { usage } : {}),
  };
}
