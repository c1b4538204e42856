import { orderAccountsFor } from '../../gateway/completionStream.js';
import type { AnswerRun, UpstreamChoice } from '../../gateway/providers/types.js';

// Chat answer → Messages answer (JSON), and the pieces the stream translation shares with it.

export type StopReason = 'end_turn' | 'max_tokens' | 'stop_sequence' | 'tool_use' | 'refusal';

/** OpenAI's finish reasons as Anthropic's stop reasons; a known stop sequence makes `stop_sequence`. */
export function stopReasonOf(finishReason: string | null | undefined, stopSequence?: string): StopReason {
  if (stopSequence !== undefined && finishReason === 'stop') return 'stop_sequence';
  switch (finishReason) {
    case 'length':
      return 'max_tokens';
    case 'tool_calls':
    case 'function_call':
      return 'tool_use';
    // A provider's safety filter stopped the answer (Anthropic's own refusal, or another's content filter).
    case 'content_filter':
      return 'refusal';
    default:
      return 'end_turn';
  }
}

export interface ChatUsage {
  prompt_tokens: number;
  completion_tokens: number;
  prompt_tokens_details?: { cached_tokens?: number; cache_write_tokens?: number };
  credits?: unknown;
}

export interface MessagesUsage {
  input_tokens: number;
  output_tokens: number;
  cache_creation_input_tokens: number;
  cache_read_input_tokens: number;
}

/** Anthropic counts cache reads and writes apart from `input_tokens`; chat counts them inside `prompt_tokens`. */
export function usageOf(usage: ChatUsage): MessagesUsage {
  const read = usage.prompt_tokens_details?.cached_tokens ?? 0;
  const written = usage.prompt_tokens_details?.cache_write_tokens ?? 0;
  return {
    input_tokens: Math.max(0, usage.prompt_tokens - read - written),
    output_tokens: usage.completion_tokens,
    cache_creation_input_tokens: written,
    cache_read_input_tokens: read,
  };
}

/** A tool call's JSON arguments as the object Anthropic's `input` is; text that is not an object is kept under `arguments`. */
export function toolInputOf(argumentsText: string): Record<string, unknown> {
  if (argumentsText.trim() === '') return {};
  try {
    const parsed: unknown = JSON.parse(argumentsText);
    if (parsed !== null && typeof parsed === 'object' && !Array.isArray(parsed)) return parsed as Record<string, unknown>;
  } catch {
    // a provider's broken JSON is still shown to the caller rather than lost
  }
  return { arguments: argumentsText };
}

export function messageIdOf(requestId: string): string {
  return `msg_${requestId}`;
}

interface ChatAnswer {
  id: string;
  model: string;
  choices: (Omit<UpstreamChoice, 'message'> & { message: UpstreamChoice['message'] })[];
  usage: ChatUsage;
  sources?: unknown[];
}

/**
 * The Messages answer for a chat answer: its first choice's text and tool calls as content blocks.
 * `model` is the model the client asked for (X-Model says which served): Claude Code drops the
 * signed thinking of earlier turns whose model is not the one it asks for, and a provider that
 * takes thinking back then refuses the conversation.
 */
export function messageOf(chatBody: Record<string, unknown>, askedModel: string | undefined, order?: readonly AnswerRun[]): Record<string, unknown> {
  const answer = chatBody as unknown as ChatAnswer;
  const choice = answer.choices[0];
  const content: Record<string, unknown>[] = [...(choice?.message.thinking_blocks ?? [])];
  // Reasoning an OpenAI-compatible provider gave as text: a thinking block without a signature.
  if (content.length === 0 && choice?.message.reasoning_content) content.push({ type: 'thinking', thinking: choice.message.reasoning_content, signature: '' });
  const calls = choice?.message.tool_calls ?? [];
  const toolUse = (call: (typeof calls)[number]) => ({ type: 'tool_use', id: call.id, name: call.function.name, input: toolInputOf(call.function.arguments) });
  const text = choice?.message.content ?? '';
  if (order && orderAccountsFor(order, text.length, 0, calls.length)) {
    // Text and calls as the provider gave them (text, a call, more text), as the stream showed them.
    let at = 0;
    for (const run of order) {
      if ('content' in run) content.push({ type: 'text', text: text.slice(at, (at += run.content)) });
      else if ('tool_call' in run) content.push(toolUse(calls[run.tool_call]!));
    }
  } else {
    if (text) content.push({ type: 'text', text });
    for (const call of calls) content.push(toolUse(call));
  }
  return {
    id: messageIdOf(answer.id),
    type: 'message',
    role: 'assistant',
    content,
    model: askedModel ?? answer.model,
    stop_reason: stopReasonOf(choice?.finish_reason, choice?.stop_sequence),
    stop_sequence: choice?.stop_sequence ?? null,
    usage: usageOf(answer.usage),
    credits: answer.usage.credits,
    sources: answer.sources ?? [],
  };
}

