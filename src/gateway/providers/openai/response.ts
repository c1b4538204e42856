// The provider's JSON → our shapes. Providers differ in small ways (a missing `type` on a tool
// call, arguments sent as an object, content as an array of parts, usage without a total), so
// each result is rebuilt from the fields we know rather than passed through.
import type {
  EmbeddingOutput,
  UpstreamChoice,
  UpstreamChunk,
  UpstreamCompletion,
  UpstreamToolCallDelta,
  UpstreamUsage,
} from '../types.js';
import { isRecord, protocolError } from './errors.js';
import { madeUpToolCallId } from './toolCallDeltas.js';

type Json = Record<string, unknown>;

export function toCompletion(raw: unknown, providerId: string): UpstreamCompletion {
  // An empty list is no answer either: the next provider may give one, and nothing is billed for it.
  if (!isRecord(raw) || !Array.isArray(raw.choices) || raw.choices.length === 0) throw protocolError(providerId, 'the response has no choices');
  const choices: UpstreamChoice[] = [];
  for (let i = 0; i < raw.choices.length; i++) {
    const c: unknown = raw.choices[i];
    if (!isRecord(c) || !isRecord(c.message)) throw protocolError(providerId, `choice ${i} has no message`);
    const m = c.message;
    const message: UpstreamChoice['message'] = { role: 'assistant', content: textOf(m.content) ?? null };
    if (Array.isArray(m.tool_calls) && m.tool_calls.length > 0) {
      message.tool_calls = m.tool_calls.map((t, j) => toolCall(t, j, providerId));
    }
    if (typeof m.refusal === 'string') message.refusal = m.refusal;
    const reasoning = reasoningOf(m);
    if (reasoning !== undefined) message.reasoning_content = reasoning;
    const choice: UpstreamChoice = {
      index: typeof c.index === 'number' ? c.index : i,
      message,
      finish_reason: typeof c.finish_reason === 'string' ? c.finish_reason : null,
      ...stopSequenceOf(c),
    };
    // Some servers say "stop" after tool calls; a turn that ends in them ends for them (toolCallDeltas.ts).
    if (choice.finish_reason === 'stop' && message.tool_calls) choice.finish_reason = 'tool_calls';
    if (c.logprobs !== undefined && c.logprobs !== null) choice.logprobs = c.logprobs;
    choices.push(choice);
  }
  const out: UpstreamCompletion = {
    id: typeof raw.id === 'string' ? raw.id : '',
    created: typeof raw.created === 'number' ? raw.created : Math.floor(Date.now() / 1000),
    choices,
  };
  const usage = toUsage(raw.usage);
  if (usage) out.usage = usage;
  return out;
}

function toolCall(t: unknown, j: number, providerId: string): NonNullable<UpstreamChoice['message']['tool_calls']>[number] {
  if (!isRecord(t) || !isRecord(t.function) || typeof t.function.name !== 'string') {
    throw protocolError(providerId, `tool call ${j} is malformed`);
  }
  return {
    id: typeof t.id === 'string' && t.id !== '' ? t.id : madeUpToolCallId(),
    type: 'function',
    function: { name: t.function.name, arguments: argumentsOf(t.function.arguments) ?? '' },
  };
}

/** Arguments are a JSON string in OpenAI's format; some servers send the object itself. */
function argumentsOf(v: unknown): string | undefined {
  if (typeof v === 'string') return v;
  if (v === undefined || v === null) return undefined;
  return JSON.stringify(v);
}

/**
 * Message content as text: a string as it is; an array of parts (Mistral's reasoning models)
 * as the concatenation of its text parts, with thinking parts left out.
 */
function textOf(v: unknown): string | undefined {
  if (typeof v === 'string') return v;
  if (!Array.isArray(v)) return undefined;
  let text: string | undefined;
  for (const part of v) {
    if (typeof part === 'string') text = (text ?? '') + part;
    else if (isRecord(part) && part.type === 'text' && typeof part.text === 'string') text = (text ?? '') + part.text;
  }
  return text;
}

/**
 * The reasoning of a message or delta, as providers send it: `reasoning_content` (DeepSeek, vLLM,
 * SGLang), `reasoning` (OpenRouter, newer vLLM), or Mistral's `thinking` content parts
 * (`{type: "thinking", thinking: [{type: "text", text}]}`).
 */
function reasoningOf(m: Json): string | undefined {
  if (typeof m.reasoning_content === 'string' && m.reasoning_content !== '') return m.reasoning_content;
  if (typeof m.reasoning === 'string' && m.reasoning !== '') return m.reasoning;
  if (!Array.isArray(m.content)) return undefined;
  let text: string | undefined;
  for (const part of m.content) {
    if (!isRecord(part) || part.type !== 'thinking') continue;
    const pieces = Array.isArray(part.thinking) ? part.thinking : [part.thinking];
    for (const piece of pieces) {
      if (typeof piece === 'string') text = (text ?? '') + piece;
      else if (isRecord(piece) && typeof piece.text === 'string') text = (text ?? '') + piece.text;
    }
  }
  return text;
}

/** vLLM (and SGLang) name the stop string that ended a choice in `stop_reason`; a number is a stop token. */
function stopSequenceOf(c: Json): { stop_sequence?: string } {
  return c.finish_reason === 'stop' && typeof c.stop_reason === 'string' ? { stop_sequence: c.stop_reason } : {};
}

function countOrUndefined(value: unknown): number | undefined {
  return typeof value === 'number' && Number.isInteger(value) && value >= 0 ? value : undefined;
}

export function toUsage(u: unknown): UpstreamUsage | undefined {
  if (!isRecord(u)) return undefined;
  // Counts that cannot be (negative, fractional, not numbers) are not the provider's to bill by:
  // the answer is counted with the tokenizer instead.
  const prompt = countOrUndefined(u.prompt_tokens);
  const completion = countOrUndefined(u.completion_tokens);
  if (prompt === undefined || completion === undefined) return undefined;
  const usage: UpstreamUsage = {
    prompt_tokens: prompt,
    completion_tokens: completion,
    total_tokens: prompt + completion,
  };
  // Cache reads are OpenAI's `cached_tokens`; some OpenAI-compatible routers (OpenRouter) also
  // report the tokens written to the provider's cache as `cache_write_tokens`.
  const details = u.prompt_tokens_details;
  if (isRecord(details)) {
    const read = countOrUndefined(details.cached_tokens);
    const written = countOrUndefined(details.cache_write_tokens);
    if (read !== undefined || written !== undefined) {
      usage.prompt_tokens_details = { ...(read !== undefined ? { cached_tokens: read } : {}), ...(written !== undefined ? { cache_write_tokens: written } : {}) };
    }
  }
  const reasoning = isRecord(u.completion_tokens_details) ? countOrUndefined(u.completion_tokens_details.reasoning_tokens) : undefined;
  if (reasoning !== undefined && reasoning > 0) usage.completion_tokens_details = { reasoning_tokens: reasoning };
  return usage;
}

/** One parsed `chat.completion.chunk`. */
export function toChunk(raw: Json, providerId: string): UpstreamChunk {
  const choices: UpstreamChunk['choices'] = [];
  const rawChoices = raw.choices;
  if (Array.isArray(rawChoices)) {
    for (let i = 0; i < rawChoices.length; i++) {
      const c: unknown = rawChoices[i];
      if (!isRecord(c)) throw protocolError(providerId, `stream choice ${i} is malformed`);
      const d = isRecord(c.delta) ? c.delta : undefined;
      const delta: UpstreamChunk['choices'][number]['delta'] = {};
      if (d) {
        if (d.role === 'assistant') delta.role = 'assistant';
        const content = textOf(d.content);
        if (content !== undefined) delta.content = content;
        if (Array.isArray(d.tool_calls) && d.tool_calls.length > 0) delta.tool_calls = d.tool_calls.map(toolCallDelta);
        if (typeof d.refusal === 'string') delta.refusal = d.refusal;
        const reasoning = reasoningOf(d);
        if (reasoning !== undefined) delta.reasoning_content = reasoning;
      }
      const choice: UpstreamChunk['choices'][number] = {
        index: typeof c.index === 'number' ? c.index : i,
        delta,
        finish_reason: typeof c.finish_reason === 'string' ? c.finish_reason : null,
        ...stopSequenceOf(c),
      };
      if (c.logprobs !== undefined && c.logprobs !== null) choice.logprobs = c.logprobs;
      choices.push(choice);
    }
  } else if (rawChoices !== undefined && rawChoices !== null) {
    throw protocolError(providerId, 'a stream chunk has malformed choices');
  }
  const chunk: UpstreamChunk = { choices };
  const usage = toUsage(raw.usage);
  if (usage) chunk.usage = usage;
  return chunk;
}

function toolCallDelta(t: unknown, position: number): UpstreamToolCallDelta {
  const out: UpstreamToolCallDelta = { index: position };
  if (!isRecord(t)) return out;
  if (typeof t.index === 'number') out.index = t.index;
  if (typeof t.id === 'string') out.id = t.id;
  if (t.type === 'function' || typeof t.id === 'string') out.type = 'function';
  if (isRecord(t.function)) {
    const fn: NonNullable<UpstreamToolCallDelta['function']> = {};
    if (typeof t.function.name === 'string') fn.name = t.function.name;
    const args = argumentsOf(t.function.arguments);
    if (args !== undefined) fn.arguments = args;
    out.function = fn;
  }
  return out;
}

/** A whole completion as one chunk: for a server that answered a stream request with plain JSON. */
export function completionAsChunk(c: UpstreamCompletion): UpstreamChunk {
  const chunk: UpstreamChunk = {
    choices: c.choices.map((choice) => {
      const delta: UpstreamChunk['choices'][number]['delta'] = { role: 'assistant', content: choice.message.content };
      if (choice.message.tool_calls) {
        delta.tool_calls = choice.message.tool_calls.map((t, index) => ({
          index,
          id: t.id,
          type: 'function',
          function: { name: t.function.name, arguments: t.function.arguments },
        }));
      }
      if (choice.message.refusal !== undefined) delta.refusal = choice.message.refusal;
      if (choice.message.reasoning_content !== undefined) delta.reasoning_content = choice.message.reasoning_content;
      const out: UpstreamChunk['choices'][number] = {
        index: choice.index,
        delta,
        finish_reason: choice.finish_reason,
        ...(choice.stop_sequence !== undefined ? { stop_sequence: choice.stop_sequence } : {}),
      };
      if (choice.logprobs !== undefined) out.logprobs = choice.logprobs;
      return out;
    }),
  };
  if (c.usage) chunk.usage = c.usage;
  return chunk;
}

export function toEmbeddings(raw: unknown, count: number, providerId: string): EmbeddingOutput {
  if (!isRecord(raw) || !Array.isArray(raw.data)) throw protocolError(providerId, 'the embeddings response has no data');
  const data = raw.data;
  if (data.length !== count) {
    throw protocolError(providerId, `asked for ${count} embedding${count === 1 ? '' : 's'}, got ${data.length}`);
  }
  const embeddings = new Array<number[]>(count);
  for (let i = 0; i < count; i++) {
    const item: unknown = data[i];
    if (!isRecord(item)) throw protocolError(providerId, `embedding ${i} is malformed`);
    const index = item.index === undefined ? i : item.index;
    if (typeof index !== 'number' || !Number.isInteger(index) || index < 0 || index >= count) {
      throw protocolError(providerId, `embedding ${i} has index ${JSON.stringify(index)}`);
    }
    if (embeddings[index] !== undefined) throw protocolError(providerId, `two embeddings have index ${index}`);
    const vector = item.embedding;
    if (!Array.isArray(vector) || vector.length === 0 || typeof vector[0] !== 'number') {
      throw protocolError(providerId, `embedding ${i} is not an array of floats`);
    }
    embeddings[index] = vector as number[];
  }
  const out: EmbeddingOutput = { embeddings };
  const u = raw.usage;
  const prompt = isRecord(u) ? countOrUndefined(u.prompt_tokens) : undefined;
  if (prompt !== undefined) out.usage = { prompt_tokens: prompt, total_tokens: prompt };
  return out;
}
