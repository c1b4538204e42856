/**
 * `local/echo` — a deterministic development chat model that runs in the gateway process and
 * answers from its input, so everything works offline and tests can assert on the reply.
 *
 * ## The reply, exactly
 *
 * Let USER be the text of the last `user` message (its string content, or its text parts joined
 * with "\n"; attachments are left out; "" when there is no user message).
 *
 * 1. A forced tool call — `tool_choice: "required"` (the first tool) or
 *    `tool_choice: {type: "function", function: {name}}` (that function, even if it is not among
 *    `tools`) — answers with one tool call. Forcing wins over everything below, as it does at
 *    OpenAI (a loop that keeps `required` after the tool result keeps calling).
 * 2. When the last message is a `tool` message, the reply is text about the result:
 *    TEXT = "tool result " + the content of the trailing `tool` messages joined with "\n".
 * 3. `tool_choice: "auto"` (the default when `tools` is given): a call to every tool whose name
 *    USER mentions (whole word, case-insensitive), in `tools` order; only the first when
 *    `parallel_tool_calls: false`. If none is named, text. `"none"`: never a tool call.
 * 4. Otherwise TEXT = USER.
 *
 * A tool call: `{id: "call_echo_<messages.length>_<i>", type: "function", function: {name,
 * arguments}}`, where `arguments` is `JSON.stringify` of the minimal valid value of the tool's
 * `parameters` schema (see `minimalValue`; strings are filled with USER); `content: null`,
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
 * prompt = `countMessageTokens(messages)`, completion = the sum of `countCompletionTokens` over
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
import { countCompletionTokens, countMessageTokens, countTokens, truncateToTokens } from '../../tokens.js';
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
type JsonSchema = Record<string, unknown> | boolean;

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
  const promptTokens = countMessageTokens(request.messages);
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
  const limit = request.max_completion_tokens ?? request.max_tokens;

  const calls = chooseTools(request, userText);
  if (calls.length > 0) {
    const toolCalls: ToolCall[] = calls.map((tool, i) => ({
      id: `call_echo_${messages.length}_${i}`,
      type: 'function',
      function: { name: tool.name, arguments: JSON.stringify(toolArguments(tool.parameters, userText)) },
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

// ---- minimal values for a JSON Schema ------------------------------------------------------

const FORMAT_EXAMPLES: Readonly<Record<string, string>> = {
  'date-time': '1970-01-01T00:00:00Z',
  date: '1970-01-01',
  time: '00:00:00Z',
  duration: 'P0D',
  email: 'echo@example.com',
  'idn-email': 'echo@example.com',
  hostname: 'example.com',
  'idn-hostname': 'example.com',
  ipv4: '127.0.0.1',
  ipv6: '::1',
  uri: 'https://example.com/',
  'uri-reference': 'https://example.com/',
  iri: 'https://example.com/',
  'iri-reference': 'https://example.com/',
  url: 'https://example.com/',
  uuid: '00000000-0000-0000-0000-000000000000',
  'json-pointer': '',
  'relative-json-pointer': '0',
  regex: '.*',
};

const MAX_DEPTH = 32;
/** Schema nodes visited per value: recursive `$ref`s and wide `anyOf`s cannot blow up. */
const WORK_BUDGET = 10_000;
/** Caps on what a schema can ask for (the value is then invalid, but the process is safe). */
const MAX_ITEMS = 1_000;
const MAX_STRING = 100_000;
/** Caller-supplied patterns are only run on strings this short (no catastrophic backtracking). */
const MAX_PATTERN_INPUT = 16;

interface Context {
  text: string;
  root: JsonSchema;
  budget: number;
}

/**
 * A minimal value valid for a JSON Schema (best effort, deterministic): `const`, else the first
 * `enum` value; objects with their required properties only (plus more for `minProperties` /
 * `dependentRequired`); arrays with `minItems` items (`prefixItems`, `items`, `contains`);
 * strings = `text` (cut to `maxLength`, padded with "x" to `minLength`; a known `format` gets a
 * fixed example; with a `pattern`, `text` is kept only if it has at most 16 characters and
 * matches, else "" when that matches — caller patterns never run on long input); numbers 0 moved
 * into `minimum`/`maximum`/`exclusive*` and up to `multipleOf`; booleans false; null. Local
 * `$ref`s (`#/$defs/…`, `#/definitions/…`) are followed, `allOf` merged, the first non-null
 * branch of `anyOf`/`oneOf` taken; with several `type`s the first non-null one. A schema with no
 * type and nothing that implies one gives {}. Not handled: `not`, `if`/`then`/`else`,
 * `uniqueItems` with several items, `patternProperties`-only requirements. Bounded work: at most
 * 10,000 schema nodes, 32 levels, 1,000 items per array and 100,000 characters per string, so a
 * hostile schema yields a possibly invalid value rather than a hung or crashed process.
 */
export function minimalValue(schema: unknown, text = ''): unknown {
  return generate(schema as JsonSchema, { text, root: schema as JsonSchema, budget: WORK_BUDGET }, 0);
}

function generate(input: JsonSchema, ctx: Context, depth: number): unknown {
  if (depth > MAX_DEPTH || --ctx.budget < 0) return null;
  if (input === true) return {};
  if (input === false || input === null || typeof input !== 'object' || Array.isArray(input)) return null;
  const schema = flatten(input, ctx, depth);

  if ('const' in schema) return schema.const;
  if (Array.isArray(schema.enum) && schema.enum.length > 0) return schema.enum[0];

  switch (typeOf(schema)) {
    case 'null':
      return null;
    case 'boolean':
      return false;
    case 'integer':
      return numberFor(schema, true);
    case 'number':
      return numberFor(schema, false);
    case 'string':
      return stringFor(schema, ctx.text);
    case 'array':
      return arrayFor(schema, ctx, depth);
    default:
      return objectFor(schema, ctx, depth);
  }
}

/** The schema with `$ref`, `allOf` and the first `anyOf`/`oneOf` branch merged into it. */
function flatten(schema: Record<string, unknown>, ctx: Context, depth: number): Record<string, unknown> {
  if (depth > MAX_DEPTH || --ctx.budget < 0) return schema;
  let out: Record<string, unknown> = { ...schema };
  if (typeof out.$ref === 'string') {
    const target = resolveRef(out.$ref, ctx.root);
    delete out.$ref;
    if (target) out = merge(flatten(target, ctx, depth + 1), out);
  }
  if (Array.isArray(out.allOf)) {
    const parts = out.allOf.filter(isSchemaObject);
    delete out.allOf;
    for (const part of parts) out = merge(out, flatten(part, ctx, depth + 1));
  }
  for (const key of ['anyOf', 'oneOf'] as const) {
    if (Array.isArray(out[key])) {
      const branches = (out[key] as unknown[]).filter(isSchemaObject);
      delete out[key];
      // The first branch that is not just null (a nullable field gets a value), else the first.
      let chosen: Record<string, unknown> | undefined;
      for (const branch of branches) {
        const flat = flatten(branch, ctx, depth + 1);
        chosen ??= flat;
        if (!isNullOnly(flat)) {
          chosen = flat;
          break;
        }
      }
      if (chosen) out = merge(out, chosen);
    }
  }
  return out;
}

function isSchemaObject(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

function isNullOnly(schema: Record<string, unknown>): boolean {
  return schema.type === 'null' || (Array.isArray(schema.type) && schema.type.every((t) => t === 'null')) || schema.const === null;
}

function merge(a: Record<string, unknown>, b: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = { ...a, ...b };
  if (isSchemaObject(a.properties) && isSchemaObject(b.properties)) out.properties = { ...a.properties, ...b.properties };
  if (Array.isArray(a.required) && Array.isArray(b.required)) out.required = [...new Set([...a.required, ...b.required])];
  if (a.type !== undefined && b.type !== undefined) {
    // Keep a type both allow, when there is one.
    const ta = Array.isArray(a.type) ? a.type : [a.type];
    const tb = Array.isArray(b.type) ? b.type : [b.type];
    const common = ta.filter((t) => tb.includes(t));
    if ((ta.includes('integer') && tb.includes('number')) || (ta.includes('number') && tb.includes('integer'))) {
      if (!common.includes('integer')) common.push('integer');
    }
    if (common.length > 0) out.type = common.length === 1 ? common[0] : common;
  }
  return out;
}

function resolveRef(ref: string, root: JsonSchema): Record<string, unknown> | undefined {
  if (!ref.startsWith('#')) return undefined;
  let node: unknown = root;
  const pointer = decodeURIComponent(ref.slice(1));
  if (pointer === '') return isSchemaObject(node) ? node : undefined;
  for (const raw of pointer.split('/').slice(1)) {
    const key = raw.replace(/~1/g, '/').replace(/~0/g, '~');
    if (node === null || typeof node !== 'object') return undefined;
    node = (node as Record<string, unknown>)[key];
  }
  return isSchemaObject(node) ? node : undefined;
}

function typeOf(schema: Record<string, unknown>): string {
  const type = schema.type;
  if (typeof type === 'string') return type;
  if (Array.isArray(type) && type.length > 0) return (type.find((t) => t !== 'null') ?? type[0]) as string;
  const has = (...keys: string[]) => keys.some((k) => k in schema);
  if (has('properties', 'required', 'additionalProperties', 'minProperties', 'maxProperties', 'dependentRequired', 'patternProperties'))
    return 'object';
  if (has('items', 'prefixItems', 'minItems', 'maxItems', 'contains')) return 'array';
  if (has('minLength', 'maxLength', 'pattern', 'format')) return 'string';
  if (has('minimum', 'maximum', 'exclusiveMinimum', 'exclusiveMaximum', 'multipleOf')) return 'number';
  return 'object';
}

function num(value: unknown): number | undefined {
  return typeof value === 'number' && Number.isFinite(value) ? value : undefined;
}

function numberFor(schema: Record<string, unknown>, integer: boolean): number {
  const min = num(schema.minimum);
  const max = num(schema.maximum);
  const exMin = num(schema.exclusiveMinimum);
  const exMax = num(schema.exclusiveMaximum);
  const step = num(schema.multipleOf);
  let v = 0;
  if (min !== undefined && v < min) v = integer ? Math.ceil(min) : min;
  if (exMin !== undefined && v <= exMin) {
    const upper = exMax ?? max;
    v = integer ? Math.floor(exMin) + 1 : upper !== undefined && upper - exMin <= 1 ? (exMin + upper) / 2 : exMin + 1;
  }
  if (max !== undefined && v > max) v = integer ? Math.floor(max) : max;
  if (exMax !== undefined && v >= exMax) {
    const lower = exMin ?? min;
    v = integer ? Math.ceil(exMax) - 1 : lower !== undefined && exMax - lower <= 1 ? (exMax + lower) / 2 : exMax - 1;
  }
  if (step !== undefined && step > 0 && !isMultiple(v, step)) {
    const up = Math.ceil(v / step) * step;
    const down = Math.floor(v / step) * step;
    const fits = (x: number) =>
      (min === undefined || x >= min) && (max === undefined || x <= max) && (exMin === undefined || x > exMin) && (exMax === undefined || x < exMax);
    v = fits(up) ? up : fits(down) ? down : up;
  }
  return Object.is(v, -0) ? 0 : v;
}

function isMultiple(v: number, step: number): boolean {
  const q = v / step;
  return Math.abs(q - Math.round(q)) < 1e-9;
}

function stringFor(schema: Record<string, unknown>, text: string): string {
  const format = typeof schema.format === 'string' ? FORMAT_EXAMPLES[schema.format] : undefined;
  let s = format ?? text;
  const maxLength = num(schema.maxLength);
  const minLength = num(schema.minLength);
  // JSON Schema lengths count code points.
  if (maxLength !== undefined && [...s].length > maxLength) s = [...s].slice(0, Math.max(0, maxLength)).join('');
  if (minLength !== undefined && [...s].length < minLength) s += 'x'.repeat(Math.min(MAX_STRING, minLength) - [...s].length);
  if (typeof schema.pattern === 'string') {
    // The text is kept when it is short enough to test and matches; else "" when that matches;
    // else the text as it is (best effort).
    try {
      const re = new RegExp(schema.pattern, 'u');
      const fits = s.length <= MAX_PATTERN_INPUT && re.test(s);
      if (!fits && re.test('')) s = '';
    } catch {
      // An invalid pattern: leave the string as it is.
    }
  }
  return s;
}

function arrayFor(schema: Record<string, unknown>, ctx: Context, depth: number): unknown[] {
  const prefix = Array.isArray(schema.prefixItems) ? (schema.prefixItems as JsonSchema[]) : [];
  const items = schema.items as JsonSchema | undefined;
  const contains = schema.contains as JsonSchema | undefined;
  const minContains = contains === undefined ? 0 : (num(schema.minContains) ?? 1);
  const count = Math.min(MAX_ITEMS, Math.max(num(schema.minItems) ?? 0, minContains));
  const out: unknown[] = [];
  for (let i = 0; i < count; i++) {
    const itemSchema = i < minContains ? contains! : (prefix[i] ?? items ?? true);
    out.push(generate(itemSchema, ctx, depth + 1));
  }
  return out;
}

function objectFor(schema: Record<string, unknown>, ctx: Context, depth: number): Record<string, unknown> {
  const properties = isSchemaObject(schema.properties) ? (schema.properties as Record<string, JsonSchema>) : {};
  const extra = schema.additionalProperties;
  const required = Array.isArray(schema.required) ? schema.required.filter((r): r is string => typeof r === 'string') : [];
  const dependent = isSchemaObject(schema.dependentRequired) ? (schema.dependentRequired as Record<string, unknown>) : {};
  const names: string[] = [...required];
  const minProperties = num(schema.minProperties) ?? 0;
  for (const name of Object.keys(properties)) {
    if (names.length >= minProperties) break;
    if (!names.includes(name)) names.push(name);
  }
  for (let i = 0; i < names.length; i++) {
    const deps = dependent[names[i]!];
    if (Array.isArray(deps)) for (const d of deps) if (typeof d === 'string' && !names.includes(d)) names.push(d);
  }
  const out: Record<string, unknown> = {};
  for (const name of names) {
    const propertySchema = Object.hasOwn(properties, name) ? properties[name]! : isSchemaObject(extra) ? extra : true;
    // defineProperty: a property named "__proto__" must become an own property.
    Object.defineProperty(out, name, { value: generate(propertySchema, ctx, depth + 1), enumerable: true, writable: true, configurable: true });
  }
  return out;
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
 * The streamed answer. The answer is computed at once (so it equals `echoCompletion`'s); the
 * iterator then yields its chunks, throwing an UpstreamError of kind `aborted` once the signal
 * is aborted.
 */
export function echoStream(request: UpstreamChatRequest, options: EchoStreamOptions = {}): AsyncIterable<UpstreamChunk> {
  const chunks = chunksFromCompletion(echoCompletion(request), request.stream_options?.include_usage === true);
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
