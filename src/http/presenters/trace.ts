import { KNOWLEDGE_HEADER } from '../../memory/retrieval.js';
import type { TraceDetailRow, TraceSummaryRow } from '../../traces/store.js';

// A trace as the explorer lists it (no input or output) and as it shows one.

const round1 = (value: number) => Math.round(value * 10) / 10;

export function presentTraceSummary(row: TraceSummaryRow) {
  const credits = { base: Number(row.credits_base), services: Number(row.credits_services), total: Number(row.credits_total) };
  return {
    id: row.id,
    created_at: row.created_at.toISOString(),
    kind: row.kind,
    model: row.model,
    provider: row.provider,
    status: row.status,
    thread: row.thread,
    tags: row.tags,
    application: row.application,
    user: row.end_user,
    name: row.name,
    cache: row.cache,
    stream: row.stream,
    latency_ms: Math.round(row.latency_ms),
    // A failed call is traced but not billed: it has no usage to show. A stream the client closed
    // (499) or the web process stopped at shutdown (503) is billed for what was streamed, and shows it.
    usage:
      row.status < 400 || row.status === CLIENT_CLOSED || credits.total > 0
        ? {
            prompt_tokens: row.prompt_tokens,
            completion_tokens: row.completion_tokens,
            total_tokens: row.prompt_tokens + row.completion_tokens,
            cached_tokens: row.cached_tokens,
            cache_write_tokens: row.cache_write_tokens,
            credits,
          }
        : null,
  };
}

const CLIENT_CLOSED = 499;

// Routing notes read "dropped <parameter> for <model> via <provider>: <why>" (gateway/routing.ts).
const DROPPED = /^dropped (\S+) for (\S+) via (\S+):/;

/** The parameters dropped for the candidate that answered (notes list them for every candidate). */
function droppedParameters(row: TraceDetailRow): string[] {
  const dropped = new Set<string>();
  for (const note of row.notes) {
    const match = DROPPED.exec(note);
    if (match && match[2] === row.model && match[3] === row.provider) dropped.add(match[1]!);
  }
  return [...dropped];
}

const WITHHELD_KNOWLEDGE = '[withheld: memory retrieved into this request; reading it needs the scope memory.read]';
const WITHHELD_NOTE = 'the knowledge message and the answer are withheld: memory was retrieved into them, and this key lacks memory.read';

/** The request with the knowledge message's text withheld. */
function withoutKnowledge(input: unknown): unknown {
  const messages = (input as { messages?: unknown } | null)?.messages;
  if (!Array.isArray(messages)) return input;
  return {
    ...(input as object),
    messages: messages.map((message: { role?: unknown; content?: unknown }) =>
      message?.role === 'system' && typeof message.content === 'string' && message.content.startsWith(KNOWLEDGE_HEADER)
        ? { ...message, content: WITHHELD_KNOWLEDGE }
        : message,
    ),
  };
}

/**
 * One trace. What memory was retrieved into (the knowledge message, and the answer made from it)
 * is memory too: a key without memory.read reads the rest of the trace, not that, as it could not
 * replay the answer either (chat.ts, memoryReadNeeded).
 */
export function presentTrace(row: TraceDetailRow, { memoryRead }: { memoryRead: boolean }) {
  const withheld = !memoryRead && row.sources.length > 0;
  return {
    ...presentTraceSummary(row),
    trace_context: row.trace_id ? { trace_id: row.trace_id, parent_span_id: row.parent_span_id } : null,
    // As sent to the provider, so masked when the firewall was on.
    request: withheld ? withoutKnowledge(row.input) : row.input,
    // The choices as the provider returned them (masked), or the error of a failed call.
    response: withheld ? null : Array.isArray(row.output) ? { choices: row.output } : (row.output ?? null),
    attempts: row.attempts.map((a) => (typeof a.latency_ms === 'number' ? { ...a, latency_ms: round1(a.latency_ms) } : a)),
    dropped_parameters: droppedParameters(row),
    notes: withheld ? [...row.notes, WITHHELD_NOTE] : row.notes,
    sources: row.sources,
    firewall: row.firewall ?? null,
    scores: row.scores,
  };
}
