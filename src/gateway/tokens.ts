// Token counts from a real tokenizer: OpenAI's o200k_base (GPT-4o, GPT-4.1, GPT-5, o-series),
// through gpt-tokenizer. Only that encoding's module is imported (`gpt-tokenizer/encoding/
// o200k_base`), not the package root, which would also load the cl100k tables and the model
// map. Loading it takes ~0.2 s and ~55 MB RSS (~20 MB heap) once per process, so it is loaded on
// first use: a web process whose providers report usage never needs it.
//
// The figures are what the gateway bills when a provider reports no usage, and what the local
// models report. For other vendors' models (Mistral, Llama, Claude) they are only an estimate:
// those tokenizers differ, and none of them is bundled.
//
// Conventions:
// - Text that looks like a special token (`<|endoftext|>`) is counted as the plain text it is
//   (7 tokens), never refused: user input may contain anything.
// - Speed (without the tokenizer's merge cache: see o200k()): ordinary text is linear (100,000 characters of prose ≈ 7 ms, of base64 ≈ 25–75 ms).
//   BPE is superlinear within one pre-token, and one run of letters without a break is one
//   pre-token: 100,000 × "a" takes 8 s, 20,000 CJK characters 1.5 s. So every run of more than
//   MAX_RUN letters, punctuation or whitespace is counted in MAX_RUN-character slices. That
//   changes the count by at most one token per slice, and only for such runs (no word of a
//   European language has 256 letters); CJK and Thai text, which has no spaces, is affected.
import { createRequire } from 'node:module';
import { giveWay } from '../firewall/slices.js';
import type { ChatMessage, UpstreamCompletion } from './providers/types.js';
import { anthropicPartText, isAnthropicPart } from './providers/parts.js';

type Encoding = typeof import('gpt-tokenizer/encoding/o200k_base');

// A synchronous require of the package's CommonJS build keeps every count synchronous; an import()
// would block the event loop as long, evaluating the same tables.
const requireFromHere = createRequire(import.meta.url);
let encoding: Encoding | undefined;
const MERGE_CACHE_PIECES = 500;

function o200k(): Encoding {
  if (!encoding) {
    encoding = requireFromHere('gpt-tokenizer/encoding/o200k_base') as Encoding;
    // Its merge cache (a Map of 100,000 pieces, each hit moved to the end) costs each hit in
    // proportion to its size once full: after a few prompts of distinct words, 1 MB of one repeated
    // piece (`'\" `) held the event loop for 36 s. At 500 pieces that is 0.2 s, and prose counts
    // about as fast as with the large cache (without any, three times slower); distinct words and
    // base64 count at about 1 µs a character either way: npm run bench:tokens.
    encoding.setMergeCacheSize(MERGE_CACHE_PIECES);
  }
  return encoding;
}

/** The tokenizer's encoding name. */
export const TOKEN_ENCODING = 'o200k_base';

/** OpenAI's chat convention: each message costs its content plus this many tokens. */
export const TOKENS_PER_MESSAGE = 3;
/** …a message with a `name` one more… */
export const TOKENS_PER_NAME = 1;
/** …and every reply is primed with `<|start|>assistant<|message|>`: 3 tokens. */
export const REPLY_PRIMING_TOKENS = 3;
/**
 * A fixed estimate for one attachment (image, audio or file content part): what OpenAI charges
 * for a low-detail image. The real cost depends on the provider, the resolution and the length,
 * which the gateway does not decode; the data itself is never counted as text.
 */
export const ATTACHMENT_TOKENS = 85;

/** Runs longer than this (letters, punctuation or whitespace) are counted in slices of it. */
export const MAX_RUN = 256;

// Special-token lookalikes are plain text (the library refuses them by default).
const AS_TEXT = { disallowedSpecial: new Set<string>() };

// Runs that the o200k pre-tokeniser keeps as one piece: letters, punctuation, whitespace. The
// lookbehinds make each alternative match only at the start of a run, so the scan stays linear
// inside runs shorter than MAX_RUN. Each matches only the run's first MAX_RUN + 1 characters: an
// unbounded quantifier over a run of millions of characters overflowed the regex engine's stack
// (a RangeError, answered 500). The rest of the run is taken in bounded steps by its `rest` regex.
const RUN_KINDS = [
  { start: `(?<![\\p{L}\\p{M}])[\\p{L}\\p{M}]`, rest: /[\p{L}\p{M}]{1,4096}/uy },
  { start: `(?<![^\\s\\p{L}\\p{N}])[^\\s\\p{L}\\p{N}]`, rest: /[^\s\p{L}\p{N}]{1,4096}/uy },
  { start: `(?<!\\s)\\s`, rest: /\s{1,4096}/uy },
];
const LONG_RUN = new RegExp(RUN_KINDS.map((kind) => `(${kind.start}{${MAX_RUN + 1}})`).join('|'), 'gu');

/** Where the long run that `match` begins ends. */
function runEnd(text: string, match: RegExpExecArray): number {
  const rest = RUN_KINDS[match.findIndex((group, i) => i > 0 && group !== undefined) - 1]!.rest;
  let end = match.index + match[0].length;
  for (;;) {
    rest.lastIndex = end;
    const more = rest.exec(text);
    if (!more) return end;
    end += more[0].length;
  }
}

/** The text in the pieces it is tokenised in: itself, unless it has runs longer than MAX_RUN. */
function pieces(text: string): string[] {
  if (text.length <= MAX_RUN) return [text];
  LONG_RUN.lastIndex = 0;
  let match = LONG_RUN.exec(text);
  if (!match) return [text];
  const out: string[] = [];
  let start = 0;
  while (match) {
    if (match.index > start) out.push(text.slice(start, match.index));
    const end = runEnd(text, match);
    for (let i = match.index; i < end; ) {
      let j = Math.min(i + MAX_RUN, end);
      // Never split a surrogate pair.
      if (j < end && isHighSurrogate(text.charCodeAt(j - 1))) j--;
      out.push(text.slice(i, j));
      i = j;
    }
    start = end;
    LONG_RUN.lastIndex = end;
    match = LONG_RUN.exec(text);
  }
  if (start < text.length) out.push(text.slice(start));
  return out;
}

function isHighSurrogate(code: number): boolean {
  return code >= 0xd800 && code <= 0xdbff;
}

/** Tokens in a text. */
export function countTokens(text: string): number {
  if (text.length === 0) return 0;
  let n = 0;
  for (const piece of pieces(text)) n += o200k().countTokens(piece, AS_TEXT);
  return n;
}

/** Text counted between two turns of the event loop: about 8 ms of the tokenizer. */
export const PACED_CHARS = 64 * 1024;
// A space between a letter or digit and a letter: the pre-tokeniser starts a word piece there
// (" word"), and no piece spans it, so the text on either side counts as it does in the whole.
const WORD_START = /(?<=[\p{L}\p{N}]) (?=\p{L})/gu;

/**
 * Tokens in each text, as countTokens counts them, giving way to other requests every 64 KiB:
 * a batch of megabytes (an embeddings call) takes over a second to count. A long text is counted
 * in segments cut where a word piece starts.
 */
export async function countTokensPaced(texts: readonly string[], pause: () => Promise<void> = giveWay): Promise<number[]> {
  const counts: number[] = [];
  let unpaused = 0;
  for (const text of texts) {
    let n = 0;
    for (let start = 0; start < text.length; ) {
      const end = segmentEnd(text, start);
      n += countTokens(text.slice(start, end));
      unpaused += end - start;
      start = end;
      if (unpaused >= PACED_CHARS) {
        unpaused = 0;
        await pause();
      }
    }
    counts.push(n);
  }
  return counts;
}

/**
 * Where the segment from `start` ends: the text's end, or the first word start past PACED_CHARS,
 * looked for within the next PACED_CHARS. A text without one there (a run of letters, CJK without
 * spaces, base64) is cut where that window ends, which changes its count by a token at most;
 * looked for to the text's end, each segment of a run of megabytes would scan all the rest.
 */
function segmentEnd(text: string, start: number): number {
  if (text.length - start <= PACED_CHARS) return text.length;
  const from = start + PACED_CHARS;
  const windowEnd = Math.min(text.length, from + PACED_CHARS);
  // From one character before, which the lookbehind reads.
  const window = text.slice(from - 1, windowEnd);
  WORD_START.lastIndex = 1;
  const cut = WORD_START.exec(window);
  if (cut) return from - 1 + cut.index;
  return windowEnd < text.length && isHighSurrogate(text.charCodeAt(windowEnd - 1)) ? windowEnd - 1 : windowEnd;
}

/**
 * The longest prefix of `text` that takes at most `maxTokens` tokens (the start of what a model
 * would have written had it stopped after `maxTokens` tokens). Never splits a character.
 */
export function truncateToTokens(text: string, maxTokens: number): string {
  const max = Math.max(0, Math.floor(maxTokens));
  if (countTokens(text) <= max) return text;
  // A prefix is normally counted as its pieces were; when a cut shortens a long run below
  // MAX_RUN it is counted whole and may come out a token longer, so tighten until it fits.
  for (let budget = max; budget > 0; budget--) {
    const prefix = tokenPrefix(text, budget);
    if (countTokens(prefix) <= max) return prefix;
  }
  return '';
}

function tokenPrefix(text: string, max: number): string {
  let used = 0;
  let prefix = '';
  for (const piece of pieces(text)) {
    const tokens = o200k().encode(piece, AS_TEXT);
    if (used + tokens.length <= max) {
      used += tokens.length;
      prefix += piece;
      continue;
    }
    // The piece does not fit whole: take its first tokens, backing off while the decoded text
    // ends inside a character (a partial UTF-8 sequence decodes to U+FFFD) or re-tokenises longer.
    for (let k = max - used; k > 0; k--) {
      const part = o200k().decode(tokens.slice(0, k));
      if (piece.startsWith(part) && o200k().countTokens(part, AS_TEXT) <= k) return prefix + part;
    }
    return prefix;
  }
  return prefix;
}

type ContentPart = Exclude<ChatMessage['content'], string | null | undefined>[number];

/**
 * What a chat's prompt is counted from, by OpenAI's convention (the cookbook's
 * `num_tokens_from_messages`): per message TOKENS_PER_MESSAGE + its role + its content (text parts,
 * documents and search results as text, each attachment ATTACHMENT_TOKENS) + (name +
 * TOKENS_PER_NAME) + its tool calls (function name + arguments) + its tool_call_id; then
 * REPLY_PRIMING_TOKENS for the reply. Tool definitions and response_format schemas are not
 * counted. `fixed` is what takes no tokenizing.
 */
function promptParts(messages: readonly ChatMessage[]): { texts: string[]; fixed: number } {
  const texts: string[] = [];
  let fixed = REPLY_PRIMING_TOKENS;
  for (const m of messages) {
    fixed += TOKENS_PER_MESSAGE;
    texts.push(m.role);
    const content = m.content;
    if (typeof content === 'string') texts.push(content);
    else if (content) {
      for (const part of content as ContentPart[]) {
        if (part.type === 'text') texts.push(part.text ?? '');
        else if (isAnthropicPart(part)) texts.push(anthropicPartText(part) ?? '');
        else fixed += ATTACHMENT_TOKENS;
      }
    }
    if (m.name !== undefined) {
      texts.push(m.name);
      fixed += TOKENS_PER_NAME;
    }
    if (m.tool_call_id !== undefined) texts.push(m.tool_call_id);
    for (const call of m.tool_calls ?? []) texts.push(call.function.name, call.function.arguments);
  }
  return { texts, fixed };
}

/** Prompt tokens of a chat (promptParts). */
export function countMessageTokens(messages: readonly ChatMessage[]): number {
  const { texts, fixed } = promptParts(messages);
  let n = fixed;
  for (const text of texts) n += countTokens(text);
  return n;
}

/** countMessageTokens, giving way to other requests every 64 KiB: a prompt of megabytes. */
export async function countMessageTokensPaced(messages: readonly ChatMessage[]): Promise<number> {
  const { texts, fixed } = promptParts(messages);
  return fixed + (await countTokensPaced(texts)).reduce((sum, n) => sum + n, 0);
}

/** A prompt as a provider gets it: its messages and the tool definitions beside them. */
export interface PromptWithTools {
  messages: readonly ChatMessage[];
  tools?: readonly unknown[] | undefined;
}

/** The prompt's tokens as the tokenizer counts them, tool definitions included. */
export function countPromptTokens(prompt: PromptWithTools): number {
  return countMessageTokens(prompt.messages) + (prompt.tools ? countTokens(JSON.stringify(prompt.tools)) : 0);
}

/** countPromptTokens, giving way to other requests every 64 KiB: a prompt may be megabytes. */
export async function countPromptTokensPaced(prompt: PromptWithTools): Promise<number> {
  const { messages, tools } = await countPromptPartsPaced(prompt);
  return messages + tools;
}

/** `countPromptTokensPaced`, the messages' and the tools' shares apart. */
export async function countPromptPartsPaced(prompt: PromptWithTools): Promise<{ messages: number; tools: number }> {
  const tools = prompt.tools ? (await countTokensPaced([JSON.stringify(prompt.tools)]))[0]! : 0;
  return { messages: await countMessageTokensPaced(prompt.messages), tools };
}

/**
 * Whether a prompt's message texts (content and tool-call arguments) reach `chars` characters,
 * read no further than that: a prompt long enough that tokenizing it at once would hold the event
 * loop (PACED_CHARS), or that a local model answers off it (providers/local/thread.ts).
 */
export function promptReaches(messages: readonly ChatMessage[], chars: number): boolean {
  let seen = 0;
  for (const m of messages) {
    const content = m.content;
    if (typeof content === 'string') seen += content.length;
    else if (content) for (const part of content as ContentPart[]) seen += part.type === 'text' ? (part.text ?? '').length : 0;
    for (const call of m.tool_calls ?? []) seen += call.function.arguments.length;
    if (seen >= chars) return true;
  }
  return false;
}

/** Whether counting a prompt at once would hold the event loop: count it paced then. */
export const isLongPrompt = (messages: readonly ChatMessage[]): boolean => promptReaches(messages, PACED_CHARS);

/** What a reply is made of: a choice's message, or a streamed reply put back together. */
export interface CompletionMessageLike {
  content?: string | null;
  refusal?: string | null;
  reasoning_content?: string;
  /** A native provider's thinking, which it bills as output. */
  thinking_blocks?: readonly { thinking?: string }[];
  tool_calls?: readonly { function: { name: string; arguments: string } }[];
}

/** Completion tokens of one choice: its reasoning or thinking, its content (or refusal) + each tool call's name and arguments. */
export function countCompletionTokens(message: CompletionMessageLike): number {
  let n = countTokens(message.content ?? '') + countTokens(message.refusal ?? '') + countTokens(message.reasoning_content ?? '');
  for (const block of message.thinking_blocks ?? []) n += countTokens(block.thinking ?? '');
  for (const call of message.tool_calls ?? []) {
    n += countTokens(call.function.name) + countTokens(call.function.arguments);
  }
  return n;
}

/** What the model can have read and written for a request: its context, and the answer cap asked for. */
export interface UsageBounds {
  contextLength: number;
  /** max_completion_tokens or max_tokens, when the request gave one. */
  cap?: number | undefined;
  choices: number;
}

/**
 * Why a provider's usage cannot be the count of this answer, or undefined when it can: more prompt
 * tokens than the model's context, or more answer tokens than the choices could write (past the
 * context, or past twice the cap asked for and 64 tokens more: providers overshoot a cap by a few).
 * Such a count is no bill: the answer is counted with the tokenizer instead.
 */
export function usageBeyondBounds(completion: Pick<UpstreamCompletion, 'usage' | 'promptUsage'>, bounds: UsageBounds): string | undefined {
  const prompt = completion.usage?.prompt_tokens ?? completion.promptUsage?.prompt_tokens;
  if (prompt !== undefined && prompt > bounds.contextLength) {
    return `the provider reported ${prompt} prompt tokens, more than the model's context of ${bounds.contextLength}`;
  }
  const answer = completion.usage?.completion_tokens;
  if (answer === undefined) return undefined;
  const perChoice = bounds.cap !== undefined ? Math.min(bounds.contextLength, 2 * bounds.cap + 64) : bounds.contextLength;
  if (answer > bounds.choices * perChoice) {
    return `the provider reported ${answer} completion tokens, more than ${bounds.choices} ${bounds.choices === 1 ? 'answer' : 'answers'} of this request can hold`;
  }
  return undefined;
}

/**
 * The tokens an answer is billed for: the provider's usage, else counted with the tokenizer, the
 * tool definitions sent beside the messages included (a coding agent's are most of its prompt).
 */
export function answerTokens(completion: UpstreamCompletion, sent: PromptWithTools): { prompt: number; completion: number } {
  return {
    prompt: completion.usage?.prompt_tokens ?? completion.promptUsage?.prompt_tokens ?? countPromptTokens(sent),
    completion: completion.usage?.completion_tokens ?? completion.choices.reduce((sum, choice) => sum + countCompletionTokens(choice.message), 0),
  };
}
