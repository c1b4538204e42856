import { validationFailed } from '../errors.js';
import type { ChatCompletionRequest } from '../generated/openapi.js';
import { expandChain, type Catalog, type ChatModel } from '../gateway/catalog.js';
import { chainOf } from '../gateway/routing.js';
import { countPromptTokens } from '../gateway/tokens.js';

// Coding agents ask the doors for the most a model can write (Claude Code's max_tokens, Codex's
// max_output_tokens), more than the context leaves after the prompt; every provider refuses such
// a cap. What the context leaves is the real most, so a door lowers the cap to it (CONTRACT.md,
// "Coding agents").

/** The chat model of the chain with the smallest context, or undefined when the chain names none we know. */
function smallestContextModel(catalog: Catalog, chain: string[]): ChatModel | undefined {
  let smallest: ChatModel | undefined;
  for (const id of expandChain(catalog, chain)) {
    const model = catalog.models.get(id);
    if (model?.type === 'chat' && (smallest === undefined || (model as ChatModel).contextLength < smallest.contextLength)) smallest = model as ChatModel;
  }
  return smallest;
}

// Per-message overheads the tokenizer adds beyond the text (role, separators, reply priming).
const SAFETY_TOKENS = 64;

function jsonLength(chat: Pick<ChatCompletionRequest, 'messages' | 'tools'>): number {
  return Buffer.byteLength(JSON.stringify(chat.messages)) + (chat.tools ? Buffer.byteLength(JSON.stringify(chat.tools)) : 0);
}

/**
 * The cap lowered to what the smallest context of the chain leaves after the prompt, with the
 * trace's note saying so; undefined when `cap` fits, or there is none (or the chain names no model we know). A
 * prompt that leaves no room at all is refused on `fields.prompt`, as Anthropic and OpenAI refuse
 * it: lowered to nothing, it would be sent, billed, and answered with nothing.
 */
export function capWithinContext(
  catalog: Catalog,
  chat: ChatCompletionRequest,
  cap: number | undefined,
  fields: { cap: string; prompt: string },
): { cap: number; note: string } | undefined {
  const model = smallestContextModel(catalog, chainOf(chat).chain);
  if (model === undefined) return undefined;
  const context = model.contextLength;
  // A token is at least one byte of the JSON it comes from, so a cap that fits beside the JSON's
  // length fits beside the prompt: only the rest are counted with the tokenizer. Without a cap
  // (Codex sends none) only the prompt is checked.
  if ((cap ?? 0) + jsonLength(chat) + SAFETY_TOKENS <= context) return undefined;
  const prompt = countPromptTokens(chat);
  if (prompt >= context) {
    throw validationFailed({
      [fields.prompt]: [`holds about ${prompt} tokens, more than the ${context}-token context of ${model.id} leaves room for an answer`],
    });
  }
  const room = context - prompt;
  if (cap === undefined || cap <= room) return undefined;
  return { cap: room, note: `${fields.cap} ${cap} was lowered to ${room}, what the model's context leaves after the prompt` };
}
