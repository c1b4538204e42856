import { ApiError } from '../errors.js';
import type { Firewall } from '../firewall/index.js';
import { isDataUrl } from './chatRequest.js';
import { citationsOf, documentSettingsOf } from './providers/parts.js';
import type { AnswerRun, ChatMessage, UpstreamChatRequest, UpstreamChunk, UpstreamCompletion } from './providers/types.js';

// The firewall's place in a chat request: every string that leaves is masked (message text, text
// parts, tool-call arguments, a message's name, a file part's file name, an image part's URL
// unless it is a data URL, a document's text, title and context, a search result's source, title
// and texts, the prose and values of tool and response-format definitions:
// descriptions, titles, enum, const, default and example values); every text that comes back is
// restored (content, reasoning, tool-call arguments), also when a placeholder arrives split across
// stream chunks. Fields the contract does not name are dropped before anything leaves, with the
// firewall on or off: what is not known cannot be masked.

// A scheme is case-insensitive (RFC 3986), but adapters and providers read `data:` in lower case.
const withLowerCaseScheme = (url: string): string => (isDataUrl(url) ? `data:${url.slice(5)}` : url.replace(/^https:/i, 'https:'));

type ContentPart = Exclude<ChatMessage['content'], string | null | undefined>[number];

/** A content part with only the fields the contract names for its type. */
function knownPart(part: ContentPart): ContentPart {
  const known = knownFieldsOf(part);
  // A prompt-cache mark goes on for the native Anthropic adapter; the others drop it.
  if (part.cache_control !== undefined) known.cache_control = { ...part.cache_control };
  return known;
}

function knownFieldsOf(part: ContentPart): ContentPart {
  switch (part.type) {
    case 'text':
      return { type: 'text', text: part.text! };
    // What the assistant said, as any provider reads it: only OpenAI knows a refusal part.
    case 'refusal':
      return { type: 'text', text: part.refusal! };
    case 'image_url':
      return {
        type: 'image_url',
        image_url: { url: withLowerCaseScheme(part.image_url!.url), ...(part.image_url!.detail !== undefined ? { detail: part.image_url!.detail } : {}) },
      };
    case 'input_audio':
      return { type: 'input_audio', input_audio: { data: part.input_audio!.data, format: part.input_audio!.format } };
    case 'file': {
      const { file_data, filename, context, citations } = part.file!;
      return {
        type: 'file',
        file: {
          ...(file_data !== undefined ? { file_data: withLowerCaseScheme(file_data) } : {}),
          ...(filename !== undefined ? { filename } : {}),
          ...documentSettingsOf({ context, citations }),
        },
      };
    }
    case 'document': {
      const document = part.document!;
      return { type: 'document', document: { source: { type: 'text', media_type: 'text/plain', data: document.source.data }, ...documentSettingsOf(document) } };
    }
    case 'search_result': {
      const { source, title, content, citations } = part.search_result!;
      return {
        type: 'search_result',
        search_result: { source, title, content: content.map((block) => ({ type: 'text', text: block.text })), ...citationsOf(citations) },
      };
    }
  }
}

/** A message with only the fields the contract names, its parts likewise. */
function knownMessage(message: ChatMessage): ChatMessage {
  const known: ChatMessage = { role: message.role };
  if (message.content !== undefined) known.content = Array.isArray(message.content) ? message.content.map(knownPart) : message.content;
  if (message.name !== undefined) known.name = message.name;
  if (message.tool_call_id !== undefined) known.tool_call_id = message.tool_call_id;
  if (message.is_error === true && message.role === 'tool') known.is_error = true;
  if (message.thinking_blocks !== undefined && message.role === 'assistant') {
    known.thinking_blocks = message.thinking_blocks.map((block) => ({
      type: block.type,
      ...(block.thinking !== undefined ? { thinking: block.thinking } : {}),
      ...(block.signature !== undefined ? { signature: block.signature } : {}),
      ...(block.data !== undefined ? { data: block.data } : {}),
    }));
  }
  if (message.tool_calls !== undefined) {
    known.tool_calls = message.tool_calls.map((call) => ({
      id: call.id,
      ...(call.type !== undefined ? { type: call.type } : {}),
      function: { name: call.function.name, arguments: call.function.arguments },
    }));
  }
  return known;
}

type Definitions = Pick<UpstreamChatRequest, 'tools' | 'response_format'>;
type StopSequences = Pick<UpstreamChatRequest, 'stop'>;

// In a JSON Schema, the keywords whose values are a caller's prose or data (an `enum` of staff
// names, a `default` address), as against structure (types, property names, patterns). Under
// these keywords a schema's children are named schemas, the names being structure.
const SCHEMA_TEXT = new Set(['description', 'title', 'enum', 'const', 'default', 'examples', 'example']);
const SCHEMA_MAPS = new Set(['properties', 'patternProperties', '$defs', 'definitions', 'dependentSchemas']);

/** The schema with every string the firewall reads (see SCHEMA_TEXT) replaced by `edit(string)`, in document order. */
function mapSchemaTexts(node: unknown, edit: (text: string) => string, inText = false): unknown {
  if (typeof node === 'string') return inText ? edit(node) : node;
  if (Array.isArray(node)) return node.map((item) => mapSchemaTexts(item, edit, inText));
  if (node === null || typeof node !== 'object') return node;
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(node)) {
    let next: unknown;
    if (inText || SCHEMA_TEXT.has(key)) next = mapSchemaTexts(value, edit, true);
    else if (SCHEMA_MAPS.has(key) && value !== null && typeof value === 'object' && !Array.isArray(value)) {
      const schemas: Record<string, unknown> = {};
      for (const [name, child] of Object.entries(value)) define(schemas, name, mapSchemaTexts(child, edit));
      next = schemas;
    } else next = mapSchemaTexts(value, edit);
    define(out, key, next);
  }
  return out;
}

/** An own property even when it is named "__proto__" (defineProperty only then: it is slow). */
function define(target: Record<string, unknown>, key: string, value: unknown): void {
  if (key === '__proto__') Object.defineProperty(target, key, { value, enumerable: true, writable: true, configurable: true });
  else target[key] = value;
}

/** The definitions with every string the firewall reads replaced by `edit(string)`, in document order. */
function mapDefinitionTexts(definitions: Definitions, edit: (text: string) => string): Definitions {
  const out: Definitions = {};
  if (definitions.tools) {
    out.tools = definitions.tools.map((tool) => {
      const { description, parameters } = tool.function;
      return {
        ...tool,
        function: {
          ...tool.function,
          ...(description !== undefined ? { description: edit(description) } : {}),
          ...(parameters !== undefined ? { parameters: mapSchemaTexts(parameters, edit) as Record<string, unknown> } : {}),
        },
      };
    });
  }
  const format = definitions.response_format;
  if (format?.json_schema) {
    const { description, schema } = format.json_schema;
    out.response_format = {
      ...format,
      json_schema: {
        ...format.json_schema,
        ...(description !== undefined ? { description: edit(description) } : {}),
        ...(schema !== undefined ? { schema: mapSchemaTexts(schema, edit) as Record<string, unknown> } : {}),
      },
    };
  } else if (format) out.response_format = format;
  return out;
}

/** The strings of the definitions the firewall reads, in document order. */
function definitionTexts(definitions: Definitions): string[] {
  const texts: string[] = [];
  mapDefinitionTexts(definitions, (text) => {
    texts.push(text);
    return text;
  });
  return texts;
}

/**
 * Tool and response-format definitions as they leave: descriptions and schema values masked. Names
 * (of tools, properties, the format) are identifiers the model must call back unchanged, and stay.
 * The same definitions come with every turn of an agent, so each text is read through
 * `maskRecurring`: what was found in it is remembered, and it is not read again.
 */
async function upstreamDefinitions(firewall: Firewall, definitions: Definitions, texts: readonly string[]): Promise<Definitions> {
  if (texts.length === 0) return definitions;
  const masked: string[] = [];
  for (const text of texts) masked.push(await firewall.maskRecurring(text));
  let next = 0;
  return mapDefinitionTexts(definitions, () => masked[next++]!);
}

// Each string the firewall reads costs it a few microseconds before its first character (a
// pre-scan, the recognizers' set-up), as much as reading some 16 characters: so each counts as at
// least that many against FIREWALL_MAX_CHARS, or a request of a million one-letter parts would
// cost seconds within the bound.
const MIN_CHARS_PER_STRING = 16;

/** What a string counts against FIREWALL_MAX_CHARS. */
function scanCost(text: string | undefined): number {
  return text === undefined ? 0 : Math.max(text.length, MIN_CHARS_PER_STRING);
}

/** What the firewall's reading of these messages counts against FIREWALL_MAX_CHARS: every string it masks. */
function firewallChars(messages: readonly ChatMessage[]): number {
  let chars = 0;
  for (const message of messages) {
    chars += scanCost(message.name);
    if (typeof message.content === 'string') chars += scanCost(message.content);
    else if (Array.isArray(message.content)) {
      for (const part of message.content) {
        if (part.type === 'text') chars += scanCost(part.text);
        else if (part.type === 'image_url' && part.image_url && !isDataUrl(part.image_url.url)) chars += scanCost(part.image_url.url);
        else if (part.type === 'file') chars += scanCost(part.file?.filename) + scanCost(part.file?.context ?? undefined);
        else if (part.type === 'document' && part.document) {
          chars += scanCost(part.document.source.data) + scanCost(part.document.title ?? undefined) + scanCost(part.document.context ?? undefined);
        } else if (part.type === 'search_result' && part.search_result) {
          chars += scanCost(part.search_result.source) + scanCost(part.search_result.title);
          for (const block of part.search_result.content) chars += scanCost(block.text);
        }
      }
    }
    for (const call of message.tool_calls ?? []) chars += scanCost(call.function.arguments);
    for (const block of message.thinking_blocks ?? []) chars += scanCost(block.thinking);
  }
  return chars;
}

function firewallTextTooLarge(chars: number, limit: number): ApiError {
  return new ApiError({
    status: 413,
    message: `the personal-data firewall scans at most ${limit} characters of a request's messages, tool definitions and stop sequences (FIREWALL_MAX_CHARS; each string counts at least ${MIN_CHARS_PER_STRING}); these have ${chars}`,
    type: 'invalid_request_error',
    code: 'payload_too_large',
  });
}

/**
 * The firewall's own bound: a 413 when what it would read (see `firewallChars`) exceeds maxChars.
 * `texts` are the tools' and response format's strings, when already gathered.
 */
export function refuseBeyondFirewallBound(
  prompt: { messages: readonly ChatMessage[] } & Definitions & StopSequences,
  maxChars: number,
  texts: readonly string[] = definitionTexts(prompt),
): void {
  let chars = firewallChars(prompt.messages);
  for (const text of texts) chars += scanCost(text);
  // The Messages door takes any number of stop sequences, as Anthropic does: each is masked too.
  if (typeof prompt.stop === 'string') chars += scanCost(prompt.stop);
  else for (const sequence of prompt.stop ?? []) chars += scanCost(sequence);
  if (chars > maxChars) throw firewallTextTooLarge(chars, maxChars);
}

export interface UpstreamPromptOptions {
  /** The most characters the firewall scans for one request (messages and definitions); more is a 413. */
  maxChars: number;
}

/**
 * The messages and definitions as they leave: only the fields the contract names, and, with the
 * firewall on, every string masked (see `upstreamDefinitions`). Long texts are masked in slices
 * that give the event loop its turn.
 */
export async function upstreamPrompt(
  firewall: Firewall | undefined,
  prompt: { messages: readonly ChatMessage[] } & Definitions & StopSequences,
  options: UpstreamPromptOptions,
): Promise<{ messages: ChatMessage[] } & Definitions & StopSequences> {
  const known = prompt.messages.map(knownMessage);
  const definitions: Definitions = {
    ...(prompt.tools !== undefined ? { tools: prompt.tools } : {}),
    ...(prompt.response_format !== undefined ? { response_format: prompt.response_format } : {}),
  };
  const stop = prompt.stop !== undefined ? { stop: prompt.stop } : {};
  if (!firewall) return { messages: known, ...definitions, ...stop };
  const texts = definitionTexts(definitions);
  refuseBeyondFirewallBound({ messages: known, ...stop }, options.maxChars, texts);
  // Definitions first, then the messages in order: placeholders are numbered as values first
  // appear, so what comes first in the prompt (tools, system, earlier turns) is masked the same
  // way every turn, and a provider's prompt cache keeps matching the prefix.
  const maskedDefinitions = await upstreamDefinitions(firewall, definitions, texts);
  for (const message of known) {
    if (typeof message.content === 'string') message.content = await firewall.maskAsync(message.content);
    else if (Array.isArray(message.content)) {
      for (const part of message.content) {
        // Audio and file data go as they are: the firewall reads text, not attachments.
        if (part.type === 'text') part.text = await firewall.maskAsync(part.text!);
        else if (part.type === 'image_url' && !isDataUrl(part.image_url!.url)) {
          part.image_url!.url = await firewall.maskUrl(part.image_url!.url);
        } else if (part.type === 'file') {
          const file = part.file!;
          if (file.filename !== undefined) file.filename = await firewall.maskFileName(file.filename);
          if (file.context != null) file.context = await firewall.maskAsync(file.context);
        } else if (part.type === 'document') {
          const document = part.document!;
          document.source.data = await firewall.maskAsync(document.source.data);
          if (document.title != null) document.title = await firewall.maskAsync(document.title);
          if (document.context != null) document.context = await firewall.maskAsync(document.context);
        } else if (part.type === 'search_result') {
          const result = part.search_result!;
          // Where a result came from is mostly a URL, whose path and query can name someone.
          result.source = isDataUrl(result.source) ? await firewall.maskAsync(result.source) : await firewall.maskUrl(result.source);
          result.title = await firewall.maskAsync(result.title);
          for (const block of result.content) block.text = await firewall.maskAsync(block.text);
        }
      }
    }
    if (message.name !== undefined) message.name = await firewall.maskLabel(message.name);
    for (const call of message.tool_calls ?? []) call.function.arguments = await firewall.maskToolArgumentsAsync(call.function.arguments);
    if (message.thinking_blocks) {
      // The provider wrote these from masked text; a block the firewall would change was edited
      // (or never masked), and its signature would fail: it is left out rather than sent in clear.
      const kept = [];
      for (const block of message.thinking_blocks) {
        if (block.thinking === undefined || (await firewall.maskAsync(block.thinking)) === block.thinking) kept.push(block);
      }
      message.thinking_blocks = kept;
    }
  }
  await maskHeldValuesIn(firewall, known);
  // Last, so that a sequence holding a value of the prompt gets its placeholder, which is what the
  // model writes and so what can stop it.
  if (stop.stop !== undefined) {
    stop.stop = typeof stop.stop === 'string' ? firewall.mask(stop.stop) : stop.stop.map((sequence) => firewall.mask(sequence));
  }
  return { messages: known, ...maskedDefinitions, ...stop };
}

/**
 * The message texts read as prose, masked once more for the values found in the others (Firewall.heldValuesMasker):
 * a customer number given under its label in one message goes out in clear when the next one
 * repeats it bare. Tool-call arguments are JSON, where a value as written is the same text and its
 * placeholder is valid. Names, file names and URLs are masked by form, which a value found in a
 * sentence does not change.
 */
async function maskHeldValuesIn(firewall: Firewall, messages: ChatMessage[]): Promise<void> {
  if (firewall.vault.size === 0) return;
  const mask = firewall.heldValuesMasker();
  for (const message of messages) {
    if (typeof message.content === 'string') message.content = await mask(message.content);
    else if (Array.isArray(message.content)) {
      for (const part of message.content) {
        if (part.type === 'text') part.text = await mask(part.text!);
        else if (part.type === 'file' && part.file!.context != null) part.file!.context = await mask(part.file!.context);
        else if (part.type === 'document') {
          const document = part.document!;
          document.source.data = await mask(document.source.data);
          if (document.title != null) document.title = await mask(document.title);
          if (document.context != null) document.context = await mask(document.context);
        } else if (part.type === 'search_result') {
          const result = part.search_result!;
          result.title = await mask(result.title);
          for (const block of result.content) block.text = await mask(block.text);
        }
      }
    }
    for (const call of message.tool_calls ?? []) call.function.arguments = await mask(call.function.arguments);
    if (message.thinking_blocks) {
      // As above: a block that would change cannot keep its signature, and is left out.
      const kept = [];
      for (const block of message.thinking_blocks) {
        if (block.thinking === undefined || (await mask(block.thinking)) === block.thinking) kept.push(block);
      }
      message.thinking_blocks = kept;
    }
  }
}

/**
 * How restored values are written into the answer's content: escaped for the inside of a JSON
 * string ('json') when the request, as it was sent, asked for a JSON answer (`response_format`
 * json_object or json_schema; the Responses door's `text.format` arrives as one), as they are in
 * tool-call arguments. Restored raw, a value with a line break or a quote ("Vondelstraat 3\n1054 GA
 * Amsterdam") made the JSON invalid.
 */
export function contentKindOf(request: Pick<UpstreamChatRequest, 'response_format'>): 'text' | 'json' {
  const format = request.response_format?.type;
  return format === 'json_object' || format === 'json_schema' ? 'json' : 'text';
}

/** The reply with its placeholders restored; a long reply gives the event loop its turn between slices. */
export async function restoreCompletion(firewall: Firewall, completion: UpstreamCompletion, contentKind: 'text' | 'json' = 'text'): Promise<UpstreamCompletion> {
  if (firewall.vault.size === 0) return completion;
  const choices: UpstreamCompletion['choices'] = [];
  for (const choice of completion.choices) {
    const restored = await restoredContent(firewall, choice.message, contentKind);
    let toolCalls: typeof choice.message.tool_calls;
    if (choice.message.tool_calls) {
      toolCalls = [];
      for (const call of choice.message.tool_calls) {
        toolCalls.push({ ...call, function: { ...call.function, arguments: await firewall.restoreAsync(call.function.arguments, 'json') } });
      }
    }
    const reasoning = choice.message.reasoning_content;
    const restoredReasoning = reasoning === undefined ? {} : { reasoning_content: await firewall.restoreAsync(reasoning) };
    const stopSequence = choice.stop_sequence === undefined ? {} : { stop_sequence: firewall.restore(choice.stop_sequence) };
    choices.push({ ...choice, ...stopSequence, message: { ...choice.message, ...restored, ...restoredReasoning, ...(toolCalls ? { tool_calls: toolCalls } : {}) } });
  }
  return { ...completion, choices };
}

/**
 * The restored content, and with it the order it streamed in (`order`) with the lengths of the
 * restored runs. Restored run by run, with one restorer flushed at the end of each, as the
 * stream's restorer was at each call (StreamUnmasker): a replay splits the text where the stream did.
 */
async function restoredContent(
  firewall: Firewall,
  message: UpstreamCompletion['choices'][number]['message'],
  kind: 'text' | 'json',
): Promise<{ content: string | null; order?: AnswerRun[] }> {
  if (message.content === null) return { content: null };
  if (!message.order) return { content: await firewall.restoreAsync(message.content, kind) };
  const restorer = firewall.streamRestorer(kind);
  const pieces: string[] = [];
  const order: AnswerRun[] = [];
  let at = 0;
  for (const run of message.order) {
    if (!('content' in run)) {
      order.push(run);
      continue;
    }
    const piece = restorer.push(message.content.slice(at, (at += run.content))) + restorer.flush();
    pieces.push(piece);
    order.push({ content: piece.length });
  }
  return { content: pieces.join(''), order };
}

type Delta = UpstreamChunk['choices'][number]['delta'];

/**
 * Restores a stream's deltas. Each choice's content and each tool call's arguments has its own
 * restorer, which holds back only a tail that could still grow into a placeholder.
 */
export class StreamUnmasker {
  private readonly content = new Map<string, ReturnType<Firewall['streamRestorer']>>();
  private readonly reasoning = new Map<string, ReturnType<Firewall['streamRestorer']>>();
  private readonly argumentsOf = new Map<string, ReturnType<Firewall['streamRestorer']>>();

  /** `contentKind`: see contentKindOf; reasoning is always text. */
  constructor(
    private readonly firewall: Firewall,
    private readonly contentKind: 'text' | 'json' = 'text',
  ) {}

  delta(index: number, delta: Delta): Delta {
    if (this.firewall.vault.size === 0) return delta;
    const restored: Delta = { ...delta };
    if (typeof delta.content === 'string') {
      restored.content = this.restorer(this.content, String(index), this.contentKind).push(delta.content);
    }
    if (typeof delta.reasoning_content === 'string') {
      restored.reasoning_content = this.restorer(this.reasoning, String(index), 'text').push(delta.reasoning_content);
      if (restored.reasoning_content === '') delete restored.reasoning_content;
    }
    // The answer begins: what reasoning was held back goes out before it, not after.
    if ((typeof delta.content === 'string' && delta.content !== '') || delta.tool_calls) {
      const tail = this.reasoning.get(String(index))?.flush() ?? '';
      if (tail !== '') restored.reasoning_content = (restored.reasoning_content ?? '') + tail;
    }
    // A call ends the text before it: what of it was held back goes out before the call, where the
    // text streamed (restoreCompletion splits the kept answer's text there too).
    if (delta.tool_calls) {
      const tail = this.content.get(String(index))?.flush() ?? '';
      if (tail !== '') restored.content = (restored.content ?? '') + tail;
    }
    if (delta.tool_calls) {
      restored.tool_calls = delta.tool_calls.map((call) =>
        call.function?.arguments === undefined
          ? call
          : {
              ...call,
              function: {
                ...call.function,
                arguments: this.restorer(this.argumentsOf, `${index}:${call.index}`, 'json').push(call.function.arguments),
              },
            },
      );
    }
    return restored;
  }

  /** What was held back for this choice, as a last delta (or undefined when nothing was). */
  flush(index: number): Delta | undefined {
    const content = this.content.get(String(index))?.flush() ?? '';
    const reasoning = this.reasoning.get(String(index))?.flush() ?? '';
    const calls = [...this.argumentsOf.entries()]
      .filter(([key]) => key.startsWith(`${index}:`))
      .map(([key, restorer]) => ({ index: Number(key.split(':')[1]), function: { arguments: restorer.flush() } }))
      .filter((call) => call.function.arguments !== '');
    if (content === '' && reasoning === '' && calls.length === 0) return undefined;
    return {
      ...(reasoning !== '' ? { reasoning_content: reasoning } : {}),
      ...(content !== '' ? { content } : {}),
      ...(calls.length > 0 ? { tool_calls: calls } : {}),
    };
  }

  private restorer(map: Map<string, ReturnType<Firewall['streamRestorer']>>, key: string, kind: 'text' | 'json') {
    let restorer = map.get(key);
    if (!restorer) {
      restorer = this.firewall.streamRestorer(kind);
      map.set(key, restorer);
    }
    return restorer;
  }
}
