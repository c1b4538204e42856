/**
 * `local/echo` — a deterministic development chat model that runs in the gateway process and
 * answers from its input, so everything works offline and tests can assert on the reply.
 *
 * ## The reply, exactly
 *
 * Let USER be the text of the last `user` message (its string content, or its text parts joined
 * with "\n"; attachments are left out; "" when there is no user message), and ASKED the same
 * without the `<system-reminder>…</system-reminder>` notes a coding agent adds to it, trimmed:
 * what the person typed. Tools are chosen and their arguments filled from ASKED.
 *
 * 1. A forced tool call — `tool_choice: "required"` (the first tool) or
 *    `tool_choice: {type: "function", function: {name}}` (that function, even if it is not among
 *    `tools`) — answers with one tool call. Forcing wins over everything below, as it does at
 *    OpenAI (a loop that keeps `required` after the tool result keeps calling).
 * 2. When the last message is a `tool` message, the reply is text about the result:
 *    TEXT = "tool result " + the content of the trailing `tool` messages joined with "\n".
 * 3. `tool_choice: "auto"` (the default when `tools` is given): a call to every tool whose name
 *    ASKED mentions (whole word, case-insensitive), in `tools` order; only the first when
 *    `parallel_tool_calls: false`. If none is named, text. `"none"`: never a tool call.
 * 4. Otherwise TEXT = USER.
 *
 * A tool call: `{id: "call_echo_<messages.length>_<i>", type: "function", function: {name,
 * arguments}}`, where `arguments` is `JSON.stringify` of a small value for the tool's
 * `parameters` schema (see `minimalValue`; strings are filled with ASKED); `content: null`,
 * `finish_reason: "tool_calls"`.
 *
 * Text content, by `response_format`:
 *   - none or `{type: "text"}`: `"Echo: " + TEXT`            e.g. "Echo: Hello"
 *   - `{type: "json_object"}`: `JSON.stringify({echo: TEXT})` e.g. '{"echo":"Hello"}'
 *   - `{type: "json_schema", json_schema: {schema}}`: `JSON.stringify(minimalValue(schema, TEXT))`
 * then cut before the first occurrence of any `stop` sequence (`finish_reason: "stop"`), then, if
 * it takes more than `max_completion_tokens` (or else `max_tokens`) tokens, truncated to that many
 * with `finish_reason: "length"` (tool-call arguments are cut the same way, later calls dropped).
 *
 * `n` > 1 gives n identical choices, indexes 0..n-1 (at most 128). Every other parameter (temperature, seed,
 * reasoning_effort, logprobs, …) is accepted and ignored. Usage comes from the tokenizer:
 * prompt = `countPromptTokens` (messages and tool definitions), completion = the sum of `countCompletionTokens` over
 * the choices (as OpenAI counts n choices).
 *
 * ## Streaming
 *
 * The same completion, cut into chunks (`chunksFromCompletion`): per choice, in order, a first
 * delta `{role: "assistant", content: ""}` (`content: null` for a tool-call answer), then the
 * content a word at a time (with its leading whitespace; words over 16 characters in 16-character
 * pieces), then per tool call a delta with `index`, `id`, `type`, `function.name` and empty
 * `arguments`, then the arguments in 16-character pieces, then `{delta: {}, finish_reason}`.
 * With `stream_options.include_usage`, a last chunk `{choices: [], usage}` follows, as at
 * OpenAI. Chunks follow each other without delay (tests that need a slow stream use a stub provider).
 */
import { randomUUID } from 'node:crypto';
import { setImmediate as nextTurn } from 'node:timers/promises';
import { countCompletionTokens, countMessageTokens, countPromptTokens, countTokens, truncateToTokens } from '../../tokens.js';
import {
  UpstreamError,
  type ChatMessage,
  type UpstreamChatRequest,
  type UpstreamChoice,
  type UpstreamChunk,
  type UpstreamCompletion,
  type UpstreamUsage,
} from '../types.js';

export const ECHO_PREFIX = 'Echo: ';
export const TOOL_RESULT_PREFIX = 'tool result ';
/** OpenAI's bound on `n`; a larger n gets this many choices (the API schema sets no maximum). */
export const MAX_CHOICES = 128;

type AssistantMessage = UpstreamChoice['message'];
type ToolCall = NonNullable<AssistantMessage['tool_calls']>[number];

/** The text of a message's content: the string, or its text parts joined with "\n". */
export function messageText(content: ChatMessage['content']): string {
  if (content === null || content === undefined) return '';
  if (typeof content === 'string') return content;
  return content
    .filter((part) => part.type === 'text')
    .map((part) => part.text ?? '')
    .join('\n');
}

/** The text of the last user message ("" when there is none). */
export function lastUserText(messages: readonly ChatMessage[]): string {
  for (let i = messages.length - 1; i >= 0; i--) {
    if (messages[i]!.role === 'user') return messageText(messages[i]!.content);
  }
  return '';
}

const NOTE_OPEN = '<system-reminder>';
const NOTE_CLOSE = '</system-reminder>';

/** `text` without the `<system-reminder>` notes Claude Code adds to a user turn (read with indexOf: linear). */
function withoutAgentNotes(text: string): string {
  let at = text.indexOf(NOTE_OPEN);
  if (at < 0) return text;
  let kept = '';
  let from = 0;
  while (at >= 0) {
    const end = text.indexOf(NOTE_CLOSE, at + NOTE_OPEN.length);
    if (end < 0) break;
    kept += text.slice(from, at);
    from = end + NOTE_CLOSE.length;
    at = text.indexOf(NOTE_OPEN, from);
  }
  return (kept + text.slice(from)).trim();
}

/** The answer to a chat request, as a provider would return it. Never throws. */
export function echoCompletion(request: UpstreamChatRequest): UpstreamCompletion {
  const message = answer(request);
  const n = Math.min(MAX_CHOICES, Math.max(1, Math.floor(request.n ?? 1)));
  const choices: UpstreamChoice[] = [];
  for (let index = 0; index < n; index++) {
    choices.push({
      index,
      message: {
        role: 'assistant',
        content: message.content,
        ...(message.tool_calls ? { tool_calls: message.tool_calls.map((c) => ({ ...c, function: { ...c.function } })) } : {}),
      },
      finish_reason: message.finishReason,
    });
  }
  const promptTokens = countPromptTokens(request);
  const completionTokens = n * countCompletionTokens(message);
  return {
    id: `chatcmpl-echo-${randomUUID()}`,
    created: Math.floor(Date.now() / 1000),
    choices,
    usage: { prompt_tokens: promptTokens, completion_tokens: completionTokens, total_tokens: promptTokens + completionTokens },
  };
}

interface Answer {
  content: string | null;
  tool_calls?: ToolCall[];
  finishReason: 'stop' | 'length' | 'tool_calls';
}

function answer(request: UpstreamChatRequest): Answer {
  const messages = request.messages;
  const userText = lastUserText(messages);
  const asked = withoutAgentNotes(userText);
  const limit = request.max_completion_tokens ?? request.max_tokens;

  const calls = chooseTools(request, asked);
  if (calls.length > 0) {
    const toolCalls: ToolCall[] = calls.map((tool, i) => ({
      id: `call_echo_${messages.length}_${i}`,
      type: 'function',
      function: { name: tool.name, arguments: JSON.stringify(toolArguments(tool.parameters, asked)) },
    }));
    if (limit !== undefined) {
      const cut = limitToolCalls(toolCalls, limit);
      if (cut) return { content: null, tool_calls: cut, finishReason: 'length' };
    }
    return { content: null, tool_calls: toolCalls, finishReason: 'tool_calls' };
  }

  const last = messages[messages.length - 1];
  let text = userText;
  if (last?.role === 'tool') {
    let first = messages.length - 1;
    while (first > 0 && messages[first - 1]!.role === 'tool') first--;
    text = TOOL_RESULT_PREFIX + messages.slice(first).map((m) => messageText(m.content)).join('\n');
  }

  let content: string;
  const format = request.response_format;
  if (format?.type === 'json_schema') content = JSON.stringify(minimalValue(format.json_schema?.schema ?? {}, text)) ?? 'null';
  else if (format?.type === 'json_object') content = JSON.stringify({ echo: text });
  else content = ECHO_PREFIX + text;

  content = cutAtStop(content, request.stop);
  if (limit !== undefined && countTokens(content) > limit) {
    return { content: truncateToTokens(content, limit), finishReason: 'length' };
  }
  return { content, finishReason: 'stop' };
}

interface ChosenTool {
  name: string;
  parameters: Record<string, unknown> | undefined;
}

function chooseTools(request: UpstreamChatRequest, userText: string): ChosenTool[] {
  const tools = (request.tools ?? []).map((t) => ({ name: t.function.name, parameters: t.function.parameters }));
  const choice = request.tool_choice ?? (tools.length > 0 ? 'auto' : 'none');
  if (typeof choice === 'object' && choice !== null) {
    const name = choice.function?.name ?? '';
    return [tools.find((t) => t.name === name) ?? { name, parameters: undefined }];
  }
  if (choice === 'required') return tools.slice(0, 1);
  if (choice !== 'auto') return [];
  if (request.messages[request.messages.length - 1]?.role === 'tool') return [];
  const named = tools.filter((t) => t.name !== '' && mentions(userText, t.name));
  return request.parallel_tool_calls === false ? named.slice(0, 1) : named;
}

function mentions(text: string, name: string): boolean {
  const escaped = name.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  try {
    return new RegExp(`(?<![\\p{L}\\p{N}_-])${escaped}(?![\\p{L}\\p{N}_-])`, 'iu').test(text);
  } catch {
    return text.toLowerCase().includes(name.toLowerCase());
  }
}

function toolArguments(parameters: Record<string, unknown> | undefined, text: string): Record<string, unknown> {
  const value = minimalValue(parameters ?? { type: 'object' }, text);
  return value !== null && typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, unknown>) : {};
}

/** The calls cut to `limit` tokens (names + arguments), or undefined when they fit. */
function limitToolCalls(calls: ToolCall[], limit: number): ToolCall[] | undefined {
  if (countCompletionTokens({ tool_calls: calls }) <= limit) return undefined;
  const out: ToolCall[] = [];
  let left = Math.max(0, Math.floor(limit));
  for (const call of calls) {
    const nameTokens = countTokens(call.function.name);
    const argTokens = countTokens(call.function.arguments);
    if (nameTokens + argTokens <= left) {
      out.push(call);
      left -= nameTokens + argTokens;
      continue;
    }
    if (out.length === 0 || left > nameTokens) {
      const args = truncateToTokens(call.function.arguments, Math.max(0, left - nameTokens));
      out.push({ ...call, function: { name: call.function.name, arguments: args } });
    }
    break;
  }
  return out;
}

function cutAtStop(content: string, stop: string | string[] | undefined): string {
  const sequences = (typeof stop === 'string' ? [stop] : (stop ?? [])).filter((s) => typeof s === 'string' && s.length > 0);
  let end = content.length;
  for (const s of sequences) {
    const at = content.indexOf(s);
    if (at >= 0 && at < end) end = at;
  }
  return content.slice(0, end);
}

// ---- values for a JSON Schema ------------------------------------------------------------

const MAX_DEPTH = 16;
/** Schema nodes visited per value: recursive `$ref`s and wide schemas cannot blow up. */
const MAX_NODES = 1_000;
const MAX_ITEMS = 16;

/**
 * A small value for a JSON Schema (deterministic), enough for the schemas clients send for
 * structured output and tool parameters (OpenAI's strict subset): `const`, else the first `enum`
 * value; a local `$ref` (`#/$defs/…`) followed; of `anyOf`/`oneOf` the first branch that is not
 * just null; of several `type`s the first non-null one. Objects get their required properties only,
 * arrays `minItems` items (at most 16), strings `text`, numbers `minimum` (else 0), booleans false.
 * Lengths, patterns, formats, `multipleOf`, `allOf` and the exclusive bounds are not honoured.
 * Bounded: 1,000 schema nodes and 16 levels, then null.
 */
export function minimalValue(schema: unknown, text = ''): unknown {
  let nodes = MAX_NODES;
  const valueOf = (node: unknown, depth: number): unknown => {
    if (node === true) return {};
    if (!isSchemaObject(node) || depth > MAX_DEPTH || --nodes < 0) return null;
    if (typeof node.$ref === 'string') return valueOf(resolveRef(node.$ref, schema), depth + 1);
    if ('const' in node) return node.const;
    if (Array.isArray(node.enum) && node.enum.length > 0) return node.enum[0];
    const branches = node.anyOf ?? node.oneOf;
    if (Array.isArray(branches) && branches.length > 0) {
      return valueOf(branches.find((b) => isSchemaObject(b) && b.type !== 'null') ?? branches[0], depth + 1);
    }
    const types = Array.isArray(node.type) ? node.type : [node.type];
    switch (types.find((t) => t !== 'null') ?? types[0]) {
      case 'null':
        return null;
      case 'boolean':
        return false;
      case 'integer':
      case 'number':
        return typeof node.minimum === 'number' ? node.minimum : 0;
      case 'string':
        return text;
      case 'array':
        return Array.from({ length: Math.min(MAX_ITEMS, Number(node.minItems) || 0) }, () => valueOf(node.items ?? true, depth + 1));
    }
    const properties = isSchemaObject(node.properties) ? node.properties : {};
    const out: Record<string, unknown> = {};
    for (const name of Array.isArray(node.required) ? node.required : []) {
      if (typeof name !== 'string') continue;
      // defineProperty: a property named "__proto__" must become an own property.
      const value = valueOf(Object.hasOwn(properties, name) ? properties[name] : (node.additionalProperties ?? true), depth + 1);
      Object.defineProperty(out, name, { value, enumerable: true, writable: true, configurable: true });
    }
    return out;
  };
  return valueOf(schema, 0);
}

function isSchemaObject(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

function resolveRef(ref: string, root: unknown): unknown {
  if (!ref.startsWith('#')) return null;
  let node: unknown = root;
  for (const raw of decodeURIComponent(ref.slice(1)).split('/').slice(1)) {
    if (!isSchemaObject(node)) return null;
    node = node[raw.replace(/~1/g, '/').replace(/~0/g, '~')];
  }
  return node;
}

// ---- streaming ---------------------------------------------------------------------------

const PIECE = 16;

/** Pieces of at most PIECE UTF-16 units that never split a surrogate pair. */
function slices(s: string, size = PIECE): string[] {
  const out: string[] = [];
  for (let i = 0; i < s.length; ) {
    let j = Math.min(i + size, s.length);
    if (j < s.length) {
      const c = s.charCodeAt(j - 1);
      if (c >= 0xd800 && c <= 0xdbff) j++;
    }
    out.push(s.slice(i, j));
    i = j;
  }
  return out;
}

/** Content deltas: a word at a time with its leading whitespace, long words in pieces. */
function wordPieces(s: string): string[] {
  const out: string[] = [];
  for (const m of s.matchAll(/\s*\S+|\s+$/g)) out.push(...slices(m[0]));
  return out;
}

/**
 * A completion as the chunks a provider would stream for it (see the top of this file). The
 * content and tool calls put back together equal the completion's exactly.
 */
export function chunksFromCompletion(completion: UpstreamCompletion, includeUsage: boolean): UpstreamChunk[] {
  const chunks: UpstreamChunk[] = [];
  const push = (index: number, delta: UpstreamChunk['choices'][number]['delta'], finish: string | null = null) =>
    chunks.push({ choices: [{ index, delta, finish_reason: finish }] });

  for (const choice of completion.choices) {
    const { content, tool_calls: calls, refusal } = choice.message;
    push(choice.index, { role: 'assistant', content: content === null ? null : '' });
    for (const piece of content ? wordPieces(content) : []) push(choice.index, { content: piece });
    if (refusal) for (const piece of wordPieces(refusal)) push(choice.index, { refusal: piece });
    (calls ?? []).forEach((call, i) => {
      push(choice.index, { tool_calls: [{ index: i, id: call.id, type: 'function', function: { name: call.function.name, arguments: '' } }] });
      for (const piece of slices(call.function.arguments)) push(choice.index, { tool_calls: [{ index: i, function: { arguments: piece } }] });
    });
    push(choice.index, {}, choice.finish_reason ?? 'stop');
  }
  if (includeUsage && completion.usage) chunks.push({ choices: [], usage: { ...completion.usage } satisfies UpstreamUsage });
  return chunks;
}

export interface EchoStreamOptions {
  signal?: AbortSignal;
}

/**
 * The streamed answer. The answer is computed at once (so it equals `echoCompletion`'s, or is
 * it, computed elsewhere); the iterator then yields its chunks, throwing an UpstreamError of kind
 * `aborted` once the signal is aborted.
 */
export function echoStream(
  request: UpstreamChatRequest,
  options: EchoStreamOptions = {},
  completion: UpstreamCompletion = echoCompletion(request),
): AsyncIterable<UpstreamChunk> {
  const chunks = chunksFromCompletion(completion, request.stream_options?.include_usage === true);
  return yieldChunks(chunks, options);
}

async function* yieldChunks(chunks: UpstreamChunk[], { signal }: EchoStreamOptions): AsyncGenerator<UpstreamChunk> {
  for (let i = 0; i < chunks.length; i++) {
    if (signal?.aborted) throw abortedError();
    if (i > 0 && i % 256 === 0) {
      await nextTurn(); // let other requests run during a long stream
    }
    if (signal?.aborted) throw abortedError();
    yield chunks[i]!;
  }
}

export function abortedError(): UpstreamError {
  return new UpstreamError('aborted', 'the request was aborted');
}
