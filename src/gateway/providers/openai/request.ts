// Our request → the provider's JSON body, through its compiled profile. Only known fields are
// copied, so nothing the gateway did not mean to send (our own fields, unknown client fields)
// can reach a provider.
import type { ChatMessage, EmbeddingInput, UpstreamChatRequest } from '../types.js';
import type { CompiledProfile } from './parameters.js';

const STREAM_OPTIONS = Object.freeze({ include_usage: true });

export function buildChatBody(profile: CompiledProfile, model: string, request: UpstreamChatRequest, stream: boolean): string {
  const body: Record<string, unknown> = { model, messages: wireMessages(request.messages, profile) };
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

function wireMessages(messages: readonly ChatMessage[], profile: CompiledProfile): Record<string, unknown>[] {
  const out = new Array<Record<string, unknown>>(messages.length);
  for (let i = 0; i < messages.length; i++) {
    const m = messages[i]!;
    const w: Record<string, unknown> = { role: m.role === 'developer' ? profile.developerRole : m.role };
    if (m.content !== undefined) w.content = Array.isArray(m.content) ? withoutCacheMarks(m.role, m.content) : m.content;
    if (m.role === 'tool') {
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

// Prompt-cache marks are Anthropic's: OpenAI-compatible APIs cache without them, and some
// (Mistral) refuse a field they do not know. Text that was split only to carry a mark (the
// Messages door's system blocks and tool results) goes as the one string it was before.
function withoutCacheMarks(role: ChatMessage['role'], parts: ContentPart[]): string | ContentPart[] {
  if (!parts.some((part) => part.cache_control !== undefined)) return parts;
  if (role !== 'user' && parts.every((part) => part.type === 'text')) return parts.map((part) => part.text).join(role === 'assistant' ? '' : '\n');
  return parts.map(({ cache_control: _mark, ...part }) => part);
}

export function buildEmbeddingBody(profile: CompiledProfile, model: string, request: EmbeddingInput): string {
  const body: Record<string, unknown> = { model, input: request.input, encoding_format: 'float' };
  if (request.dimensions !== undefined) body[profile.embeddings.dimensions] = request.dimensions;
  if (request.user !== undefined && profile.embeddings.user) body.user = request.user;
  return JSON.stringify(body);
}
