// A prefill: a request whose last message is the assistant's, which the model is to continue (the
// Messages door's prefill, an OpenAI chat caller's partial answer). Anthropic continues it and
// answers with the continuation. Mistral refuses a final assistant message unless it is marked
// `prefix: true`, and may answer with the prefix written again before the continuation; a caller
// that joins the prefill and the answer (as Anthropic's clients do) would then have it twice.
import type { ChatMessage, UpstreamChatRequest, UpstreamChunk, UpstreamCompletion } from '../types.js';

/** The text of the final assistant message the model is to continue, or undefined when there is none. */
export function prefillOf(request: UpstreamChatRequest): string | undefined {
  const last = request.messages.at(-1);
  if (last?.role !== 'assistant' || (last.tool_calls !== undefined && last.tool_calls.length > 0)) return undefined;
  const text = textOf(last.content);
  return text === '' ? undefined : text;
}

function textOf(content: ChatMessage['content']): string {
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return '';
  return content.map((part) => (part.type === 'text' ? (part.text ?? '') : '')).join('');
}

/** The answer without the prefill written again at its start. */
export function completionAfterPrefill(completion: UpstreamCompletion, prefill: string): UpstreamCompletion {
  for (const choice of completion.choices) {
    const content = choice.message.content;
    if (typeof content === 'string' && content.startsWith(prefill)) choice.message.content = content.slice(prefill.length);
  }
  return completion;
}

/**
 * The stream without the prefill written again at its start: each choice's first text is held
 * until it is known to begin with the prefill (dropped) or not (sent as it came).
 */
export async function* chunksAfterPrefill(chunks: AsyncIterable<UpstreamChunk>, prefill: string): AsyncIterable<UpstreamChunk> {
  // Per choice: the text held while it may still be the prefill; absent once decided.
  const held = new Map<number, string>();
  const decided = new Set<number>();
  for await (const chunk of chunks) {
    for (const choice of chunk.choices) {
      const { index, delta } = choice;
      if (decided.has(index)) continue;
      const ending = choice.finish_reason != null;
      if (typeof delta.content !== 'string' && !ending && delta.tool_calls === undefined) continue;
      const text = (held.get(index) ?? '') + (typeof delta.content === 'string' ? delta.content : '');
      if (!ending && delta.tool_calls === undefined && text.length < prefill.length && prefill.startsWith(text)) {
        held.set(index, text);
        delta.content = '';
        continue;
      }
      decided.add(index);
      held.delete(index);
      delta.content = text.startsWith(prefill) ? text.slice(prefill.length) : text;
    }
    yield chunk;
  }
  // A stream that ended while a choice's text could still have been the prefill: it was not.
  const rest = [...held].map(([index, text]) => ({ index, delta: { content: text }, finish_reason: null }));
  if (rest.length > 0) yield { choices: rest };
}
