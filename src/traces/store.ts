import type { Queryable } from '../db/pool.js';
import type { Credits } from '../metering/credits.js';

export interface TraceAttempt {
  model: string;
  provider: string;
  status: number | null;
  error: string | null;
  latency_ms: number;
}

/** What a trace records: a chat, an embeddings call, or work done in the background. */
export type TraceKind = 'chat' | 'embeddings' | 'ingest' | 'facts';

export interface TraceRecord {
  workspace_id: string;
  organization_id: string;
  id: string;
  kind: TraceKind;
  /** The key that asked; null for the service's own work. */
  key_id: string | null;
  name: string | null;
  tags: string[];
  thread: string | null;
  end_user: string | null;
  application: string | null;
  trace_id: string | null;
  parent_span_id: string | null;
  model: string | null;
  provider: string | null;
  attempts: TraceAttempt[];
  status: number;
  latency_ms: number;
  prompt_tokens: number;
  completion_tokens: number;
  cached_tokens: number;
  /** Prompt tokens the provider wrote to its prompt cache (chat only; 0 when absent). */
  cache_write_tokens?: number;
  credits: Credits;
  stream: boolean;
  cache: string | null;
  /** What was sent upstream (masked by the firewall) and what came back. */
  input: unknown;
  output: unknown;
  notes: string[];
  sources: unknown[];
  /** Entity counts and languages of the firewall's scan; never the values. */
  firewall: unknown;
  created_at: string;
}

/**
 * A trace of everything but a chat: what is given, and for the rest no tags, thread, end-user,
 * application, trace context, attempts, tokens, cache, notes, sources or firewall counts.
 */
export function plainTrace(
  fields: Pick<TraceRecord, 'workspace_id' | 'organization_id' | 'id' | 'kind' | 'key_id' | 'status' | 'latency_ms' | 'created_at'> &
    Partial<TraceRecord>,
): TraceRecord {
  return {
    name: null,
    tags: [],
    thread: null,
    end_user: null,
    application: null,
    trace_id: null,
    parent_span_id: null,
    model: null,
    provider: null,
    attempts: [],
    prompt_tokens: 0,
    completion_tokens: 0,
    cached_tokens: 0,
    credits: { base: 0, services: 0, total: 0 },
    stream: false,
    cache: null,
    input: null,
    output: null,
    notes: [],
    sources: [],
    firewall: null,
    ...fields,
  };
}

// Reads for the trace explorer (GET /v1/traces and /v1/traces/{id}). Every query is bounded by
// the acting key's workspace.

export interface TraceFilters {
  thread?: string;
  tag?: string;
  application?: string;
  user?: string;
  name?: string;
  model?: string;
  from?: Date;
  to?: Date;
}

/** Where the previous page ended: the exact created_at (microseconds, UTC) and the id. */
export interface TracePosition {
  at: string;
  id: string;
}

export interface TraceSummaryRow {
  id: string;
  kind: TraceKind;
  created_at: Date;
  /** created_at to the microsecond, for the next page's cursor. */
  position_at: string;
  name: string | null;
  tags: string[];
  thread: string | null;
  end_user: string | null;
  application: string | null;
  model: string | null;
  provider: string | null;
  status: number;
  latency_ms: number;
  stream: boolean;
  cache: string | null;
  prompt_tokens: number;
  completion_tokens: number;
  cached_tokens: number;
  cache_write_tokens: number;
  /** numeric(20, 8) as Postgres renders it. */
  credits_base: string;
  credits_services: string;
  credits_total: string;
}

export interface TraceScoreJson {
  id: string;
  trace_id: string;
  name: string;
  value: number | string | boolean;
  comment: string | null;
  created_at: string;
}

export interface TraceDetailRow extends TraceSummaryRow {
  trace_id: string | null;
  parent_span_id: string | null;
  attempts: TraceAttempt[];
  input: unknown;
  output: unknown;
  notes: string[];
  sources: unknown[];
  firewall: unknown;
  scores: TraceScoreJson[];
}

const SUMMARY_COLUMNS = `t.id, t.kind, t.created_at, to_char(t.created_at at time zone 'utc', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"') as position_at,
  t.name, t.tags, t.thread, t.end_user, t.application, t.model, t.provider, t.status, t.latency_ms, t.stream, t.cache,
  t.prompt_tokens, t.completion_tokens, t.cached_tokens, t.cache_write_tokens, t.credits_base::text, t.credits_services::text, t.credits_total::text`;

/** A page of the workspace's traces, newest first; summaries only (no input or output). */
export async function listTraces(
  db: Queryable,
  workspaceId: string,
  filters: TraceFilters,
  page: { after?: TracePosition; limit: number },
): Promise<TraceSummaryRow[]> {
  const { rows } = await db.query<TraceSummaryRow>(
    `select ${SUMMARY_COLUMNS}
       from traces t
      where t.workspace_id = $1
        and ($2::text is null or t.thread = $2)
        and ($3::text is null or t.tags @> array[$3::text])
        and ($4::text is null or t.application = $4)
        and ($5::text is null or t.end_user = $5)
        and ($6::text is null or t.name = $6)
        and ($7::text is null or t.model = $7)
        and ($8::timestamptz is null or t.created_at >= $8)
        and ($9::timestamptz is null or t.created_at < $9)
        and ($10::timestamptz is null or (t.created_at, t.id) < ($10::timestamptz, $11::text))
      order by t.created_at desc, t.id desc
      limit $12`,
    [
      workspaceId,
      filters.thread ?? null,
      filters.tag ?? null,
      filters.application ?? null,
      filters.user ?? null,
      filters.name ?? null,
      filters.model ?? null,
      filters.from ?? null,
      filters.to ?? null,
      page.after?.at ?? null,
      page.after?.id ?? null,
      page.limit,
    ],
  );
  return rows;
}

/**
 * One trace of the workspace with everything it recorded and its scores (newest first), or
 * undefined. The scores are read in the same query so the explorer's detail view is one round trip.
 */
export async function findTraceDetail(db: Queryable, workspaceId: string, id: string): Promise<TraceDetailRow | undefined> {
  const { rows } = await db.query<TraceDetailRow>(
    `select ${SUMMARY_COLUMNS}, t.trace_id, t.parent_span_id, t.attempts, t.input, t.output, t.notes, t.sources, t.firewall,
            coalesce((select jsonb_agg(jsonb_build_object(
                               'id', s.id, 'trace_id', s.trace_id, 'name', s.name, 'value', s.value, 'comment', s.comment,
                               'created_at', to_char(s.created_at at time zone 'utc', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'))
                             order by s.created_at desc, s.id desc)
                        from scores s
                       where s.workspace_id = t.workspace_id and s.trace_id = t.id), '[]'::jsonb) as scores
       from traces t
      where t.workspace_id = $1 and t.id = $2`,
    [workspaceId, id],
  );
  return rows[0];
}

export async function deleteTracesOfEndUser(db: Queryable, workspaceId: string, endUser: string): Promise<number> {
  const result = await db.query('delete from traces where workspace_id = $1 and end_user = $2', [workspaceId, endUser]);
  return result.rowCount ?? 0;
}
