import type { Firewall } from '../firewall/index.js';
import type { ChatMessage, UpstreamChunk, UpstreamCompletion } from './providers/types.js';

// The firewall's place in a chat request: every text that leaves is masked (message text, text
// parts, tool-call arguments); every text that comes back is restored (content, tool-call
// arguments), also when a placeholder arrives split across stream chunks.

export function maskMessages(firewall: Firewall, messages: ChatMessage[]): ChatMessage[] {
  return messages.map((message) => {
    const masked: ChatMessage = { ...message };
    if (typeof message.content === 'string') {
      masked.content = firewall.mask(message.content);
    } else if (Array.isArray(message.content)) {
      // Attachments (images, audio, files) go as they are; only text parts are scanned.
      masked.content = message.content.map((part) =>
        part.type === 'text' && typeof part.text === 'string' ? { ...part, text: firewall.mask(part.text) } : part,
      );
    }
    if (message.tool_calls) {
      masked.tool_calls = message.tool_calls.map((call) => ({
        ...call,
        function: { ...call.function, arguments: firewall.maskToolArguments(call.function.arguments) },
      }));
    }
    return masked;
  });
}

export function restoreCompletion(firewall: Firewall, completion: UpstreamCompletion): UpstreamCompletion {
  if (firewall.vault.size === 0) return completion;
  return {
    ...completion,
    choices: completion.choices.map((choice) => ({
      ...choice,
      message: {
        ...choice.message,
        content: choice.message.content === null ? null : firewall.restore(choice.message.content),
        ...(choice.message.tool_calls
          ? {
              tool_calls: choice.message.tool_calls.map((call) => ({
                ...call,
                function: { ...call.function, arguments: firewall.restoreToolArguments(call.function.arguments) },
              })),
            }
          : {}),
      },
    })),
  };
}

type Delta = UpstreamChunk['choices'][number]['delta'];

/**
 * Restores a stream's deltas. Each choice's content and each tool call's arguments has its own
 * restorer, which holds back only a tail that could still grow into a placeholder.
 */
export class StreamUnmasker {
  private readonly content = new Map<string, ReturnType<Firewall['streamRestorer']>>();
  private readonly argumentsOf = new Map<string, ReturnType<Firewall['streamRestorer']>>();

  constructor(private readonly firewall: Firewall) {}

  delta(index: number, delta: Delta): Delta {
    if (this.firewall.vault.size === 0) return delta;
    const restored: Delta = { ...delta };
    if (typeof delta.content === 'string') {
      restored.content = this.restorer(this.content, String(index), 'text').push(delta.content);
    }
    if (delta.tool_calls) {
      restored.tool_calls = delta.tool_calls.map((call) =>
        call.function?.arguments === undefined
          ? call
          : {
              ...call,
              function: {
                ...call.function,
                arguments: this.restorer(this.argumentsOf, `${index}:${call.index}`, 'json').push(call.function.arguments),
              },
            },
      );
    }
    return restored;
  }

  /** What was held back for this choice, as a last delta (or undefined when nothing was). */
  flush(index: number): Delta | undefined {
    const content = this.content.get(String(index))?.flush() ?? '';
    const calls = [...this.argumentsOf.entries()]
      .filter(([key]) => key.startsWith(`${index}:`))
      .map(([key, restorer]) => ({ index: Number(key.split(':')[1]), function: { arguments: restorer.flush() } }))
      .filter((call) => call.function.arguments !== '');
    if (content === '' && calls.length === 0) return undefined;
    return { ...(content !== '' ? { content } : {}), ...(calls.length > 0 ? { tool_calls: calls } : {}) };
  }

  private restorer(map: Map<string, ReturnType<Firewall['streamRestorer']>>, key: string, kind: 'text' | 'json') {
    let restorer = map.get(key);
    if (!restorer) {
      restorer = this.firewall.streamRestorer(kind);
      map.set(key, restorer);
    }
    return restorer;
  }
}
