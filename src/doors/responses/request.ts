import { validationFailed, noFieldErrors, type FieldErrors } from '../../errors.js';
import type { ChatCompletionRequest } from '../../generated/openapi.js';
import { IMAGE_URL_SCHEME, repeatedNames, repeatsToolName } from '../../gateway/chatRequest.js';
import type { ChatMessage, ThinkingBlock } from '../../gateway/providers/types.js';
import { MessageOrigins } from '../fieldOrigins.js';
import { unsealThinking } from './answer.js';
import type { StoredTurn } from './store.js';
import type { ContentPart, InputItem, ResponsesRequest } from './types.js';

// The door's way in: a Responses request (and the stored turns `previous_response_id` leads to)
// becomes one chat request. What the chat service cannot serve is refused here with a 422 naming
// the field; what a client merely sends along (built-in tools it offers, reasoning items, fields
// the door does not use) is left out, and said so on the trace.

type ChatTool = NonNullable<ChatCompletionRequest['tools']>[number];
type ChatContent = Exclude<ChatMessage['content'], null | undefined>;
type ChatPart = Extract<ChatContent, unknown[]>[number];

export interface DoorRequest {
  chat: ChatCompletionRequest;
  /** This turn's input items, as the caller sent them (a string input becomes one user message). */
  input: InputItem[];
  /** What was left out, for the trace. */
  notes: string[];
  /** The field of this request a field of `chat` came from (ChatContext.fieldOf). */
  fieldOf: (chatField: string) => string;
}

class Refusals {
  readonly errors: FieldErrors = noFieldErrors();
  add(field: string, message: string): void {
    (this.errors[field] ??= []).push(message);
  }
  throwAny(): void {
    if (Object.keys(this.errors).length > 0) throw validationFailed(this.errors);
  }
}

/** The items of a string or item input. */
export function inputItemsOf(input: ResponsesRequest['input']): InputItem[] {
  if (input === undefined) return [];
  if (typeof input === 'string') return [{ type: 'message', role: 'user', content: input }];
  return input as InputItem[];
}

export function chatRequestOf(body: ResponsesRequest, chain: readonly StoredTurn[]): DoorRequest {
  const refusals = new Refusals();
  const notes = new Set<string>();
  if (body.background === true) refusals.add('background', 'is not served: the door answers within the request (send false or leave it out)');
  // Dropped, it would answer as if the conversation had no history: an agent would lose its turns unawares.
  if ((body as { conversation?: unknown }).conversation != null) {
    refusals.add('conversation', 'is not served: continue a conversation with previous_response_id, or send its items in input');
  }

  const input = inputItemsOf(body.input);
  const messages = messagesOf(body, chain, input, refusals, notes);
  if (input.length === 0 && chain.length === 0) refusals.add('input', 'is required (a string or at least one item), unless previous_response_id leads to earlier turns');
  else if (messages.length === 0 && Object.keys(refusals.errors).length === 0) refusals.add('input', 'holds nothing to answer: send at least one message, function_call or function_call_output item');

  const { tools, offeredOnly } = toolsOf(body.tools ?? [], refusals);
  for (const type of offeredOnly) notes.add(`tool type ${type} offered and left out: the door serves function tools only`);
  const toolChoice = toolChoiceOf(body.tool_choice, tools.length, offeredOnly, refusals);
  refusals.throwAny();

  const format = body.text?.format;
  const chat: ChatCompletionRequest = {
    messages,
    ...(body.model !== undefined ? { model: body.model } : {}),
    ...(body.models !== undefined ? { models: body.models } : {}),
    ...(body.stream ? { stream: true } : {}),
    ...(body.max_output_tokens != null ? { max_completion_tokens: body.max_output_tokens } : {}),
    ...(body.temperature != null ? { temperature: body.temperature } : {}),
    ...(body.top_p != null ? { top_p: body.top_p } : {}),
    ...(tools.length > 0 ? { tools } : {}),
    ...(toolChoice !== undefined ? { tool_choice: toolChoice } : {}),
    ...(tools.length > 0 && body.parallel_tool_calls != null ? { parallel_tool_calls: body.parallel_tool_calls } : {}),
    ...(body.reasoning?.effort != null ? { reasoning_effort: body.reasoning.effort } : {}),
    ...(format && format.type !== 'text'
      ? {
          response_format:
            format.type === 'json_schema'
              ? {
                  type: 'json_schema',
                  json_schema: {
                    name: format.name!,
                    schema: format.schema!,
                    ...(format.description !== undefined ? { description: format.description } : {}),
                    ...(format.strict != null ? { strict: format.strict } : {}),
                  },
                }
              : { type: 'json_object' },
        }
      : {}),
    ...(body.user !== undefined ? { user: body.user } : {}),
    ...(body.provider !== undefined ? { provider: body.provider } : {}),
    ...(body.firewall !== undefined ? { firewall: body.firewall } : {}),
    ...(body.firewall_language !== undefined ? { firewall_language: body.firewall_language } : {}),
    ...(body.collection !== undefined ? { collection: body.collection } : {}),
    ...(body.thread !== undefined ? { thread: body.thread } : {}),
    ...(body.tags !== undefined ? { tags: body.tags } : {}),
    ...(body.name !== undefined ? { name: body.name } : {}),
    ...(body.cache !== undefined ? { cache: body.cache } : {}),
  };
  // Where each message came from is needed only to name a field in a 422 on the chat request:
  // then the messages are built again, the same, keeping it.
  let fieldOf: ((chatField: string) => string) | undefined;
  return { chat, input, notes: [...notes], fieldOf: (field) => (fieldOf ??= fieldsOf(body, chain, input))(field) };
}

/** The caller's field of each field of the chat messages, from the messages built again with their origins. */
function fieldsOf(body: ResponsesRequest, chain: readonly StoredTurn[], input: readonly InputItem[]): (chatField: string) => string {
  const origins = new MessageOrigins();
  return origins.fieldOf(messagesOf(body, chain, input, new Refusals(), new Set(), origins));
}

/** The chat messages of the instructions, the stored turns and the input; with `origins`, where each came from. */
function messagesOf(
  body: ResponsesRequest,
  chain: readonly StoredTurn[],
  input: readonly InputItem[],
  refusals: Refusals,
  notes: Set<string>,
  origins?: MessageOrigins,
): ChatMessage[] {
  const messages: ChatMessage[] = [];
  if (body.instructions) {
    const system: ChatMessage = { role: 'system', content: body.instructions };
    messages.push(system);
    origins?.set(system, { at: 'instructions' });
  }
  // Earlier turns were checked when they were sent; their refusals cannot name this request's fields.
  const history = new Refusals();
  for (const turn of chain) {
    appendItems(messages, turn.input, 'previous', history, notes);
    appendItems(messages, turn.response.output as unknown as InputItem[], 'previous', history, notes);
  }
  // What the stored turns hold is this request's by way of previous_response_id.
  if (origins) for (const message of messages) if (!origins.get(message)) origins.set(message, { at: 'previous_response_id' });
  withoutOrphanResults(messages, notes);
  const fromInput = messages.length;
  appendItems(messages, input, 'input', refusals, notes, origins);
  refuseOrphanOutputs(messages, fromInput, input, refusals);
  return messages;
}

/**
 * A function output of this request must answer a call made before it, in the input or in the
 * turns previous_response_id leads to: every provider refuses a tool result without its call, and
 * OpenAI's Responses API answers 400 for it too.
 */
function refuseOrphanOutputs(messages: readonly ChatMessage[], fromInput: number, input: readonly InputItem[], refusals: Refusals): void {
  const called = new Set<string>();
  for (const message of messages.slice(0, fromInput)) for (const call of message.tool_calls ?? []) called.add(call.id);
  input.forEach((item, i) => {
    if (itemTypeOf(item) === 'function_call' && item.call_id !== undefined) called.add(item.call_id);
    if (itemTypeOf(item) === 'function_call_output' && item.call_id !== undefined && !called.has(item.call_id)) {
      refusals.add(`input.${i}.call_id`, `answers no function_call: none with call_id ${JSON.stringify(item.call_id)} comes before it, in input or in the turns previous_response_id leads to`);
    }
  });
}

/**
 * Takes out of the history the tool results whose call is no longer in it: a chain whose oldest
 * turns were deleted (or pruned after RESPONSES_RETENTION_DAYS) starts with the results of calls
 * made in them, which every provider refuses without the call.
 */
function withoutOrphanResults(messages: ChatMessage[], notes: Set<string>): void {
  const called = new Set<string>();
  let dropped = 0;
  for (let i = 0; i < messages.length; i++) {
    const message = messages[i]!;
    for (const call of message.tool_calls ?? []) called.add(call.id);
    if (message.role === 'tool' && !called.has(message.tool_call_id!)) {
      messages.splice(i--, 1);
      dropped++;
    }
  }
  if (dropped > 0) notes.add(`${dropped} function output(s) of earlier turns left out: the turns with their calls are no longer stored`);
}

/** The last message when it is an assistant turn whose tool calls no output has answered yet. */
function callsAwaitingOutput(messages: readonly ChatMessage[]): ChatMessage | undefined {
  const last = messages.at(-1);
  return last?.role === 'assistant' && last.tool_calls?.length ? last : undefined;
}

/** Two texts of one assistant turn as one, a blank line between them. */
function joinedText(first: ChatMessage['content'], second: string): string {
  const before = typeof first === 'string' ? first : Array.isArray(first) ? textOfParts(first) : '';
  return before === '' ? second : second === '' ? before : `${before}\n\n${second}`;
}

/** An item without a type is a message (OpenAI's "easy input message"), role or no role. */
function itemTypeOf(item: InputItem): string {
  return item.type ?? 'message';
}

/**
 * Input (or stored output) items onto chat messages: consecutive function calls join one assistant
 * message. With `origins`, each message keeps the items' fields it came from.
 */
function appendItems(messages: ChatMessage[], items: readonly InputItem[], at: string, refusals: Refusals, notes: Set<string>, origins?: MessageOrigins): void {
  // Thinking blocks from a reasoning item go with the assistant turn that follows it.
  let thinking: ThinkingBlock[] = [];
  const assistantTurn = (message: ChatMessage): ChatMessage => {
    if (thinking.length > 0) message.thinking_blocks = thinking;
    thinking = [];
    return message;
  };
  const takeThinking = (message: ChatMessage) => {
    if (thinking.length > 0) message.thinking_blocks = [...(message.thinking_blocks ?? []), ...thinking];
    thinking = [];
  };
  // Images a function's output holds (Codex's view_image): a chat `tool` message takes text only,
  // so they follow the tool results in a user message, as the Messages door does with tool_result images.
  let toolImages: ChatPart[] = [];
  let toolImagePaths: string[] = [];
  const flushToolImages = () => {
    if (toolImages.length > 0) {
      const message: ChatMessage = { role: 'user', content: toolImages };
      messages.push(message);
      origins?.set(message, { at: toolImagePaths[0]!, parts: toolImagePaths });
    }
    toolImages = [];
    toolImagePaths = [];
  };
  items.forEach((item, i) => {
    const path = `${at}.${i}`;
    const type = itemTypeOf(item);
    if (type !== 'function_call_output') flushToolImages();
    switch (type) {
      case 'message': {
        if (item.role === undefined) {
          refusals.add(`${path}.role`, 'is required');
          return;
        }
        if (item.content === undefined || item.content === null) {
          refusals.add(`${path}.content`, 'is required');
          return;
        }
        const role = item.role === 'developer' ? 'system' : item.role;
        const parts: string[] | undefined = origins ? [] : undefined;
        const content = contentOf(item.content, `${path}.content`, refusals, parts);
        const pending = callsAwaitingOutput(messages);
        if (role === 'assistant' && pending) {
          // Text between two calls of one turn (Claude writes such turns; Codex and the Agents SDK
          // replay their items as they came): the calls and all the text are one assistant message.
          pending.content = joinedText(pending.content, Array.isArray(content) ? textOfParts(content) : content);
          takeThinking(pending);
          return;
        }
        // Assistant turns go back as plain text: every chat provider takes that.
        const message = role !== 'assistant' ? { role, content } : assistantTurn({ role, content: Array.isArray(content) ? textOfParts(content) : content });
        messages.push(message);
        origins?.set(message, { at: path, content: `${path}.content`, ...(role !== 'assistant' && parts ? { parts } : {}) });
        return;
      }
      case 'function_call': {
        if (item.call_id === undefined || item.name === undefined || item.arguments === undefined) {
          for (const field of ['call_id', 'name', 'arguments'] as const) if (item[field] === undefined) refusals.add(`${path}.${field}`, 'is required');
          return;
        }
        const call = { id: item.call_id, type: 'function' as const, function: { name: item.name, arguments: item.arguments } };
        const last = messages.at(-1);
        // Reasoning between two calls of one turn stays in that turn, after what it had.
        if (last?.role === 'assistant' && (thinking.length === 0 || last.tool_calls?.length)) {
          takeThinking(last);
          const calls = (last.tool_calls ??= []);
          calls.push(call);
          const origin = origins?.get(last);
          if (origin) (origin.calls ??= [])[calls.length - 1] = `${path}.arguments`;
        } else {
          const message = assistantTurn({ role: 'assistant', content: null, tool_calls: [call] });
          messages.push(message);
          origins?.set(message, { at: path, calls: [`${path}.arguments`] });
        }
        return;
      }
      case 'function_call_output': {
        if (item.call_id === undefined || item.output === undefined) {
          for (const field of ['call_id', 'output'] as const) if (item[field] === undefined) refusals.add(`${path}.${field}`, 'is required');
          return;
        }
        const partPaths: string[] | undefined = origins ? [] : undefined;
        const parts = typeof item.output === 'string' ? item.output : (contentOf(item.output, `${path}.output`, refusals, partPaths) as ChatPart[]);
        const message: ChatMessage = { role: 'tool', tool_call_id: item.call_id, content: textOfParts(parts) };
        messages.push(message);
        origins?.set(message, { at: path, content: `${path}.output` });
        if (typeof parts !== 'string') {
          parts.forEach((part, p) => {
            if (part.type === 'text') return;
            toolImages.push(part);
            if (partPaths) toolImagePaths.push(partPaths[p]!);
          });
        }
        return;
      }
      case 'reasoning': {
        // Ours carry a native Anthropic provider's signed thinking blocks; any other is not sent on.
        const blocks = unsealThinking(item.encrypted_content);
        if (blocks) thinking.push(...blocks);
        else notes.add('reasoning items are not sent on: only a native Anthropic provider takes its own thinking back');
        return;
      }
      case 'item_reference':
        refusals.add(`${path}.type`, 'item_reference is not served: continue a conversation with previous_response_id, or send the items');
        return;
      default:
        notes.add(`input item type ${type} left out: the door serves message, function_call and function_call_output`);
    }
  });
  flushToolImages();
}


/** The chat content of an item's content; `paths`, when given, gets the field each chat part came from. */
function contentOf(content: string | ContentPart[], path: string, refusals: Refusals, paths?: string[]): ChatContent {
  if (typeof content === 'string') return content;
  const parts: ChatPart[] = [];
  const push = (part: ChatPart, where: string) => {
    parts.push(part);
    paths?.push(where);
  };
  content.forEach((part, p) => {
    const where = `${path}.${p}`;
    switch (part.type) {
      case 'input_text':
      case 'output_text':
      case 'text':
        if (typeof part.text !== 'string') refusals.add(`${where}.text`, 'is required');
        else push({ type: 'text', text: part.text }, where);
        return;
      case 'refusal':
        if (typeof part.refusal === 'string') push({ type: 'text', text: part.refusal }, where);
        return;
      case 'input_image':
        if (part.file_id !== undefined || typeof part.image_url !== 'string') {
          refusals.add(where, 'an input_image needs image_url (an https or data: URL); file_id is not served (there is no files API)');
        } else if (!IMAGE_URL_SCHEME.test(part.image_url)) {
          refusals.add(where, 'image_url must be an https or a data: URL (a provider cannot fetch any other)');
        } else {
          push({ type: 'image_url', image_url: { url: part.image_url, ...(part.detail !== undefined ? { detail: part.detail } : {}) } }, where);
        }
        return;
      case 'input_file':
        if (typeof part.file_data !== 'string') refusals.add(where, 'an input_file needs file_data; file_id and file_url are not served');
        else push({ type: 'file', file: { file_data: part.file_data, ...(typeof part.filename === 'string' ? { filename: part.filename } : {}) } }, where);
        return;
      default:
        refusals.add(`${where}.type`, `${part.type} is not served; use input_text, input_image or input_file`);
    }
  });
  return parts;
}

function textOfParts(parts: ChatContent): string {
  if (typeof parts === 'string') return parts;
  return parts.flatMap((part) => (part.type === 'text' && part.text !== undefined ? [part.text] : [])).join('\n');
}

function toolsOf(tools: NonNullable<ResponsesRequest['tools']>, refusals: Refusals): { tools: ChatTool[]; offeredOnly: string[] } {
  const served: ChatTool[] = [];
  const offeredOnly = new Set<string>();
  const functions = tools.flatMap((tool, t) => (tool.type === 'function' ? [{ name: tool.name!, t }] : []));
  for (const [i, first] of repeatedNames(functions.map((tool) => tool.name))) refusals.add(`tools.${functions[i]!.t}.name`, repeatsToolName(functions[first]!.t));
  for (const tool of tools) {
    if (tool.type !== 'function') {
      offeredOnly.add(tool.type);
      continue;
    }
    served.push({
      type: 'function',
      function: {
        name: tool.name!,
        ...(tool.description != null ? { description: tool.description } : {}),
        ...(tool.parameters != null ? { parameters: tool.parameters } : {}),
        ...(tool.strict != null ? { strict: tool.strict } : {}),
      },
    });
  }
  return { tools: served, offeredOnly: [...offeredOnly] };
}

/** Only a choice that requires a tool the door does not serve is refused; merely offering one is not. */
function toolChoiceOf(
  choice: ResponsesRequest['tool_choice'],
  servedTools: number,
  offeredOnly: readonly string[],
  refusals: Refusals,
): ChatCompletionRequest['tool_choice'] | undefined {
  if (choice === undefined) return undefined;
  if (typeof choice === 'string') {
    if (choice === 'required' && servedTools === 0) {
      refusals.add(
        'tool_choice',
        offeredOnly.length > 0
          ? `requires a tool, but the only tools offered (${offeredOnly.join(', ')}) are built-in tools the door does not serve`
          : '"required" needs tools',
      );
      return undefined;
    }
    // Without tools a provider has nothing to choose from, and some refuse a choice alone.
    return servedTools > 0 ? choice : undefined;
  }
  if (choice.type === 'function') {
    if (choice.name === undefined) {
      refusals.add('tool_choice.name', 'is required');
      return undefined;
    }
    return { type: 'function', function: { name: choice.name } };
  }
  refusals.add('tool_choice.type', `requires the built-in tool ${choice.type}, which the door does not serve (only function tools)`);
  return undefined;
}
