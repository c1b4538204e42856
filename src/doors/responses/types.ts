import type { components } from '../../generated/openapi.js';

export type ResponsesRequest = components['schemas']['ResponsesRequest'];
/** An input item as the caller sent it (also what is stored, and what a chain replays). */
export type InputItem = components['schemas']['ResponsesInputItem'] & Record<string, unknown>;
export type ContentPart = components['schemas']['ResponsesContentPart'] & Record<string, unknown>;

export interface OutputText {
  type: 'output_text';
  text: string;
  annotations: unknown[];
  logprobs: unknown[];
}

export interface MessageItem {
  id: string;
  type: 'message';
  status: 'completed' | 'in_progress' | 'incomplete';
  role: 'assistant';
  content: (OutputText | { type: 'refusal'; refusal: string })[];
}

export interface FunctionCallItem {
  id: string;
  type: 'function_call';
  status: 'completed' | 'in_progress' | 'incomplete';
  call_id: string;
  name: string;
  arguments: string;
}

export interface ReasoningItem {
  id: string;
  type: 'reasoning';
  summary: { type: 'summary_text'; text: string }[];
  /** The reasoning as written, unless the request asked for it as `summary` (see `reasoningAsSummary`). */
  content?: { type: 'reasoning_text'; text: string }[];
  /** A native Anthropic provider's thinking blocks, to be passed back (see answer.ts, `sealThinking`). */
  encrypted_content?: string;
}

export type OutputItem = ReasoningItem | MessageItem | FunctionCallItem;

export interface ResponseUsage {
  input_tokens: number;
  input_tokens_details: { cached_tokens: number };
  output_tokens: number;
  output_tokens_details: { reasoning_tokens: number };
  total_tokens: number;
}

/** OpenAI's response object, plus Polder's `credits` and `sources`. */
export interface ResponseObject {
  id: string;
  object: 'response';
  created_at: number;
  status: 'completed' | 'incomplete' | 'failed' | 'in_progress';
  error: { code: string; message: string } | null;
  incomplete_details: { reason: string } | null;
  model: string;
  output: OutputItem[];
  output_text: string;
  usage: ResponseUsage | null;
  [echoed: string]: unknown;
}
