import { validationFailed } from '../errors.js';
import type { ChatCompletionRequest } from '../generated/openapi.js';
import { expandChain, type Catalog, type ChatModel } from './catalog.js';
import { chainOf } from './routing.js';
import { countPromptPartsPaced } from './tokens.js';

// Coding agents ask the doors for the most a model can write (Claude Code's max_tokens, Codex's
// max_output_tokens), more than the context leaves after the prompt; every provider refuses such
// a cap. What the context leaves is the real most, so a door lowers the cap to it (CONTRACT.md,
// "Coding agents"). A prompt that leaves no room for any answer is refused, by the doors and by chat.

/** The chat model of the chain with the smallest (or the largest) context, or undefined when the chain names none we know. */
function contextModel(catalog: Catalog, chain: string[], pick: 'smallest' | 'largest'): ChatModel | undefined {
  let found: ChatModel | undefined;
  for (const id of expandChain(catalog, chain)) {
    const model = catalog.models.get(id);
    if (model?.type !== 'chat') continue;
    const context = (model as ChatModel).contextLength;
    if (found === undefined || (pick === 'smallest' ? context < found.contextLength : context > found.contextLength)) found = model as ChatModel;
  }
  return found;
}

// Per-message overheads the tokenizer adds beyond the text (role, separators, reply priming).
const SAFETY_TOKENS = 64;

function jsonLength(chat: Pick<ChatCompletionRequest, 'messages' | 'tools'>): number {
  return Buffer.byteLength(JSON.stringify(chat.messages)) + (chat.tools ? Buffer.byteLength(JSON.stringify(chat.tools)) : 0);
}

/**
 * The prompt's tokens, counted only when it might not leave `cap` tokens of `model`'s context (undefined
 * otherwise); a prompt that leaves no room at all is refused on `promptField`, as Anthropic and OpenAI
 * refuse it: lowered to nothing, the cap would have it sent, billed, and answered with nothing.
 */
async function promptBeyondRoom(model: ChatModel, chat: ChatCompletionRequest, cap: number | undefined, promptField: string): Promise<number | undefined> {
  const context = model.contextLength;
  // A token is at least one byte of the JSON it comes from, so a cap that fits beside the JSON's
  // length fits beside the prompt: only the rest are counted with the tokenizer, paced (a prompt
  // may be megabytes). Without a cap (Codex sends none) only the prompt is checked.
  if ((cap ?? 0) + jsonLength(chat) + SAFETY_TOKENS <= context) return undefined;
  const parts = await countPromptPartsPaced(chat);
  const prompt = parts.messages + parts.tools;
  if (prompt >= context) {
    const beyond = `more than the ${context}-token context of ${model.id} leaves room for an answer`;
    const errors: Record<string, string[]> = {};
    // Tools that take most of the prompt are named first (the SDK's `param`): a developer sent to
    // the messages looked for the tokens in the wrong place.
    if (parts.tools >= parts.messages) errors.tools = [`hold about ${parts.tools} of the prompt's ${prompt} tokens, ${beyond}`];
    errors[promptField] = [`holds about ${prompt} tokens${parts.tools > 0 ? ` (the tools ${parts.tools} of them)` : ''}, ${beyond}`];
    // Anthropic's words for it, which Claude Code reads to compact the conversation.
    throw validationFailed(errors, `prompt is too long: ${prompt} tokens > ${context - 1} maximum (${model.id})`, 'context_length_exceeded');
  }
  return prompt;
}

/**
 * A chat prompt that no model of its chain has room to answer, refused on `promptField` (OpenAI
 * answers 400 context_length_exceeded): sent on, every provider would refuse it, after the firewall,
 * retrieval and routing ran. A prompt that some fallback can take goes on.
 */
export async function refusePromptBeyondContext(catalog: Catalog, chat: ChatCompletionRequest, promptField: string): Promise<void> {
  const model = contextModel(catalog, chainOf(chat).chain, 'largest');
  if (model !== undefined) await promptBeyondRoom(model, chat, undefined, promptField);
}

/**
 * The cap lowered to what the smallest context of the chain leaves after the prompt, with the
 * trace's note saying so; undefined when `cap` fits, or there is none (or the chain names no model
 * we know). A prompt that leaves no room at all is refused on `fields.prompt`.
 */
export async function capWithinContext(
  catalog: Catalog,
  chat: ChatCompletionRequest,
  cap: number | undefined,
  fields: { cap: string; prompt: string },
): Promise<{ cap: number; note: string } | undefined> {
  const model = contextModel(catalog, chainOf(chat).chain, 'smallest');
  if (model === undefined) return undefined;
  const prompt = await promptBeyondRoom(model, chat, cap, fields.prompt);
  if (prompt === undefined) return undefined;
  const room = model.contextLength - prompt;
  if (cap === undefined || cap <= room) return undefined;
  return { cap: room, note: `${fields.cap} ${cap} was lowered to ${room}, what the model's context leaves after the prompt` };
}
