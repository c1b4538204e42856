import { createHash } from 'node:crypto';
import { orderAccountsFor } from '../../gateway/completionStream.js';
import type { AnswerRun, ThinkingBlock } from '../../gateway/providers/types.js';
import type { Credits } from '../../metering/credits.js';
import type { FunctionCallItem, MessageItem, OutputItem, ReasoningItem, ResponseObject, ResponsesRequest, ResponseUsage } from './types.js';

// The door's way out: a chat answer (JSON, or what a stream delivered) becomes a Responses object.
// The streamed and the JSON answer are built by the same function, so a stream's
// `response.completed` equals what the same answer would have been as JSON.

/** What one chat answer holds, however it came. */
export interface ChatOutcome {
  model: string;
  /** The reasoning the provider gave as text, or the text of its thinking blocks. */
  reasoning: string | null;
  thinkingBlocks: ThinkingBlock[];
  text: string | null;
  refusal: string | null;
  toolCalls: { id: string; name: string; arguments: string }[];
  finishReason: string;
  usage: ChatUsage | null;
  sources: unknown[];
  /**
   * The order a stream gave the text, refusal and calls in; without it (or when it does not add
   * up to them), the text and refusal come first, then the calls.
   */
  order?: readonly AnswerRun[];
}

export interface ChatUsage {
  prompt_tokens: number;
  completion_tokens: number;
  total_tokens: number;
  prompt_tokens_details?: { cached_tokens?: number };
  completion_tokens_details?: { reasoning_tokens?: number };
  credits?: Credits;
}

/**
 * The response id of a request: derived from the workspace and the request id, so a replayed retry
 * (same request id) answers the same `resp_` id, and no two workspaces share one.
 */
export function responseIdOf(workspaceId: string, requestId: string): string {
  return `resp_${createHash('sha256').update(`${workspaceId}\0${requestId}`).digest('hex').slice(0, 48)}`;
}

/** Item ids follow from the response id and the item's place, the same in a stream and in its final object. */
export function itemIdOf(responseId: string, kind: 'rs' | 'msg' | 'fc', outputIndex: number): string {
  return `${kind}_${responseId.slice('resp_'.length, 'resp_'.length + 40)}${outputIndex.toString(16).padStart(4, '0')}`;
}

/**
 * The chat completion body (chat.ts settle) as an outcome; `showThinking` makes thinking blocks'
 * text fit to show (restored, as the blocks themselves stay masked).
 */
export function outcomeOfCompletion(body: Record<string, unknown>, showThinking: (text: string) => string = (text) => text): ChatOutcome {
  const choice = (body.choices as { message: Record<string, unknown>; finish_reason: string | null }[])[0];
  const message = choice?.message ?? {};
  const calls = (message.tool_calls as { id: string; function: { name: string; arguments: string } }[] | undefined) ?? [];
  const thinkingBlocks = (message.thinking_blocks as ThinkingBlock[] | undefined) ?? [];
  return {
    model: String(body.model),
    reasoning: (message.reasoning_content as string | undefined) ?? shown(thinkingText(thinkingBlocks), showThinking),
    thinkingBlocks,
    text: (message.content as string | null | undefined) ?? null,
    refusal: (message.refusal as string | null | undefined) ?? null,
    toolCalls: calls.map((call) => ({ id: call.id, name: call.function.name, arguments: call.function.arguments })),
    finishReason: choice?.finish_reason ?? 'stop',
    usage: (body.usage as ChatUsage | undefined) ?? null,
    sources: (body.sources as unknown[] | undefined) ?? [],
  };
}

function shown(text: string | null, showThinking: (text: string) => string): string | null {
  return text === null ? null : showThinking(text);
}

/** The readable text of thinking blocks (redacted ones have none), or null. */
export function thinkingText(blocks: readonly ThinkingBlock[]): string | null {
  const texts = blocks.flatMap((block) => (block.type === 'thinking' && block.thinking ? [block.thinking] : []));
  return texts.length > 0 ? texts.join('\n\n') : null;
}

// Thinking blocks travel in a reasoning item's `encrypted_content`, so a client that passes the
// item back (Codex does, and a stored chain does) gives a native Anthropic provider its signed
// blocks again. They are not secret (the provider signed them, and they are the caller's); the
// prefix only says whose format this is.
const SEALED_THINKING = 'polder.thinking.v1.';

function sealThinking(blocks: readonly ThinkingBlock[]): string {
  return SEALED_THINKING + Buffer.from(JSON.stringify(blocks)).toString('base64url');
}

/** The thinking blocks of a reasoning item's `encrypted_content`, or undefined when it holds none of ours. */
export function unsealThinking(sealed: unknown): ThinkingBlock[] | undefined {
  if (typeof sealed !== 'string' || !sealed.startsWith(SEALED_THINKING)) return undefined;
  let parsed: unknown;
  try {
    parsed = JSON.parse(Buffer.from(sealed.slice(SEALED_THINKING.length), 'base64url').toString('utf8'));
  } catch {
    return undefined;
  }
  if (!Array.isArray(parsed)) return undefined;
  const blocks: ThinkingBlock[] = [];
  for (const b of parsed as Record<string, unknown>[]) {
    if (b?.type === 'thinking' && typeof b.thinking === 'string') {
      blocks.push({ type: 'thinking', thinking: b.thinking, ...(typeof b.signature === 'string' ? { signature: b.signature } : {}) });
    } else if (b?.type === 'redacted_thinking' && typeof b.data === 'string') {
      blocks.push({ type: 'redacted_thinking', data: b.data });
    } else {
      return undefined;
    }
  }
  return blocks;
}

/**
 * Whether the request asked for reasoning summaries (`reasoning.summary`): its reasoning then comes
 * as the item's `summary`, which Codex and the Agents SDK show, rather than as `content`. Nothing
 * is summarised; it is the provider's reasoning as written.
 */
export function reasoningAsSummary(request: ResponsesRequest): boolean {
  return request.reasoning?.summary != null;
}

export function reasoningItem(
  responseId: string,
  outputIndex: number,
  text: string,
  blocks: readonly ThinkingBlock[],
  asSummary: boolean,
): ReasoningItem {
  return {
    id: itemIdOf(responseId, 'rs', outputIndex),
    type: 'reasoning',
    ...(asSummary ? { summary: [{ type: 'summary_text', text }] } : { summary: [], content: [{ type: 'reasoning_text', text }] }),
    ...(blocks.length > 0 ? { encrypted_content: sealThinking(blocks) } : {}),
  };
}

export function messageItem(responseId: string, outputIndex: number, text: string, status: MessageItem['status']): MessageItem {
  return messageItemOf(responseId, outputIndex, [contentPart('output_text', text)], status);
}

export function messageItemOf(responseId: string, outputIndex: number, content: MessageItem['content'], status: MessageItem['status']): MessageItem {
  return { id: itemIdOf(responseId, 'msg', outputIndex), type: 'message', status, role: 'assistant', content };
}

/** A message's part: text, or what the model refused with. */
export function contentPart(type: 'output_text' | 'refusal', text: string): MessageItem['content'][number] {
  return type === 'output_text' ? { type, text, annotations: [], logprobs: [] } : { type, refusal: text };
}

export function functionCallItem(
  responseId: string,
  outputIndex: number,
  call: { id: string; name: string; arguments: string },
  status: FunctionCallItem['status'],
): FunctionCallItem {
  // A call a provider made without arguments is "{}", as OpenAI sends it: Codex parses them, and
  // "" is no JSON (an in-progress item's arguments are "" until they come).
  const args = status !== 'in_progress' && call.arguments.trim() === '' ? '{}' : call.arguments;
  return { id: itemIdOf(responseId, 'fc', outputIndex), type: 'function_call', status, call_id: call.id, name: call.name, arguments: args };
}

/**
 * The output items of an outcome: the reasoning (when the provider gave any), then a message for
 * each stretch of text and refusal and an item for each function call, in the order the outcome
 * came in (see `runsOf`); an answer of nothing at all is an empty message.
 */
export function outputItemsOf(responseId: string, outcome: ChatOutcome, reasoningSummary = false): OutputItem[] {
  const status = finishStatus(outcome.finishReason).itemStatus;
  const items: OutputItem[] = [];
  if (outcome.reasoning !== null || outcome.thinkingBlocks.length > 0) {
    items.push(reasoningItem(responseId, 0, outcome.reasoning ?? '', outcome.thinkingBlocks, reasoningSummary));
  }
  const runs = runsOf(outcome);
  let text = 0;
  let refusal = 0;
  // The parts of the message item being filled; a call ends it, and text after the call starts another.
  let parts: MessageItem['content'] | undefined;
  for (const run of runs) {
    if ('tool_call' in run) {
      parts = undefined;
      items.push(functionCallItem(responseId, items.length, outcome.toolCalls[run.tool_call]!, status));
      continue;
    }
    if (!parts) {
      parts = [];
      items.push(messageItemOf(responseId, items.length, parts, status));
    }
    if ('content' in run) parts.push(contentPart('output_text', outcome.text!.slice(text, (text += run.content))));
    else parts.push(contentPart('refusal', outcome.refusal!.slice(refusal, (refusal += run.refusal))));
  }
  if (runs.length === 0) items.push(messageItem(responseId, items.length, '', status));
  return items;
}

/**
 * The runs of an outcome: its `order` when that accounts for all of its text, refusal and calls;
 * else the text, the refusal, then the calls.
 */
function runsOf(outcome: ChatOutcome): readonly AnswerRun[] {
  const text = outcome.text ?? '';
  const refusal = outcome.refusal ?? '';
  if (outcome.order && orderAccountsFor(outcome.order, text.length, refusal.length, outcome.toolCalls.length)) return outcome.order;
  return [
    ...(text !== '' ? [{ content: text.length }] : []),
    ...(refusal !== '' ? [{ refusal: refusal.length }] : []),
    ...outcome.toolCalls.map((_call, i) => ({ tool_call: i })),
  ];
}

function finishStatus(finishReason: string): {
  status: ResponseObject['status'];
  itemStatus: MessageItem['status'];
  incomplete: { reason: string } | null;
} {
  if (finishReason === 'length') return { status: 'incomplete', itemStatus: 'incomplete', incomplete: { reason: 'max_output_tokens' } };
  if (finishReason === 'content_filter') return { status: 'incomplete', itemStatus: 'incomplete', incomplete: { reason: 'content_filter' } };
  return { status: 'completed', itemStatus: 'completed', incomplete: null };
}

export function usageOf(usage: ChatUsage | null): ResponseUsage | null {
  if (!usage) return null;
  return {
    input_tokens: usage.prompt_tokens,
    input_tokens_details: { cached_tokens: usage.prompt_tokens_details?.cached_tokens ?? 0 },
    output_tokens: usage.completion_tokens,
    output_tokens_details: { reasoning_tokens: usage.completion_tokens_details?.reasoning_tokens ?? 0 },
    total_tokens: usage.total_tokens,
  };
}

export interface ResponseFrame {
  id: string;
  createdAt: number;
  request: ResponsesRequest;
  /** The model that serves (known once the chain answered), else the one asked for. */
  model: string;
  /**
   * A native provider's thinking as the reasoning item shows it: restored by the request's firewall.
   * The blocks in `encrypted_content` stay as the provider signed them (masked), to go back so.
   */
  showThinking?: (text: string) => string;
}

/** The response object around its output: what the request set is echoed back, as OpenAI does. */
export function responseObject(
  frame: ResponseFrame,
  state: { status: ResponseObject['status']; output: OutputItem[]; usage: ChatUsage | null; sources: unknown[]; error?: ResponseObject['error']; incomplete?: ResponseObject['incomplete_details'] },
): ResponseObject {
  const { request } = frame;
  return {
    id: frame.id,
    object: 'response',
    created_at: frame.createdAt,
    status: state.status,
    background: false,
    error: state.error ?? null,
    incomplete_details: state.incomplete ?? null,
    instructions: request.instructions ?? null,
    max_output_tokens: request.max_output_tokens ?? null,
    metadata: request.metadata ?? {},
    model: frame.model,
    output: state.output,
    output_text: outputTextOf(state.output),
    parallel_tool_calls: request.parallel_tool_calls ?? true,
    previous_response_id: request.previous_response_id ?? null,
    reasoning: { effort: request.reasoning?.effort ?? null, summary: request.reasoning?.summary ?? null },
    store: request.store ?? true,
    temperature: request.temperature ?? null,
    text: { format: request.text?.format ?? { type: 'text' } },
    tool_choice: request.tool_choice ?? 'auto',
    tools: request.tools ?? [],
    top_p: request.top_p ?? null,
    truncation: 'disabled',
    usage: usageOf(state.usage),
    user: request.user ?? null,
    ...(state.usage?.credits ? { credits: state.usage.credits } : {}),
    sources: state.sources,
  };
}

/** The finished response of an outcome. */
export function finishedResponse(frame: ResponseFrame, outcome: ChatOutcome): ResponseObject {
  const { status, incomplete } = finishStatus(outcome.finishReason);
  return responseObject(
    { ...frame, model: outcome.model },
    { status, incomplete, output: outputItemsOf(frame.id, outcome, reasoningAsSummary(frame.request)), usage: outcome.usage, sources: outcome.sources },
  );
}

function outputTextOf(output: readonly OutputItem[]): string {
  return output
    .flatMap((item) => (item.type === 'message' ? item.content.flatMap((part) => (part.type === 'output_text' ? [part.text] : [])) : []))
    .join('');
}
