import { validationFailed, noFieldErrors, type FieldErrors } from '../errors.js';
import { jsonTextDeeperThan, MAX_JSON_DEPTH } from '../jsonDepth.js';
import type { ChatCompletionRequest } from '../generated/openapi.js';
import { ALL_PARAMETERS, type UpstreamChatRequest, type UpstreamParameter } from './providers/types.js';

// The rules of a chat body that a JSON Schema cannot say, and the body as it goes upstream.

export const MAX_ATTACHMENT_BYTES = 10 * 1024 * 1024;

// A URL's scheme is case-insensitive (RFC 3986): `DATA:` is a data URL, held to its rules.
const DATA_URL_SCHEME = /^data:/i;
export const isDataUrl = (url: string): boolean => DATA_URL_SCHEME.test(url);

// What a provider can fetch or read: a URL of another scheme (http:, ftp:, file:) it refuses or, worse, tries.
export const IMAGE_URL_SCHEME = /^(?:https|data):/i;

// The image formats every vision provider reads (OpenAI, Mistral and Anthropic name the same four):
// a data: URL of another type (text/html, application/octet-stream, none) failed at the provider,
// as its error rather than ours.
const IMAGE_DATA_URL = /^data:image\/(?:png|jpeg|jpg|gif|webp)[;,]/i;

/** Bytes once decoded: base64 carries 3 bytes per 4 characters. */
function decodedSize(data: string): number {
  const comma = isDataUrl(data) ? data.indexOf(',') : -1;
  const payload = comma === -1 ? data : data.slice(comma + 1);
  const padding = payload.endsWith('==') ? 2 : payload.endsWith('=') ? 1 : 0;
  return Math.floor((payload.length * 3) / 4) - padding;
}

// Base64 (standard or URL-safe, lines wrapped or not). One character class and no other repetition
// that could take the same characters: linear, as it must be on 13 MB of caller input.
const BASE64 = /^[A-Za-z0-9+/\-_\r\n]*={0,2}$/;

/** Whether an attachment's data is base64: a data URL that says it is, or bare data (audio, a file). */
function base64Readable(data: string): boolean {
  if (!isDataUrl(data)) return BASE64.test(data);
  const comma = data.indexOf(',');
  // A data URL that does not say base64 carries its data as it is.
  return comma === -1 || !data.slice(0, comma).toLowerCase().endsWith(';base64') || BASE64.test(data.slice(comma + 1));
}

function attachmentData(part: Record<string, unknown>): string | undefined {
  const imageUrl = (part.image_url as { url?: unknown } | undefined)?.url;
  if (typeof imageUrl === 'string' && isDataUrl(imageUrl)) return imageUrl;
  const audio = (part.input_audio as { data?: unknown } | undefined)?.data;
  if (typeof audio === 'string') return audio;
  const file = (part.file as { file_data?: unknown } | undefined)?.file_data;
  if (typeof file === 'string') return file;
  return undefined;
}

/** What a body naming neither `model` nor `models` is told, on `model`. */
export const NO_MODEL = 'is required (or models, a chain of models)';

/** `fieldOf` names the caller's field a chat field came from, for a door's caller (ChatContext.fieldOf). */
export function checkChatRules(body: ChatCompletionRequest, fieldOf: (chatField: string) => string = (field) => field): void {
  const errors: FieldErrors = noFieldErrors();
  const add = (field: string, message: string) => (errors[fieldOf(field)] ??= []).push(message);
  if (body.model !== undefined && body.models !== undefined) add('model', 'send either model or models, not both');
  if (body.model === undefined && body.models === undefined) add('model', NO_MODEL);
  // A call that must be made, with nothing to call (OpenAI answers 400 too). `auto` and `none`
  // without tools are harmless and some clients send them always.
  if (body.tool_choice === 'required' && !(body.tools && body.tools.length > 0)) add('tool_choice', '"required" needs tools');
  // A named tool must be one of those given: a provider would be asked to call one it was never shown.
  const named = typeof body.tool_choice === 'object' && body.tool_choice !== null ? body.tool_choice.function.name : undefined;
  if (named !== undefined && !(body.tools ?? []).some((tool) => tool.function.name === named)) {
    add('tool_choice', `names "${named}", which is not one of tools`);
  }
  for (const [t, first] of repeatedNames((body.tools ?? []).map((tool) => tool.function.name))) {
    add(`tools.${t}.function.name`, repeatsToolName(first));
  }
  if (body.top_logprobs != null && body.logprobs !== true) add('top_logprobs', 'needs logprobs: true');
  checkToolTurns(body.messages, add);
  body.messages.forEach((message, m) => {
    (message as { tool_calls?: { function?: { arguments?: unknown } }[] }).tool_calls?.forEach((call, c) => {
      const args = call.function?.arguments;
      if (typeof args === 'string' && jsonTextDeeperThan(args)) {
        add(`messages.${m}.tool_calls.${c}.function.arguments`, `nests deeper than ${MAX_JSON_DEPTH} levels`);
      }
    });
    if (!Array.isArray(message.content)) return;
    // An assistant turn may have said nothing (a door's history can hold one); a question cannot.
    if (message.content.length === 0 && message.role !== 'assistant') {
      add(`messages.${m}.content`, 'holds no parts: send a string or at least one part');
    }
    message.content.forEach((part, p) => {
      const record = part as unknown as Record<string, unknown>;
      if (part.type === 'refusal') {
        if (message.role !== 'assistant') add(`messages.${m}.content.${p}.type`, 'a refusal part belongs to an assistant message');
        else if (typeof part.refusal !== 'string') add(`messages.${m}.content.${p}.refusal`, 'is required for a refusal part');
      }
      if ((record.file as { file_id?: unknown } | undefined)?.file_id !== undefined) {
        add(`messages.${m}.content.${p}`, 'file_id is not supported (there is no files API); send file_data instead');
      }
      const imageUrl = (record.image_url as { url?: unknown } | undefined)?.url;
      if (typeof imageUrl === 'string' && !IMAGE_URL_SCHEME.test(imageUrl)) {
        add(`messages.${m}.content.${p}.image_url.url`, 'must be an https or a data: URL (a provider cannot fetch any other)');
      } else if (typeof imageUrl === 'string' && isDataUrl(imageUrl) && !IMAGE_DATA_URL.test(imageUrl)) {
        add(`messages.${m}.content.${p}.image_url.url`, 'a data: URL image must be image/png, image/jpeg, image/gif or image/webp');
      }
      const data = attachmentData(record);
      if (data !== undefined && decodedSize(data) > MAX_ATTACHMENT_BYTES) {
        add(`messages.${m}.content.${p}`, `an attachment may hold at most ${MAX_ATTACHMENT_BYTES} bytes once decoded`);
      } else if (data !== undefined && !base64Readable(data)) {
        add(`messages.${m}.content.${p}`, 'the attachment is not valid base64');
      }
    });
  });
  if (Object.keys(errors).length > 0) throw validationFailed(errors);
}

/**
 * Each name that an earlier one repeats, as [its index, the earlier one's index]. Providers refuse
 * tools of one name (the model could not tell which it calls), after the firewall and routing ran.
 */
export function repeatedNames(names: readonly string[]): [index: number, first: number][] {
  const firsts = new Map<string, number>();
  return names.flatMap((name, index) => {
    const first = firsts.get(name);
    if (first === undefined) firsts.set(name, index);
    return first === undefined ? [] : [[index, first] as [number, number]];
  });
}

export const repeatsToolName = (first: number): string => `repeats the name of tool ${first}: tool names must be unique`;

/**
 * The first image of the messages, as its field (`messages.2.content.1`), or undefined: routing
 * passes over the models that cannot read one (their `vision` capability).
 */
export function firstImageField(messages: ChatCompletionRequest['messages']): string | undefined {
  for (const [m, message] of messages.entries()) {
    if (!Array.isArray(message.content)) continue;
    const p = (message.content as { type?: string }[]).findIndex((part) => part.type === 'image_url');
    if (p >= 0) return `messages.${m}.content.${p}`;
  }
  return undefined;
}

/**
 * Each tool call answered by a tool message right after its assistant message, and each tool message
 * answering such a call. OpenAI answers 400 for either, as every provider that takes tools does: sent
 * on, the request would fail upstream, after the firewall, retrieval and routing ran.
 */
function checkToolTurns(messages: ChatCompletionRequest['messages'], add: (field: string, message: string) => void): void {
  // The calls of the last assistant message, by id, with the field each came from; and those answered.
  let open = new Map<string, string>();
  const answered = new Set<string>();
  const refuseUnanswered = () => {
    for (const [id, field] of open) if (!answered.has(id)) add(field, `has no tool message answering it: a tool message with tool_call_id ${JSON.stringify(id)} must follow its assistant message`);
  };
  messages.forEach((message, m) => {
    // An instruction between a turn's calls and their results (a coding agent's reminder, placed
    // by the Messages door where it was sent) leaves the calls open.
    if (message.role === 'system' || message.role === 'developer') return;
    if (message.role === 'tool') {
      const id = (message as { tool_call_id?: unknown }).tool_call_id;
      if (typeof id !== 'string') return;
      if (!open.has(id)) add(`messages.${m}.tool_call_id`, `answers no tool call: the assistant message before it makes none with id ${JSON.stringify(id)}`);
      else if (answered.has(id)) add(`messages.${m}.tool_call_id`, `answers tool call ${JSON.stringify(id)} a second time`);
      answered.add(id);
      return;
    }
    refuseUnanswered();
    open = new Map();
    answered.clear();
    (message as { tool_calls?: { id?: unknown }[] }).tool_calls?.forEach((call, c) => {
      if (typeof call.id !== 'string') return;
      // Two calls of one turn under one id: their results could not be told apart (every provider refuses them).
      if (open.has(call.id)) add(`messages.${m}.tool_calls.${c}.id`, `repeats the id ${JSON.stringify(call.id)} of another call of this message: each call has its own`);
      else open.set(call.id, `messages.${m}.tool_calls.${c}.id`);
    });
  });
  refuseUnanswered();
}

// The OpenAI parameters passed upstream; everything else in the body is ours or unknown. The
// end-user id is ours to keep: it scopes memory and never goes to a chat provider.
const UPSTREAM_PARAMETERS = ALL_PARAMETERS.filter((parameter) => parameter !== 'user');

/**
 * The request as providers receive it: only known OpenAI fields, never our own (firewall,
 * collection, thread, tags, name, cache, provider) and never the end-user id, which is ours to
 * keep. A null `reasoning_effort` means "model default", so it is not sent.
 */
export function upstreamRequestOf(body: ChatCompletionRequest): { request: UpstreamChatRequest; parameters: UpstreamParameter[] } {
  const request: UpstreamChatRequest = { messages: body.messages };
  const parameters: UpstreamParameter[] = [];
  const source = body as Record<string, unknown>;
  // Both caps sent: max_completion_tokens, the one OpenAI keeps, is the cap, whichever name a
  // provider takes it under (each profile renames one to the other).
  const bothCaps = source.max_completion_tokens != null && source.max_tokens != null;
  for (const parameter of UPSTREAM_PARAMETERS) {
    const value = source[parameter];
    if (value === undefined || value === null || (bothCaps && parameter === 'max_tokens')) continue;
    (request as unknown as Record<string, unknown>)[parameter] = value;
    parameters.push(parameter);
  }
  return { request, parameters };
}

/** The request for one candidate: the parameters it does not take removed. */
export function withoutParameters(request: UpstreamChatRequest, dropped: readonly UpstreamParameter[]): UpstreamChatRequest {
  if (dropped.length === 0) return request;
  const copy: Record<string, unknown> = { ...request };
  for (const parameter of dropped) delete copy[parameter];
  // Anthropic's own settings ask for the same reasoning in its terms: a model that takes no such
  // level takes neither.
  if (dropped.includes('reasoning_effort')) {
    delete copy.thinking;
    delete copy.output_config;
  }
  return copy as unknown as UpstreamChatRequest;
}
