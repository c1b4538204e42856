import type { CatalogProvider } from '../catalog.js';
import type { components } from '../../generated/openapi.js';

// The boundary between the gateway and a provider adapter (providers/<name>/). The gateway hands
// an adapter the upstream-ready request (our own fields removed, personal data already masked)
// and gets back OpenAI-shaped results; an adapter never sees tenants, billing or the firewall.

type Schemas = components['schemas'];

export type ChatMessage = Schemas['ChatMessage'];
/** Anthropic's thinking block; its signature covers its text, so it travels byte for byte. */
export type ThinkingBlock = Schemas['ThinkingBlock'];
export type ChatToolCall = Schemas['ChatToolCall'];

/** The OpenAI wire fields a provider may receive. `model` and `stream` are set by the adapter. */
export interface UpstreamChatRequest {
  messages: ChatMessage[];
  temperature?: number;
  max_tokens?: number;
  max_completion_tokens?: number;
  top_p?: number;
  top_k?: number;
  stop?: string | string[];
  presence_penalty?: number;
  frequency_penalty?: number;
  n?: number;
  seed?: number;
  logit_bias?: Record<string, number>;
  logprobs?: boolean;
  top_logprobs?: number;
  tools?: Schemas['ChatTool'][];
  tool_choice?: Schemas['ChatToolChoice'];
  parallel_tool_calls?: boolean;
  reasoning_effort?: Exclude<Schemas['ReasoningEffort'], null>;
  response_format?: Schemas['ResponseFormat'];
  user?: string;
  /** Only set for streams: ask the provider to report usage on its last chunk. */
  stream_options?: { include_usage: boolean };
  /**
   * Anthropic's own thinking settings, as a Messages caller gave them: a native Anthropic provider
   * gets them in place of what it would make of `reasoning_effort`, which every other provider gets.
   */
  thinking?: AnthropicThinking;
  output_config?: AnthropicOutputConfig;
}

export type AnthropicThinking = Schemas['MessagesThinking'];
export type AnthropicOutputConfig = Schemas['MessagesOutputConfig'];

/** What a door asks of a native Anthropic provider beyond the chat request. */
export type AnthropicSettings = Pick<UpstreamChatRequest, 'thinking' | 'output_config'>;

// Not parameters: they stand beside `reasoning_effort` and go (or are dropped) with it.
export type UpstreamParameter = Exclude<keyof UpstreamChatRequest, 'messages' | 'stream_options' | 'thinking' | 'output_config'>;

// The system message the gateway's retrieval adds (chat.ts) changes with every question. Where a
// provider keeps one prompt-cache prefix from `system` on (Anthropic), it would end the cached
// prefix before the conversation; the adapter moves it into the turn it answers instead. Known by
// identity, so that nothing about it reaches a trace, a cache key or the wire.
const retrievedKnowledge = new WeakSet<ChatMessage>();

/** Marks `message` as the retrieval's knowledge; returns it. */
export function asRetrievedKnowledge(message: ChatMessage): ChatMessage {
  retrievedKnowledge.add(message);
  return message;
}

export function isRetrievedKnowledge(message: ChatMessage): boolean {
  return retrievedKnowledge.has(message);
}

// Keyed by the union, so a field added to UpstreamChatRequest fails to compile until it is listed.
const PARAMETERS: Record<UpstreamParameter, true> = {
  temperature: true,
  max_tokens: true,
  max_completion_tokens: true,
  top_p: true,
  top_k: true,
  stop: true,
  presence_penalty: true,
  frequency_penalty: true,
  n: true,
  seed: true,
  logit_bias: true,
  logprobs: true,
  top_logprobs: true,
  tools: true,
  tool_choice: true,
  parallel_tool_calls: true,
  reasoning_effort: true,
  response_format: true,
  user: true,
};

/** Every parameter a provider may receive besides the messages. */
export const ALL_PARAMETERS = Object.keys(PARAMETERS) as readonly UpstreamParameter[];

export interface UpstreamUsage {
  prompt_tokens: number;
  completion_tokens: number;
  total_tokens: number;
  /** `cached_tokens` were read from the provider's prompt cache, `cache_write_tokens` written to it. */
  prompt_tokens_details?: { cached_tokens?: number; cache_write_tokens?: number };
  /** Of the completion tokens, those the model spent reasoning. */
  completion_tokens_details?: { reasoning_tokens?: number };
}

/** The provider's count of the prompt, which some give before the answer (Anthropic's message_start). */
export type PromptUsage = Pick<UpstreamUsage, 'prompt_tokens' | 'prompt_tokens_details'>;

/** How a choice ended: on a whole answer's choice, and on a stream's finish chunk. */
export interface ChoiceEnd {
  finish_reason: string | null;
  /** The stop sequence that ended the answer, when the provider says which (Anthropic; vLLM's `stop_reason`). */
  stop_sequence?: string;
  logprobs?: unknown;
}

/**
 * One run of an answer as a stream gave it: so many characters of `content`, of `refusal`, or a
 * tool call (its index in `tool_calls`). A door that shows an answer as items in turn (the
 * Responses door) shows them in this order, which the joined `content` no longer holds.
 */
export type AnswerRun = { content: number } | { refusal: number } | { tool_call: number };

export interface UpstreamChoice extends ChoiceEnd {
  index: number;
  message: {
    role: 'assistant';
    content: string | null;
    tool_calls?: (ChatToolCall & { type: 'function' })[];
    refusal?: string | null;
    /** Reasoning an OpenAI-compatible provider gave as text. */
    reasoning_content?: string;
    /** Only from a native Anthropic provider. */
    thinking_blocks?: ThinkingBlock[];
    /**
     * The order a stream gave the content, refusal and tool calls in, when not the usual one
     * (content, refusal, then the calls by index): kept with the answer, for its replays and
     * cache hits, never sent as a field of it.
     */
    order?: AnswerRun[];
  };
}

export interface UpstreamCompletion {
  id: string;
  created: number;
  choices: UpstreamChoice[];
  /** Absent when the provider reported none; the gateway then counts with the tokenizer. */
  usage?: UpstreamUsage;
  /** Only for a stream that ended before its usage came: the prompt as the provider counted it at its start. */
  promptUsage?: PromptUsage;
  /** What the adapter changed in the request as it left, for the trace; never kept with the answer. */
  notes?: readonly string[];
}

export interface UpstreamToolCallDelta {
  index: number;
  id?: string;
  type?: 'function';
  function?: { name?: string; arguments?: string };
}

export interface UpstreamChunk {
  choices: ({
    index: number;
    /** `thinking_blocks` come whole, each in one delta (a signature is only good for the whole text). */
    delta: {
      role?: 'assistant';
      content?: string | null;
      tool_calls?: UpstreamToolCallDelta[];
      refusal?: string | null;
      reasoning_content?: string;
      thinking_blocks?: ThinkingBlock[];
    };
  } & ChoiceEnd)[];
  usage?: UpstreamUsage | null;
  /** The prompt as the provider counted it before the answer, on the first chunk after it came. */
  promptUsage?: PromptUsage;
  /**
   * No output, but the model is at work on some (a native provider's thinking, which goes out whole
   * once signed): the stream has begun, and a door may tell its client so (Messages' pings).
   */
  progress?: true;
}

export interface EmbeddingInput {
  input: string[];
  /** Only passed for models that reduce natively. */
  dimensions?: number;
  user?: string;
}

export interface EmbeddingOutput {
  /** One vector per input, in input order. */
  embeddings: number[][];
  usage?: { prompt_tokens: number; total_tokens: number };
}

/** Where one attempt goes: a provider from the catalogue and the model name it knows. */
export interface UpstreamTarget {
  provider: CatalogProvider;
  upstreamModel: string;
  /** Our catalogue id, e.g. mistral/mistral-small-latest. */
  modelId: string;
  /**
   * A chat model's cap for an answer whose request sets none (catalogue `max_output_tokens`): what
   * rate limits and budgets reserve, so an adapter that must send a cap sends this one.
   */
  maxOutputTokens?: number;
}

export type UpstreamFailureKind = 'connect' | 'timeout' | 'status' | 'protocol' | 'aborted';

/**
 * Statuses that speak of the gateway's standing with the provider, not of the request: its key
 * refused (401, 403) or its account unpaid (402). Another provider, with its own key, may serve it.
 */
export const PROVIDER_ACCOUNT_STATUSES: ReadonlySet<number> = new Set([401, 402, 403]);

/**
 * A failed upstream call. `retryable` decides fallback: connection errors, timeouts, 408, 429,
 * 5xx and the provider refusing the gateway's own account (401, 402, 403) move on to the next
 * candidate; any other 4xx stops the chain (400 upstream_rejected).
 */
export class UpstreamError extends Error {
  override name = 'UpstreamError';
  readonly kind: UpstreamFailureKind;
  readonly status: number | undefined;
  readonly retryAfter: string | undefined;
  /** The provider's own error message, when it sent one (never includes our key). */
  readonly upstreamMessage: string | undefined;
  /** The call never left this process: every connection to the provider was busy until the timeout. */
  readonly queued: boolean;
  /**
   * A stream cut because our client read nothing for the idle timeout while the provider waited on
   * us: the client's doing, not the provider's (chat bills what was streamed, as for a client gone).
   */
  readonly consumerStalled: boolean;

  constructor(
    kind: UpstreamFailureKind,
    message: string,
    details: { status?: number; retryAfter?: string; upstreamMessage?: string; queued?: boolean; consumerStalled?: boolean } = {},
  ) {
    super(message);
    this.kind = kind;
    this.status = details.status;
    this.retryAfter = details.retryAfter;
    this.upstreamMessage = details.upstreamMessage;
    this.queued = details.queued ?? false;
    this.consumerStalled = details.consumerStalled ?? false;
  }

  get retryable(): boolean {
    if (this.kind !== 'status') return this.kind !== 'aborted';
    const status = this.status ?? 0;
    return status === 408 || status === 429 || status >= 500 || PROVIDER_ACCOUNT_STATUSES.has(status);
  }
}

export interface ChatStream {
  /** The chunks, starting with the first one, which the adapter has already received. */
  chunks: AsyncIterable<UpstreamChunk>;
  /** What the adapter changed in the request as it left, for the trace. */
  notes?: readonly string[];
}

/** How much of a parameter a provider takes, where it takes less than any request may give. */
export interface ParameterLimits {
  /** The most stop sequences. */
  readonly stop?: number;
  /** Parameters it refuses beside thinking (Anthropic's sampling settings). */
  readonly notWithThinking?: readonly UpstreamParameter[];
}

export interface ProviderAdapter {
  /** The request parameters this provider takes (for strict mode and for dropping the rest). */
  supportedParameters(target: UpstreamTarget): ReadonlySet<UpstreamParameter>;
  /** Limits on the parameters it takes; a request past one is treated as one it does not take. */
  parameterLimits?(target: UpstreamTarget): ParameterLimits;
  complete(target: UpstreamTarget, request: UpstreamChatRequest, signal: AbortSignal): Promise<UpstreamCompletion>;
  /**
   * Resolves once the provider answered 200 AND its first chunk arrived, so a stream that fails
   * before its first byte rejects here (with an UpstreamError) and the gateway can fall back.
   * Failures after that are thrown by the iterator as UpstreamError.
   */
  stream(target: UpstreamTarget, request: UpstreamChatRequest, signal: AbortSignal): Promise<ChatStream>;
  embed(target: UpstreamTarget, request: EmbeddingInput, signal: AbortSignal): Promise<EmbeddingOutput>;
  /** Closes pools and sockets (graceful shutdown, tests). */
  close(): Promise<void>;
}
