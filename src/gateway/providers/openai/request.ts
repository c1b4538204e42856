// Our request → the provider's JSON body, through its compiled profile. Only known fields are
// copied, so nothing the gateway did not mean to send (our own fields, unknown client fields)
// can reach a provider.
import { isRetrievedKnowledge, type ChatMessage, type EmbeddingInput, type UpstreamChatRequest } from '../types.js';
import type { CompiledProfile } from './parameters.js';
import { prefillOf } from './prefill.js';
import { anthropicPartText, isAnthropicPart } from '../parts.js';

const STREAM_OPTIONS = Object.freeze({ include_usage: true });

export function buildChatBody(profile: CompiledProfile, model: string, request: UpstreamChatRequest, stream: boolean): string {
  const messages = wireMessages(withToolAttachmentsAfter(withKnowledgeInQuestion(request.messages)), profile);
  if (profile.prefill === 'prefix' && prefillOf(request) !== undefined) messages[messages.length - 1]!.prefix = true;
  const body: Record<string, unknown> = { model, messages };
  const fields = profile.fields;
  for (let i = 0; i < fields.length; i++) {
    const f = fields[i]!;
    const value: unknown = request[f.from];
    // null means "the provider's default" in OpenAI's API, the same as leaving it out.
    if (value === undefined || value === null) continue;
    body[f.to] = f.transform ? f.transform(value) : value;
  }
  if (request.tools !== undefined && request.tools.some((tool) => tool.cache_control !== undefined) && Array.isArray(body.tools)) {
    body.tools = request.tools.map(({ cache_control: _mark, ...tool }) => tool);
  }
  if (stream) {
    body.stream = true;
    if (profile.streamOptions) body.stream_options = STREAM_OPTIONS;
  }
  return JSON.stringify(body);
}

/**
 * The retrieval's knowledge (chat.ts puts it after the caller's leading system messages) goes at the
 * start of the question it answers, the last user message, as the Anthropic adapter puts it: it
 * changes with every question, and where it stood it ended the prefix a provider's prompt cache
 * keeps from one turn to the next (OpenAI's and Mistral's cache by prefix) before the whole
 * conversation. Not as a system message there: Mistral refuses one after the conversation began.
 */
function withKnowledgeInQuestion(messages: readonly ChatMessage[]): readonly ChatMessage[] {
  const at = messages.findIndex(isRetrievedKnowledge);
  const question = messages.findLastIndex((message) => message.role === 'user');
  if (at < 0 || question < at) return messages;
  const knowledge = messages[at]!.content;
  if (typeof knowledge !== 'string') return messages;
  const asked = messages[question]!;
  const content: ChatMessage['content'] =
    typeof asked.content === 'string'
      ? `${knowledge}\n\n${asked.content}`
      : [{ type: 'text', text: knowledge }, ...(asked.content ?? [])];
  return messages.flatMap((message, i) => (i === at ? [] : i === question ? [{ ...asked, content }] : [message]));
}

// What a tool message of OpenAI's API cannot hold: it takes text only.
const ATTACHMENT_TYPES: ReadonlySet<string> = new Set(['image_url', 'file', 'input_audio']);

/**
 * Tool results that hold images or files (the Messages door's tool_result with an image, Claude
 * Code's Read of a PNG) keep their text; the attachments follow the run of tool results in a user
 * message, joined to the user message that comes next if one does.
 */
function withToolAttachmentsAfter(messages: readonly ChatMessage[]): readonly ChatMessage[] {
  const holdsAttachment = (m: ChatMessage) => m.role === 'tool' && Array.isArray(m.content) && m.content.some((part) => ATTACHMENT_TYPES.has(part.type));
  if (!messages.some(holdsAttachment)) return messages;
  const out: ChatMessage[] = [];
  let attachments: ContentPart[] = [];
  const flush = (next: ChatMessage | undefined): boolean => {
    if (attachments.length === 0) return false;
    const joined = next?.role === 'user';
    const rest = !joined ? [] : typeof next.content === 'string' ? [{ type: 'text' as const, text: next.content }] : (next.content ?? []);
    out.push({ ...(joined ? next : {}), role: 'user', content: [...attachments, ...rest] });
    attachments = [];
    return joined;
  };
  for (const message of messages) {
    if (message.role === 'tool') {
      if (!holdsAttachment(message)) {
        out.push(message);
        continue;
      }
      const parts = message.content as ContentPart[];
      attachments.push(...parts.filter((part) => ATTACHMENT_TYPES.has(part.type)));
      const kept = parts.filter((part) => !ATTACHMENT_TYPES.has(part.type));
      const plain = kept.every((part) => part.type === 'text' && part.cache_control === undefined);
      out.push({ ...message, content: plain ? kept.map((part) => part.text).join('\n') : kept });
      continue;
    }
    if (!flush(message)) out.push(message);
  }
  flush(undefined);
  return out;
}

function wireMessages(messages: readonly ChatMessage[], profile: CompiledProfile): Record<string, unknown>[] {
  const out = new Array<Record<string, unknown>>(messages.length);
  for (let i = 0; i < messages.length; i++) {
    const m = messages[i]!;
    const w: Record<string, unknown> = { role: m.role === 'developer' ? profile.developerRole : m.role };
    if (m.content !== undefined) w.content = Array.isArray(m.content) ? wireContent(m.role, m.content) : m.content;
    if (m.role === 'tool') {
      // A failed tool's result: OpenAI's API has no flag for it, so the model reads it in the text.
      if (m.is_error === true) w.content = failedToolContent(w.content);
      if (m.tool_call_id !== undefined) w.tool_call_id = m.tool_call_id;
      if (m.name !== undefined) w.name = m.name;
    } else if (m.name !== undefined && profile.messageNames) {
      w.name = m.name;
    }
    if (m.role === 'assistant' && m.tool_calls !== undefined && m.tool_calls.length > 0) {
      // OpenAI requires `type` on each call; our clients may leave it out.
      w.tool_calls = m.tool_calls.map((c) => ({
        id: c.id,
        type: 'function',
        function: { name: c.function.name, arguments: c.function.arguments },
      }));
    }
    out[i] = w;
  }
  return out;
}

type ContentPart = Exclude<ChatMessage['content'], string | null | undefined>[number];

const FAILED_TOOL = 'Error: ';

function failedToolContent(content: unknown): unknown {
  if (typeof content === 'string' || content === undefined || content === null) return FAILED_TOOL + (content ?? '');
  if (!Array.isArray(content)) return content;
  const first = content[0] as { type?: string; text?: string } | undefined;
  if (first?.type === 'text') return [{ ...first, text: FAILED_TOOL + (first.text ?? '') }, ...content.slice(1)];
  return [{ type: 'text', text: FAILED_TOOL.trimEnd() }, ...content];
}

// Prompt-cache marks, documents and search results are Anthropic's: OpenAI-compatible APIs cache
// without marks, and some (Mistral) refuse a field or part they do not know, so the marks go, a
// PDF loses its Anthropic settings, and the documents and search results become their text. Text
// that was split only to carry a mark or beside a document (the Messages door's system blocks and
// tool results) goes as one string.
function wireContent(role: ChatMessage['role'], parts: ContentPart[]): string | ContentPart[] {
  if (!parts.some((part) => part.cache_control !== undefined || isAnthropicPart(part) || hasAnthropicFileSettings(part))) return parts;
  const plain = parts.map(({ cache_control: _mark, ...part }): ContentPart => {
    if (hasAnthropicFileSettings(part)) {
      const { context: _context, citations: _citations, ...file } = part.file!;
      return { ...part, file };
    }
    const text = anthropicPartText(part);
    return text === undefined ? part : { type: 'text', text };
  });
  if (role !== 'user' && plain.every((part) => part.type === 'text')) return plain.map((part) => part.text).join(role === 'assistant' ? '' : '\n');
  return plain;
}

function hasAnthropicFileSettings(part: ContentPart): boolean {
  return part.type === 'file' && part.file !== undefined && (part.file.context !== undefined || part.file.citations !== undefined);
}

export function buildEmbeddingBody(profile: CompiledProfile, model: string, request: EmbeddingInput): string {
  const body: Record<string, unknown> = { model, input: request.input, encoding_format: 'float' };
  if (request.dimensions !== undefined) body[profile.embeddings.dimensions] = request.dimensions;
  if (request.user !== undefined && profile.embeddings.user) body.user = request.user;
  return JSON.stringify(body);
}
