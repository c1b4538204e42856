import type { AnswerRun, PromptUsage, UpstreamChoice, UpstreamChunk, UpstreamCompletion, UpstreamUsage } from './providers/types.js';

/**
 * Rebuilds the whole completion from a stream's chunks, so a streamed answer can be replayed,
 * cached, traced and counted exactly like a JSON one.
 */
export class CompletionAccumulator {
  /** Each choice, with its content, refusal and tool calls in the order they came (kept as `order` when unusual). */
  private readonly choices = new Map<number, { choice: UpstreamChoice; runs: AnswerRun[] }>();
  usage: UpstreamUsage | undefined;
  private promptUsage: PromptUsage | undefined;

  /** The provider's count of the prompt so far: its usage's, or what it gave before the answer. */
  get promptCount(): PromptUsage | undefined {
    const usage = this.usage ?? this.promptUsage;
    return usage ? { prompt_tokens: usage.prompt_tokens, ...(usage.prompt_tokens_details ? { prompt_tokens_details: usage.prompt_tokens_details } : {}) } : undefined;
  }

  add(chunk: UpstreamChunk): void {
    if (chunk.usage) this.usage = chunk.usage;
    if (chunk.promptUsage) this.promptUsage = chunk.promptUsage;
    for (const { index, delta, finish_reason: finish, stop_sequence: stopSequence } of chunk.choices) {
      let entry = this.choices.get(index);
      if (!entry) {
        entry = { choice: { index, message: { role: 'assistant', content: null }, finish_reason: null }, runs: [] };
        this.choices.set(index, entry);
      }
      const { choice, runs } = entry;
      if (typeof delta.content === 'string') {
        choice.message.content = (choice.message.content ?? '') + delta.content;
        if (delta.content !== '') addContent(runs, delta.content.length);
      }
      if (typeof delta.refusal === 'string') {
        choice.message.refusal = (choice.message.refusal ?? '') + delta.refusal;
        if (delta.refusal !== '') addRefusal(runs, delta.refusal.length);
      }
      if (typeof delta.reasoning_content === 'string') choice.message.reasoning_content = (choice.message.reasoning_content ?? '') + delta.reasoning_content;
      if (delta.thinking_blocks) (choice.message.thinking_blocks ??= []).push(...delta.thinking_blocks);
      for (const call of delta.tool_calls ?? []) {
        const calls = (choice.message.tool_calls ??= []);
        const existing = calls[call.index];
        if (!existing) {
          runs.push({ tool_call: call.index });
          calls[call.index] = {
            id: call.id ?? '',
            type: 'function',
            function: { name: call.function?.name ?? '', arguments: call.function?.arguments ?? '' },
          };
        } else {
          if (call.id) existing.id = call.id;
          // A name is given once; a provider that repeats it does not make it longer.
          if (call.function?.name && !existing.function.name) existing.function.name = call.function.name;
          if (call.function?.arguments) existing.function.arguments += call.function.arguments;
        }
      }
      if (finish) choice.finish_reason = finish;
      if (stopSequence !== undefined) choice.stop_sequence = stopSequence;
    }
  }

  completion(id: string, created: number): UpstreamCompletion {
    const choices = [...this.choices.values()]
      .sort((a, b) => a.choice.index - b.choice.index)
      .map(({ choice, runs }) => (inUsualOrder(runs) ? choice : { ...choice, message: { ...choice.message, order: [...runs] } }))
      // Streams open with an empty content delta; a turn of tool calls alone has content null in
      // JSON (as OpenAI's has), also when it is replayed or served from the cache.
      .map((choice) => (choice.message.content === '' && choice.message.tool_calls?.length ? { ...choice, message: { ...choice.message, content: null } } : choice));
    // A stream closed before its usage came is billed for the prompt the provider said it read.
    return { id, created, choices, ...(this.usage ? { usage: this.usage } : this.promptUsage ? { promptUsage: this.promptUsage } : {}) };
  }
}

// Content and refusal count into the last run when it is of their kind, else start one.
export function addContent(runs: AnswerRun[], length: number): void {
  const last = runs[runs.length - 1];
  if (last !== undefined && 'content' in last) last.content += length;
  else runs.push({ content: length });
}

function addRefusal(runs: AnswerRun[], length: number): void {
  const last = runs[runs.length - 1];
  if (last !== undefined && 'refusal' in last) last.refusal += length;
  else runs.push({ refusal: length });
}

/** Whether the runs come as a whole answer holds them: the content, the refusal, then the calls by index. */
export function inUsualOrder(runs: readonly AnswerRun[]): boolean {
  let stage = 0;
  let nextCall = 0;
  for (const run of runs) {
    if ('content' in run) {
      if (stage > 0) return false;
      stage = 1;
    } else if ('refusal' in run) {
      if (stage > 1) return false;
      stage = 2;
    } else {
      if (run.tool_call !== nextCall++) return false;
      stage = 3;
    }
  }
  return true;
}

/**
 * A stored completion as stream chunks (replays and cache hits): per choice, one delta with all of
 * it, or, when its stream gave content, refusal and calls in another order (`order`), one delta
 * per run in that order, so a replay streams the items the first stream did; then its finish.
 */
export function chunksOf(completion: UpstreamCompletion): UpstreamChunk[] {
  return completion.choices.flatMap((choice) => {
    const { message } = choice;
    const opening = {
      role: 'assistant' as const,
      ...(message.thinking_blocks?.length ? { thinking_blocks: message.thinking_blocks } : {}),
      ...(message.reasoning_content ? { reasoning_content: message.reasoning_content } : {}),
    };
    const deltas: UpstreamChunk['choices'][number]['delta'][] = message.order
      ? [opening, ...runDeltas(message, message.order)]
      : [
          {
            ...opening,
            content: message.content,
            ...(message.refusal ? { refusal: message.refusal } : {}),
            ...(message.tool_calls ? { tool_calls: message.tool_calls.map((call, index) => ({ index, ...call })) } : {}),
          },
        ];
    return [
      ...deltas.map((delta) => ({ choices: [{ index: choice.index, delta, finish_reason: null }] })),
      {
        choices: [
          {
            index: choice.index,
            delta: {},
            finish_reason: choice.finish_reason ?? 'stop',
            ...(choice.stop_sequence !== undefined ? { stop_sequence: choice.stop_sequence } : {}),
          },
        ],
      },
    ];
  });
}

function runDeltas(message: UpstreamChoice['message'], order: readonly AnswerRun[]): UpstreamChunk['choices'][number]['delta'][] {
  let content = 0;
  let refusal = 0;
  return order.map((run) => {
    if ('content' in run) return { content: (message.content ?? '').slice(content, (content += run.content)) };
    if ('refusal' in run) return { refusal: (message.refusal ?? '').slice(refusal, (refusal += run.refusal)) };
    const call = message.tool_calls?.[run.tool_call];
    return { tool_calls: call ? [{ index: run.tool_call, ...call }] : [] };
  });
}

/** Whether `order` covers exactly this text, refusal and these calls, each call once (a stored order always does). */
export function orderAccountsFor(order: readonly AnswerRun[], textLength: number, refusalLength: number, calls: number): boolean {
  const called = new Set<number>();
  for (const run of order) {
    if ('content' in run) textLength -= run.content;
    else if ('refusal' in run) refusalLength -= run.refusal;
    else if (run.tool_call >= calls || called.has(run.tool_call)) return false;
    else called.add(run.tool_call);
  }
  return textLength === 0 && refusalLength === 0 && called.size === calls;
}
