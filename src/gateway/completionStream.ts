import type { UpstreamChoice, UpstreamChunk, UpstreamCompletion, UpstreamUsage } from './providers/types.js';

/**
 * Rebuilds the whole completion from a stream's chunks, so a streamed answer can be replayed,
 * cached, traced and counted exactly like a JSON one.
 */
export class CompletionAccumulator {
  private readonly choices = new Map<number, UpstreamChoice>();
  usage: UpstreamUsage | undefined;

  add(chunk: UpstreamChunk): void {
    if (chunk.usage) this.usage = chunk.usage;
    for (const { index, delta, finish_reason: finish, stop_sequence: stopSequence } of chunk.choices) {
      let choice = this.choices.get(index);
      if (!choice) {
        choice = { index, message: { role: 'assistant', content: null }, finish_reason: null };
        this.choices.set(index, choice);
      }
      if (typeof delta.content === 'string') choice.message.content = (choice.message.content ?? '') + delta.content;
      if (typeof delta.refusal === 'string') choice.message.refusal = (choice.message.refusal ?? '') + delta.refusal;
      if (typeof delta.reasoning_content === 'string') choice.message.reasoning_content = (choice.message.reasoning_content ?? '') + delta.reasoning_content;
      if (delta.thinking_blocks) (choice.message.thinking_blocks ??= []).push(...delta.thinking_blocks);
      for (const call of delta.tool_calls ?? []) {
        const calls = (choice.message.tool_calls ??= []);
        const existing = calls[call.index];
        if (!existing) {
          calls[call.index] = {
            id: call.id ?? '',
            type: 'function',
            function: { name: call.function?.name ?? '', arguments: call.function?.arguments ?? '' },
          };
        } else {
          if (call.id) existing.id = call.id;
          if (call.function?.name) existing.function.name += call.function.name;
          if (call.function?.arguments) existing.function.arguments += call.function.arguments;
        }
      }
      if (finish) choice.finish_reason = finish;
      if (stopSequence !== undefined) choice.stop_sequence = stopSequence;
    }
  }

  completion(id: string, created: number): UpstreamCompletion {
    const choices = [...this.choices.values()].sort((a, b) => a.index - b.index);
    return { id, created, choices, ...(this.usage ? { usage: this.usage } : {}) };
  }
}

/** A stored completion as stream chunks (replays and cache hits): one delta per choice, then its finish. */
export function chunksOf(completion: UpstreamCompletion): UpstreamChunk[] {
  return completion.choices.flatMap((choice) => [
    {
      choices: [
        {
          index: choice.index,
          delta: {
            role: 'assistant' as const,
            ...(choice.message.thinking_blocks?.length ? { thinking_blocks: choice.message.thinking_blocks } : {}),
            ...(choice.message.reasoning_content ? { reasoning_content: choice.message.reasoning_content } : {}),
            content: choice.message.content,
            ...(choice.message.refusal ? { refusal: choice.message.refusal } : {}),
            ...(choice.message.tool_calls
              ? { tool_calls: choice.message.tool_calls.map((call, index) => ({ index, ...call })) }
              : {}),
          },
          finish_reason: null,
        },
      ],
    },
    {
      choices: [
        {
          index: choice.index,
          delta: {},
          finish_reason: choice.finish_reason ?? 'stop',
          ...(choice.stop_sequence !== undefined ? { stop_sequence: choice.stop_sequence } : {}),
        },
      ],
    },
  ]);
}
