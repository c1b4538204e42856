import { citationsOf, documentSettingsOf } from '../parts.js';
import { isRetrievedKnowledge, type ChatMessage, type ParameterLimits, type UpstreamChatRequest, type UpstreamParameter, type UpstreamTarget } from '../types.js';

// A chat request (OpenAI's shape, already masked by the firewall) as an Anthropic Messages body.

type ContentPart = Exclude<ChatMessage['content'], string | null | undefined>[number];
type Block = Record<string, unknown>;

/** The parameters the Messages API takes; the gateway drops the others (and notes it on the trace). */
export const ANTHROPIC_PARAMETERS: ReadonlySet<UpstreamParameter> = new Set<UpstreamParameter>([
  'temperature',
  'max_tokens',
  'max_completion_tokens',
  'top_p',
  'top_k',
  'stop',
  'tools',
  'tool_choice',
  'parallel_tool_calls',
  'reasoning_effort',
]);

/**
 * Anthropic refuses sampling settings beside thinking: routing drops them (or refuses the request in
 * strict mode) when the request asks for thinking.
 */
export const ANTHROPIC_LIMITS: ParameterLimits = { notWithThinking: ['temperature', 'top_k'] };

/** Messages requires max_tokens; a chat request may leave it out (and a target should name its model's cap). */
const DEFAULT_MAX_TOKENS = 4096;
// Extended thinking's budget per reasoning level; Anthropic's smallest budget is 1,024 tokens.
const THINKING_BUDGET: Record<string, number> = { minimal: 1024, low: 2048, medium: 8192, high: 16384, xhigh: 32768, max: 32768 };
const MIN_THINKING_BUDGET = 1024;

/**
 * A thinking budget within an answer's cap, or undefined when the cap leaves no room for
 * Anthropic's smallest budget. The cap counts thinking and answer together, as Anthropic's
 * `max_tokens` and OpenAI's `max_completion_tokens` both do, and as rate limits and budgets reserve
 * it: raising it for thinking would let one request spend past them. Thinking takes at most three
 * quarters, so that an answer is left.
 */
function budgetWithin(wanted: number | undefined, cap: number): number | undefined {
  if (wanted === undefined) return undefined;
  const fits = Math.min(wanted, Math.floor((cap * 3) / 4));
  return fits >= MIN_THINKING_BUDGET ? fits : undefined;
}

function levelBudget(effort: UpstreamChatRequest['reasoning_effort']): number | undefined {
  return effort && effort !== 'none' ? THINKING_BUDGET[effort] : undefined;
}

/**
 * Anthropic's `thinking` for a request. The caller's own settings (the Messages door's) go as
 * given: a budget below the cap as it is, adaptive as adaptive. A budget the cap cannot hold (the
 * door lowered the cap to what the context leaves, or the caller asked for more than its cap) is
 * bounded as a level's is (decision 0015), and a cap too small for any thinking gets none. Without
 * them, the reasoning level becomes a budget; effort alone asks for no thinking.
 */
function thinkingOf(request: UpstreamChatRequest, cap: number): Block | undefined {
  const given = request.thinking;
  if (given === undefined) {
    if (request.output_config !== undefined) return undefined;
    const budget = budgetWithin(levelBudget(request.reasoning_effort), cap);
    return budget === undefined ? undefined : { type: 'enabled', budget_tokens: budget };
  }
  const display = given.display !== undefined ? { display: given.display } : {};
  switch (given.type) {
    case 'disabled':
      return { type: 'disabled' };
    case 'adaptive':
      return cap >= MIN_THINKING_BUDGET ? { type: 'adaptive', ...display } : undefined;
    case 'enabled': {
      const asked = given.budget_tokens;
      if (asked !== undefined && asked < cap) return { type: 'enabled', budget_tokens: asked, ...display };
      const budget = budgetWithin(asked ?? levelBudget(request.reasoning_effort), cap);
      return budget === undefined ? undefined : { type: 'enabled', budget_tokens: budget, ...display };
    }
  }
}

const thinkingIsOn = (thinking: Block | undefined): boolean => thinking !== undefined && thinking.type !== 'disabled';

const DATA_URL = /^data:([^;,]+);base64,/;

function textOf(content: ChatMessage['content']): string {
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return '';
  return content.flatMap((part) => (part.type === 'text' ? [part.text ?? ''] : [])).join('\n');
}

/** A content part as a Messages block, with its prompt-cache mark. */
function blockOf(part: ContentPart): Block | undefined {
  const block = unmarkedBlockOf(part);
  if (block && part.cache_control !== undefined) block.cache_control = { ...part.cache_control };
  return block;
}

function unmarkedBlockOf(part: ContentPart): Block | undefined {
  switch (part.type) {
    case 'text':
      return { type: 'text', text: part.text ?? '' };
    case 'image_url': {
      const url = part.image_url!.url;
      const data = DATA_URL.exec(url);
      if (data) return { type: 'image', source: { type: 'base64', media_type: data[1], data: url.slice(data[0].length) } };
      return { type: 'image', source: { type: 'url', url } };
    }
    case 'file': {
      const { file_data: fileData, filename, context, citations } = part.file!;
      const data = fileData ? DATA_URL.exec(fileData) : null;
      if (!fileData || !data) return undefined;
      return {
        type: 'document',
        source: { type: 'base64', media_type: data[1], data: fileData.slice(data[0].length) },
        ...documentSettingsOf({ title: filename, context, citations }),
      };
    }
    case 'document': {
      const document = part.document!;
      return { type: 'document', source: { type: 'text', media_type: 'text/plain', data: document.source.data }, ...documentSettingsOf(document) };
    }
    case 'search_result': {
      const { source, title, content, citations } = part.search_result!;
      return {
        type: 'search_result',
        source,
        title,
        content: content.map((block) => ({ type: 'text', text: block.text })),
        ...citationsOf(citations),
      };
    }
    default:
      return undefined; // audio: the Messages API takes none
  }
}

/**
 * A tool message's content as a tool_result's: its text, or, when it holds more than text
 * (documents, search results, images), its blocks. The mark goes on the tool_result block.
 */
function toolResultContent(content: ChatMessage['content']): string | Block[] {
  if (!Array.isArray(content) || content.every((part) => part.type === 'text')) return textOf(content);
  return content.flatMap((part): Block[] => {
    const block = unmarkedBlockOf(part);
    return block ? [block] : [];
  });
}

function contentBlocks(content: ChatMessage['content']): Block[] {
  if (typeof content === 'string') return content === '' ? [] : [{ type: 'text', text: content }];
  if (!Array.isArray(content)) return [];
  return content.flatMap((part): Block[] => { const block = blockOf(part); return block ? [block] : []; });
}

function toolInput(argumentsText: string): unknown {
  try {
    const parsed: unknown = JSON.parse(argumentsText);
    return parsed !== null && typeof parsed === 'object' && !Array.isArray(parsed) ? parsed : {};
  } catch {
    return {};
  }
}

/** The cache mark of the last part of a content that carries one. */
function lastCacheMark(content: ChatMessage['content']): ContentPart['cache_control'] {
  if (!Array.isArray(content)) return undefined;
  for (let i = content.length - 1; i >= 0; i--) if (content[i]!.cache_control !== undefined) return content[i]!.cache_control;
  return undefined;
}

/**
 * `system` as a string, or as text blocks when a part carries a prompt-cache mark (the mark
 * must stay on the block it was on: it says where the cached prefix ends).
 */
function systemOf(messages: readonly ChatMessage[]): string | Block[] | undefined {
  if (messages.length === 0) return undefined;
  const marked = messages.some((message) => lastCacheMark(message.content) !== undefined);
  if (!marked) return messages.map((message) => textOf(message.content)).join('\n\n');
  return messages.flatMap((message) => contentBlocks(message.content).filter((block) => block.type === 'text' && block.text !== ''));
}

/**
 * System and developer messages become `system`; tool results become user turns of tool_result
 * blocks. The knowledge retrieval added goes at the start of the last user message instead (after
 * the tool results it may follow, which Anthropic wants first): in `system` it would change the
 * cached prefix's start on every question; there, the instructions and the conversation before it
 * are the prefix the previous turn cached.
 */
function conversation(messages: readonly ChatMessage[]): { system: string | Block[] | undefined; messages: { role: string; content: Block[] }[] } {
  const system: ChatMessage[] = [];
  const turns: { role: string; content: Block[] }[] = [];
  let knowledge: ChatMessage | undefined;
  let asked: { turn: number; at: number } | undefined;
  const push = (role: 'user' | 'assistant', blocks: Block[]) => {
    if (blocks.length === 0) return;
    const last = turns.at(-1);
    // Anthropic wants turns to alternate: consecutive turns of one role are joined.
    if (last?.role === role) last.content.push(...blocks);
    else turns.push({ role, content: blocks });
  };
  for (const message of messages) {
    switch (message.role) {
      case 'system':
      case 'developer':
        if (knowledge === undefined && isRetrievedKnowledge(message)) knowledge = message;
        else system.push(message);
        break;
      case 'tool': {
        const mark = lastCacheMark(message.content);
        const result: Block = { type: 'tool_result', tool_use_id: message.tool_call_id ?? '', content: toolResultContent(message.content) };
        if (message.is_error === true) result.is_error = true;
        if (mark) result.cache_control = { ...mark };
        push('user', [result]);
        break;
      }
      case 'assistant': {
        // Thinking first, as Anthropic gave it: its signature covers it byte for byte. A block
        // without a signature is another provider's reasoning (the Messages door shows it as one), not Anthropic's.
        const signed = (message.thinking_blocks ?? []).filter((block) => block.type === 'redacted_thinking' || (block.signature ?? '') !== '');
        const blocks: Block[] = [...signed.map((block) => ({ ...block })), ...contentBlocks(message.content)];
        for (const call of message.tool_calls ?? []) {
          blocks.push({ type: 'tool_use', id: call.id, name: call.function.name, input: toolInput(call.function.arguments) });
        }
        push('assistant', blocks);
        break;
      }
      default: {
        const blocks = contentBlocks(message.content);
        if (blocks.length === 0) break;
        const last = turns.at(-1);
        asked = last?.role === 'user' ? { turn: turns.length - 1, at: last.content.length } : { turn: turns.length, at: 0 };
        push('user', blocks);
      }
    }
  }
  if (knowledge !== undefined) {
    if (asked === undefined) system.push(knowledge);
    else turns[asked.turn]!.content.splice(asked.at, 0, ...contentBlocks(knowledge.content));
  }
  return { system: systemOf(system), messages: turns };
}

function toolChoiceOf(request: UpstreamChatRequest): Block | undefined {
  const choice = request.tool_choice;
  const noParallel = request.parallel_tool_calls === false ? { disable_parallel_tool_use: true } : {};
  if (choice === undefined) return request.parallel_tool_calls === false && request.tools ? { type: 'auto', ...noParallel } : undefined;
  if (choice === 'none') return { type: 'none' };
  if (choice === 'auto') return { type: 'auto', ...noParallel };
  if (choice === 'required') return { type: 'any', ...noParallel };
  return { type: 'tool', name: choice.function.name, ...noParallel };
}

type Turn = { role: string; content: Block[] };

const THINKING_BLOCKS = new Set(['thinking', 'redacted_thinking']);

/**
 * The index of the first message of the assistant turn the conversation ends in, or undefined when
 * it ends with the user's own word (the assistant's turn is the one asked for). To Anthropic a tool
 * loop (tool_use, then tool results, then the next tool_use …) is one assistant turn; it ends only
 * at a user message that is not tool results. Claude Code puts reminders beside its tool results,
 * and that is still the loop.
 */
function finalAssistantTurn(turns: readonly Turn[]): number | undefined {
  let first: number | undefined;
  for (let i = turns.length - 1; i >= 0; i--) {
    const turn = turns[i]!;
    if (turn.role === 'user' && !turn.content.some((block) => block.type === 'tool_result')) break;
    if (turn.role === 'assistant') first = i;
  }
  return first;
}

/**
 * Anthropic's rule for thinking and tool use: with thinking on, the final assistant turn must start
 * with a thinking block; with it off, that turn must hold none. A turn whose thinking the gateway
 * could not send back (the firewall left it out, or another provider wrote it unsigned) is answered
 * without thinking rather than refused: thinking is off for this request only, and comes back with
 * the next turn the user starts.
 */
function thinkingFitsTheLoop(turns: Turn[]): boolean {
  const at = finalAssistantTurn(turns);
  if (at === undefined || THINKING_BLOCKS.has(turns[at]!.content[0]?.type as string)) return true;
  for (let i = at; i < turns.length; i++) {
    const turn = turns[i]!;
    if (turn.role !== 'assistant') continue;
    const kept = turn.content.filter((block) => !THINKING_BLOCKS.has(block.type as string));
    // An assistant message of thinking alone cannot sit inside a tool loop; it is left as it came.
    if (kept.length > 0) turn.content = kept;
  }
  return false;
}

export interface MessagesRequest {
  body: string;
  /** What was changed on the way, for the trace. */
  notes: string[];
}

/** The Messages body for a chat request. */
export function messagesRequestOf(target: Pick<UpstreamTarget, 'upstreamModel' | 'maxOutputTokens' | 'provider'>, request: UpstreamChatRequest, stream: boolean): MessagesRequest {
  const notes: string[] = [];
  const { system, messages } = conversation(request.messages);
  const maxTokens = request.max_completion_tokens ?? request.max_tokens ?? target.maxOutputTokens ?? DEFAULT_MAX_TOKENS;
  const body: Record<string, unknown> = { model: target.upstreamModel, max_tokens: maxTokens, messages };
  if (system !== undefined) body.system = system;
  if (request.stop !== undefined) body.stop_sequences = typeof request.stop === 'string' ? [request.stop] : request.stop;
  if (request.tools && request.tools.length > 0) {
    body.tools = request.tools.map((tool) => ({
      name: tool.function.name,
      ...(tool.function.description !== undefined ? { description: tool.function.description } : {}),
      input_schema: tool.function.parameters ?? { type: 'object', properties: {} },
      ...(tool.cache_control !== undefined ? { cache_control: { ...tool.cache_control } } : {}),
    }));
    const choice = toolChoiceOf(request);
    if (choice) body.tool_choice = choice;
  }
  let thinking = thinkingOf(request, maxTokens);
  if (thinkingIsOn(thinking) && !thinkingFitsTheLoop(messages)) {
    thinking = undefined;
    notes.push(
      `thinking was left out of the request to ${target.provider.id}: the tool loop it continues began without a signed thinking block ` +
        '(the firewall left it out, or another provider wrote it), and Anthropic refuses thinking then',
    );
  }
  const forced = (body.tool_choice as { type?: string } | undefined)?.type;
  if (thinkingIsOn(thinking) && (forced === 'any' || forced === 'tool')) {
    // The caller's forced tool is what the request is for; thinking is how it is answered.
    thinking = undefined;
    notes.push(`thinking was left out of the request to ${target.provider.id}: Anthropic refuses thinking with a tool_choice that forces a tool (${forced})`);
  }
  if (thinking !== undefined) body.thinking = thinking;
  if (request.output_config?.effort !== undefined) body.output_config = { effort: request.output_config.effort };
  if (thinkingIsOn(thinking)) {
    // Routing drops them when the request asks for thinking; this holds for a request that reaches here with both.
    const unsent = (ANTHROPIC_LIMITS.notWithThinking ?? []).filter((parameter) => request[parameter] !== undefined);
    if (unsent.length > 0) notes.push(`${unsent.join(' and ')} ${unsent.length > 1 ? 'were' : 'was'} not sent to ${target.provider.id}: Anthropic takes none with thinking`);
  } else {
    if (request.temperature !== undefined) {
      // Anthropic's range is 0 to 1, OpenAI's 0 to 2: above 1 is Anthropic's most random.
      body.temperature = Math.min(1, request.temperature);
      if (request.temperature > 1) notes.push(`temperature ${request.temperature} was sent to ${target.provider.id} as 1: Anthropic takes 0 to 1`);
    }
    if (request.top_k !== undefined) body.top_k = request.top_k;
  }
  if (request.top_p !== undefined) {
    // Anthropic's recent models refuse both (400, "cannot both be specified"); it advises one only.
    if (body.temperature !== undefined) notes.push(`top_p was not sent to ${target.provider.id} beside temperature: Anthropic's models take one of the two`);
    else body.top_p = request.top_p;
  }
  if (stream) body.stream = true;
  return { body: JSON.stringify(body), notes };
}
