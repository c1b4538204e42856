import { isBlank } from '../../blank.js';
import { validationFailed, noFieldErrors, type FieldErrors } from '../../errors.js';
import type { ChatCompletionRequest, components, MessagesCountTokensRequest, MessagesRequest } from '../../generated/openapi.js';
import type { Catalog } from '../../gateway/catalog.js';
import { anthropicPartText, citationsOf, documentSettingsOf } from '../../gateway/providers/parts.js';
import type { AnthropicSettings, ChatMessage } from '../../gateway/providers/types.js';
import { capWithinContext } from '../../gateway/answerRoom.js';
import { MessageOrigins, type MessageOrigin } from '../fieldOrigins.js';
import { repeatedNames, repeatsToolName } from '../../gateway/chatRequest.js';

// Messages request → chat request. Everything the chat service does (routing, firewall, memory,
// cache, limits, metering) then applies unchanged; this file only moves fields. docs/messages-door.md
// lists every field and what it becomes.

type Schemas = components['schemas'];
type Block = Schemas['MessagesContentBlock'];
type Source = Schemas['MessagesSource'];
type Refuse = (field: string, message: string) => void;
type ContentPart = Exclude<ChatMessage['content'], string | null | undefined>[number];
type ChatTool = Schemas['ChatTool'];
type ChatToolChoice = Schemas['ChatToolChoice'];

export interface TranslatedRequest {
  chat: ChatCompletionRequest;
  /** What the door left out or changed, for the trace. */
  notes: string[];
  /** The caller's thinking settings as given, for a native Anthropic provider. */
  anthropic?: AnthropicSettings;
  /** The field of the Messages request a field of `chat` came from (ChatContext.fieldOf). */
  fieldOf: (chatField: string) => string;
}

/** Polder's own fields, accepted on the door as on chat and passed as they are. */
const POLDER_FIELDS = ['models', 'provider', 'firewall', 'firewall_language', 'collection', 'thread', 'tags', 'name', 'cache'] as const;

// Anthropic's thinking budget as a reasoning level, for providers that take `reasoning_effort`
// rather than a budget (OpenAI's own guidance puts "low" around a few thousand tokens). A native
// Anthropic provider gets the budget itself.
const LOW_BUDGET_BELOW = 4096;
const MEDIUM_BUDGET_BELOW = 16384;

type CacheMark = Schemas['CacheControl'];

/** `{cache_control}` when the block carries one, to spread into what it becomes. */
function markOf(block: { cache_control?: CacheMark }): { cache_control?: CacheMark } {
  return block.cache_control !== undefined ? { cache_control: block.cache_control } : {};
}

/** Text blocks as one chat content: a string, or text parts when a block carries a cache mark. */
function textContent(blocks: readonly { text?: string; cache_control?: CacheMark }[], separator: string): string | ContentPart[] {
  if (blocks.some((block) => block.cache_control !== undefined)) return blocks.map((block) => ({ type: 'text', text: block.text ?? '', ...markOf(block) }));
  return blocks.map((block) => block.text ?? '').join(separator);
}

function dataUrl(source: Source): string {
  return `data:${source.media_type ?? 'application/octet-stream'};base64,${source.data ?? ''}`;
}

interface SourceBlock {
  type: string;
  source?: Source | string;
  title?: string | null;
  context?: string | null;
  citations?: unknown;
}

/** An image or document block as a chat content part, or a field error. */
function sourcePart(block: SourceBlock, at: string, add: Refuse): ContentPart | undefined {
  // The schema holds an object here; a string is a search result's source.
  const source: Partial<Source> = typeof block.source === 'object' ? block.source : {};
  if (block.type === 'image') {
    if (source.type === 'base64' && source.data !== undefined) return { type: 'image_url', image_url: { url: dataUrl(source as Source) } };
    if (source.type === 'url' && source.url !== undefined) return { type: 'image_url', image_url: { url: source.url } };
    add(`${at}.source`, 'an image source is {type: "base64", media_type, data} or {type: "url", url}');
    return undefined;
  }
  if (source.type === 'text' && source.data !== undefined) {
    return {
      type: 'document',
      document: { source: { type: 'text', media_type: 'text/plain', data: source.data }, ...documentSettingsOf(block) },
    };
  }
  if (source.type === 'base64' && source.data !== undefined) {
    return {
      type: 'file',
      file: {
        file_data: dataUrl(source as Source),
        ...(block.title ? { filename: block.title } : {}),
        ...documentSettingsOf({ context: block.context, citations: block.citations }),
      },
    };
  }
  add(`${at}.source`, 'a document source is {type: "base64", media_type, data} or {type: "text", data}; URLs are not fetched');
  return undefined;
}

/** A search_result block as a chat content part; the schema holds that it has what it needs. */
function searchResultPart(block: { source?: Source | string; title?: string | null; content?: unknown; citations?: unknown }): ContentPart {
  const content = Array.isArray(block.content) ? (block.content as { text?: string }[]) : [];
  return {
    type: 'search_result',
    search_result: {
      source: typeof block.source === 'string' ? block.source : '',
      title: block.title ?? '',
      content: content.map((text) => ({ type: 'text', text: text.text ?? '' })),
      ...citationsOf(block.citations),
    },
  };
}

/**
 * A tool result's content as the content of a `tool` message: its text, or, when it holds more
 * (documents, search results, images), its parts, each with the field it came from. A native
 * provider gets them in the tool_result as they are (Claude Code's Read of a PNG); the OpenAI
 * adapter sends their text, and the images in a user message after the tool results (a `tool`
 * message there takes text only). Its PDFs go to the user message after it, with the fields they
 * came from. Blocks of a type the door does not know are left out and named for the trace.
 */
function toolResultOf(
  block: Block,
  at: string,
  add: Refuse,
  leftOut: Set<string>,
): { content: string | ContentPart[]; partPaths: string[]; attachments: ContentPart[]; attachmentPaths: string[] } {
  const content = block.content;
  const mark = block.cache_control;
  const none = { partPaths: [], attachments: [], attachmentPaths: [] };
  if (content === undefined) return { content: textContent([{ text: '', cache_control: mark }], ''), ...none };
  if (typeof content === 'string') return { content: textContent([{ text: content, cache_control: mark }], ''), ...none };
  const parts: ContentPart[] = [];
  const partPaths: string[] = [];
  const attachments: ContentPart[] = [];
  const attachmentPaths: string[] = [];
  content.forEach((part, p) => {
    const where = `${at}.content.${p}`;
    const made = ((): ContentPart | undefined => {
      switch (part.type) {
        case 'text':
          return { type: 'text', text: part.text ?? '' };
        case 'image':
        case 'document':
          return sourcePart(part, where, add);
        case 'search_result':
          return searchResultPart(part);
        default:
          leftOut.add(part.type);
          return undefined;
      }
    })();
    if (made?.type === 'file') {
      attachments.push(made);
      attachmentPaths.push(where);
    } else if (made) {
      parts.push(made);
      partPaths.push(where);
    }
  });
  if (parts.every((part) => part.type === 'text')) {
    return { content: textContent([{ text: parts.map((part) => part.text).join('\n'), cache_control: mark }], ''), partPaths: [], attachments, attachmentPaths };
  }
  if (mark !== undefined) parts[parts.length - 1]!.cache_control = mark;
  return { content: parts, partPaths, attachments, attachmentPaths };
}

/**
 * One Messages message as one or more chat messages (tool results become `tool` messages first);
 * with `origins`, each with the fields it came from.
 */
function chatMessagesOf(message: Schemas['MessagesMessage'], m: number, add: Refuse, leftOut: Set<string>, origins?: MessageOrigins): ChatMessage[] {
  const { role, content } = message;
  const at = `messages.${m}`;
  const from = (chat: ChatMessage, origin: Omit<MessageOrigin, 'at' | 'content'> = {}): ChatMessage => {
    origins?.set(chat, { at, content: `${at}.content`, ...origin });
    return chat;
  };
  if (typeof content === 'string') return [from({ role, content })];
  if (role === 'assistant') {
    const texts: Block[] = [];
    const textPaths: string[] | undefined = origins ? [] : undefined;
    const toolCalls: NonNullable<ChatMessage['tool_calls']> = [];
    const callPaths: string[] | undefined = origins ? [] : undefined;
    const thinking: NonNullable<ChatMessage['thinking_blocks']> = [];
    content.forEach((block, b) => {
      if (isBlankText(block)) return;
      if (block.type === 'text') {
        texts.push(block);
        textPaths?.push(`${at}.content.${b}`);
      } else if (block.type === 'tool_use') {
        toolCalls.push({ id: block.id!, type: 'function', function: { name: block.name!, arguments: JSON.stringify(block.input ?? {}) } });
        callPaths?.push(`${at}.content.${b}.input`);
      } else if (block.type === 'thinking' || block.type === 'redacted_thinking') {
        // Passed back as they came: a native Anthropic provider checks their signatures; any other drops them.
        thinking.push({
          type: block.type,
          ...(block.thinking !== undefined ? { thinking: block.thinking } : {}),
          ...(block.signature !== undefined ? { signature: block.signature } : {}),
          ...(block.data !== undefined ? { data: block.data } : {}),
        });
      }
    });
    // A model's text blocks on either side of a tool_use are paragraphs of their own ("I'll look it
    // up." … "Found it."): joined with nothing, their sentences ran together.
    const text = textContent(texts, '\n\n');
    const withThinking = thinking.length > 0 ? { thinking_blocks: thinking } : {};
    const origin = { ...(textPaths ? { parts: textPaths } : {}), ...(callPaths ? { calls: callPaths } : {}) };
    if (toolCalls.length > 0) return [from({ role: 'assistant', content: text === '' || text.length === 0 ? null : text, tool_calls: toolCalls, ...withThinking }, origin)];
    return [from({ role: 'assistant', content: text, ...withThinking }, origin)];
  }
  const tools: ChatMessage[] = [];
  const parts: ContentPart[] = [];
  const partPaths: string[] | undefined = origins ? [] : undefined;
  content.forEach((block, b) => {
    const at = `messages.${m}.content.${b}`;
    switch (block.type) {
      case 'text':
        if (isBlankText(block)) break;
        parts.push({ type: 'text', text: block.text ?? '', ...markOf(block) });
        partPaths?.push(at);
        break;
      case 'image':
      case 'document': {
        const part = sourcePart(block, at, add);
        if (part) {
          parts.push({ ...part, ...markOf(block) });
          partPaths?.push(at);
        }
        break;
      }
      case 'search_result':
        parts.push({ ...searchResultPart(block), ...markOf(block) });
        partPaths?.push(at);
        break;
      case 'tool_result': {
        const { content: result, partPaths: resultPaths, attachments, attachmentPaths } = toolResultOf(block, at, add, leftOut);
        // A failed tool: a native provider gets is_error back, any other reads "Error: " (the adapters).
        const tool: ChatMessage = { role: 'tool', tool_call_id: block.tool_use_id!, content: result, ...(block.is_error === true ? { is_error: true } : {}) };
        origins?.set(tool, { at, content: `${at}.content`, ...(resultPaths.length > 0 ? { parts: resultPaths } : {}) });
        tools.push(tool);
        parts.push(...attachments);
        partPaths?.push(...attachmentPaths);
        break;
      }
      case 'tool_use':
        add(at, `a tool_use block belongs in an assistant message, not a ${role} one`);
        break;
      default:
        break;
    }
  });
  if (role === 'system') {
    const texts = parts.flatMap((part) => {
      if (part.type === 'text') return [part];
      const text = anthropicPartText(part);
      return text === undefined ? [] : [{ type: 'text' as const, text, ...markOf(part) }];
    });
    return [from({ role: 'system', content: textContent(texts, '\n') })];
  }
  return parts.length > 0 ? [...tools, from({ role: 'user', content: parts }, partPaths ? { parts: partPaths } : {})] : tools;
}

// A caller may send any number of block types: the trace names a few.
const NAMED_AT_MOST = 10;

function namesOf(types: ReadonlySet<string>): string {
  const named = [...types].slice(0, NAMED_AT_MOST).join(', ');
  return types.size > NAMED_AT_MOST ? `${named} and ${types.size - NAMED_AT_MOST} more` : named;
}

function systemOf(system: MessagesRequest['system'], origins?: MessageOrigins): ChatMessage[] {
  if (system === undefined) return [];
  const content = typeof system === 'string' ? system : textContent(system, '\n');
  if (content === '' || content.length === 0) return [];
  const message: ChatMessage = { role: 'system', content };
  origins?.set(message, { at: 'system', ...(typeof system === 'string' ? {} : { parts: system.map((_block, i) => `system.${i}`) }) });
  return [message];
}

function toolsOf(tools: MessagesRequest['tools'], notes: string[], add: (field: string, message: string) => void): ChatTool[] | undefined {
  if (!tools || tools.length === 0) return undefined;
  const served: ChatTool[] = [];
  const left: string[] = [];
  tools.forEach((tool, t) => {
    if (tool.type !== undefined && tool.type !== 'custom') {
      left.push(`${tool.name} (${tool.type})`);
      return;
    }
    if (!/^[a-zA-Z0-9_-]{1,64}$/.test(tool.name)) add(`tools.${t}.name`, 'must be 1 to 64 letters, digits, _ or -');
    served.push({
      type: 'function',
      function: {
        name: tool.name,
        ...(tool.description !== undefined ? { description: tool.description } : {}),
        parameters: tool.input_schema ?? { type: 'object', properties: {} },
      },
      ...markOf(tool),
    });
  });
  const clientTools = tools.flatMap((tool, t) => (tool.type === undefined || tool.type === 'custom' ? [{ name: tool.name, t }] : []));
  for (const [i, first] of repeatedNames(clientTools.map((tool) => tool.name))) add(`tools.${clientTools[i]!.t}.name`, repeatsToolName(clientTools[first]!.t));
  if (left.length > 0) notes.push(`server tools the door does not serve were left out: ${left.join(', ')}`);
  return served.length > 0 ? served : undefined;
}

function toolChoiceOf(choice: MessagesRequest['tool_choice']): { tool_choice?: ChatToolChoice; parallel_tool_calls?: boolean } {
  if (!choice) return {};
  const parallel = choice.disable_parallel_tool_use === true ? { parallel_tool_calls: false } : {};
  switch (choice.type) {
    case 'auto':
      return { tool_choice: 'auto', ...parallel };
    case 'any':
      return { tool_choice: 'required', ...parallel };
    case 'none':
      return { tool_choice: 'none' };
    case 'tool':
      return { tool_choice: { type: 'function', function: { name: choice.name! } }, ...parallel };
  }
}

function reasoningEffortOf(body: MessagesRequest): ChatCompletionRequest['reasoning_effort'] | undefined {
  const effort = body.output_config?.effort;
  if (effort !== undefined) return effort === 'max' || effort === 'xhigh' ? 'high' : effort;
  const thinking = body.thinking;
  if (!thinking || thinking.type === 'disabled') return undefined;
  if (thinking.type === 'adaptive' || thinking.budget_tokens === undefined) return 'medium';
  if (thinking.budget_tokens < LOW_BUDGET_BELOW) return 'low';
  return thinking.budget_tokens < MEDIUM_BUDGET_BELOW ? 'medium' : 'high';
}

function isBlankText(block: Block): boolean {
  return block.type === 'text' && isBlank(block.text ?? '');
}

function lastTextOf(blocks: Exclude<Schemas['MessagesMessage']['content'], string>, m: number): { text: string; at: string } | undefined {
  const b = blocks.length - 1;
  const block = blocks[b];
  return block?.type === 'text' && typeof block.text === 'string' ? { text: block.text, at: `messages.${m}.content.${b}.text` } : undefined;
}

/** The chat messages of a Messages request; with `origins`, where each came from. */
function messagesOf(body: MessagesCountTokensRequest, add: Refuse, leftOut = new Set<string>(), origins?: MessageOrigins): ChatMessage[] {
  const last = body.messages.length - 1;
  body.messages.forEach((message, m) => {
    // As Anthropic's API has it: an assistant turn left open for the model to continue may be empty.
    if (message.content.length === 0 && !(m === last && message.role === 'assistant')) {
      add(`messages.${m}.content`, 'must not be empty: only the final assistant message may have empty content');
    }
    // Blank text blocks beside others are left out (a model's "\n\n" before a tool_use, sent back
    // as the door streamed it); a message of nothing else would be sent empty.
    if (typeof message.content !== 'string' && message.content.length > 0 && message.content.every(isBlankText) && !(m === last && message.role === 'assistant')) {
      add(`messages.${m}.content`, 'holds only blank text: Anthropic refuses blank text blocks');
    }
  });
  // The model continues a prefill word by word: Anthropic refuses one that ends in whitespace.
  const prefill = body.messages[last];
  if (prefill?.role === 'assistant') {
    const end = typeof prefill.content === 'string' ? { text: prefill.content, at: `messages.${last}.content` } : lastTextOf(prefill.content, last);
    if (end && /\s$/u.test(end.text) && !isBlank(end.text)) add(end.at, 'the final assistant message (a prefill) must not end with whitespace');
  }
  return [...systemOf(body.system, origins), ...body.messages.flatMap((message, m) => chatMessagesOf(message, m, add, leftOut, origins))];
}

/**
 * The chat request a Messages request stands for; a 422 names the Messages field at fault.
 * `beforeContext` refuses what must be refused before the prompt is measured against the context
 * (the firewall's own bound, a 413, as on the chat API).
 */
export async function chatRequestOf(
  body: MessagesRequest,
  catalog: Catalog,
  beforeContext: (chat: ChatCompletionRequest) => void = () => undefined,
): Promise<TranslatedRequest> {
  const errors: FieldErrors = noFieldErrors();
  const add = (field: string, message: string) => (errors[field] ??= []).push(message);
  const notes = ['via the Messages door (/v1/messages)'];
  const leftOut = new Set<string>();
  const chat: Record<string, unknown> = { messages: messagesOf(body, add, leftOut) };
  if (leftOut.size > 0) notes.push(`tool result blocks of a type the door does not serve were left out: ${namesOf(leftOut)}`);
  if (body.model !== undefined) chat.model = body.model;
  for (const field of POLDER_FIELDS) if (body[field] !== undefined) chat[field] = body[field];
  chat.max_tokens = body.max_tokens;
  if (body.stop_sequences && body.stop_sequences.length > 0) chat.stop = body.stop_sequences;
  if (body.temperature !== undefined) chat.temperature = body.temperature;
  if (body.top_p !== undefined) chat.top_p = body.top_p;
  if (body.top_k !== undefined) chat.top_k = body.top_k;
  if (body.stream) chat.stream = true;
  const tools = toolsOf(body.tools, notes, add);
  if (tools) Object.assign(chat, { tools }, toolChoiceOf(body.tool_choice));
  else refuseToolChoiceWithoutTools(body.tool_choice, add);
  // A blank one names no end-user (as the chat API refuses it as `user`: such an end-user could not be erased).
  if (typeof body.metadata?.user_id === 'string' && !isBlank(body.metadata.user_id)) chat.user = body.metadata.user_id;
  const effort = reasoningEffortOf(body);
  if (effort !== undefined) chat.reasoning_effort = effort;
  const anthropic = anthropicSettingsOf(body);
  if (Object.keys(errors).length > 0) throw validationFailed(errors);

  beforeContext(chat as unknown as ChatCompletionRequest);
  const lowered = await capWithinContext(catalog, chat as unknown as ChatCompletionRequest, body.max_tokens, { cap: 'max_tokens', prompt: 'messages' });
  if (lowered) {
    chat.max_tokens = lowered.cap;
    notes.push(lowered.note);
  }
  // Where each message came from is needed only to name a field in a 422 on the chat request:
  // then the messages are built again, the same, keeping it.
  let fieldOf: ((chatField: string) => string) | undefined;
  return {
    chat: chat as unknown as ChatCompletionRequest,
    notes,
    ...(anthropic ? { anthropic } : {}),
    fieldOf: (field) => (fieldOf ??= fieldsOf(body))(field),
  };
}

/** The Messages field of each field of the chat messages, from the messages built again with their origins. */
export function fieldsOf(body: MessagesCountTokensRequest): (chatField: string) => string {
  const origins = new MessageOrigins();
  // Its refusals were made the first time.
  return origins.fieldOf(messagesOf(body, () => undefined, new Set(), origins));
}

/** `thinking` and `output_config.effort` with only the fields Anthropic defines, or undefined when neither came. */
function anthropicSettingsOf(body: MessagesRequest): AnthropicSettings | undefined {
  const { thinking, output_config: output } = body;
  const settings: AnthropicSettings = {};
  if (thinking) {
    settings.thinking = {
      type: thinking.type,
      ...(thinking.budget_tokens !== undefined ? { budget_tokens: thinking.budget_tokens } : {}),
      ...(thinking.display !== undefined ? { display: thinking.display } : {}),
    };
  }
  if (output?.effort !== undefined) settings.output_config = { effort: output.effort };
  return settings.thinking || settings.output_config ? settings : undefined;
}

/** A tool_choice that names or forces a tool where the request offers none: refused, as Anthropic refuses it. */
function refuseToolChoiceWithoutTools(toolChoice: MessagesCountTokensRequest['tool_choice'], add: Refuse): void {
  if (toolChoice?.type === 'tool') add('tool_choice.name', `names a tool the request does not offer: ${toolChoice.name}`);
  // A tool use forced where none is offered cannot be answered.
  else if (toolChoice?.type === 'any') add('tool_choice.type', '"any" forces a tool use, and the request offers no tools');
}

/** The messages and tools a count_tokens request would send. */
export function countRequestOf(body: MessagesCountTokensRequest): Pick<ChatCompletionRequest, 'messages' | 'tools'> {
  const errors: FieldErrors = noFieldErrors();
  const add = (field: string, message: string) => (errors[field] ??= []).push(message);
  const messages = messagesOf(body, add);
  const tools = toolsOf(body.tools, [], add);
  if (!tools) refuseToolChoiceWithoutTools(body.tool_choice, add);
  if (Object.keys(errors).length > 0) throw validationFailed(errors);
  return { messages, ...(tools ? { tools } : {}) };
}
