import type { Queryable } from '../db/pool.js';
import type { Credits } from '../metering/credits.js';

export interface TraceAttempt {
  model: string;
  provider: string;
  status: number | null;
  error: string | null;
  latency_ms: number;
}

export interface TraceRecord {
  workspace_id: string;
  organization_id: string;
  id: string;
  key_id: string;
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

export async function insertTraces(db: Queryable, traces: TraceRecord[]): Promise<void> {
  await db.query(
    `insert into traces (workspace_id, organization_id, id, key_id, name, tags, thread, end_user, application,
                         trace_id, parent_span_id, model, provider, attempts, status, latency_ms, prompt_tokens,
                         completion_tokens, cached_tokens, credits_base, credits_services, credits_total, stream,
                         cache, input, output, notes, sources, firewall, created_at)
     select t.workspace_id, t.organization_id, t.id, t.key_id, t.name,
            coalesce(array(select jsonb_array_elements_text(t.tags)), '{}'), t.thread, t.end_user, t.application,
            t.trace_id, t.parent_span_id, t.model, t.provider, t.attempts, t.status, t.latency_ms, t.prompt_tokens,
            t.completion_tokens, t.cached_tokens, (t.credits->>'base')::numeric, (t.credits->>'services')::numeric,
            (t.credits->>'total')::numeric, t.stream, t.cache, t.input, t.output, t.notes, t.sources, t.firewall, t.created_at
       from jsonb_to_recordset($1::jsonb) as t(
              workspace_id uuid, organization_id uuid, id text, key_id uuid, name text, tags jsonb, thread text,
              end_user text, application text, trace_id text, parent_span_id text, model text, provider text,
              attempts jsonb, status integer, latency_ms double precision, prompt_tokens integer,
              completion_tokens integer, cached_tokens integer, credits jsonb, stream boolean, cache text,
              input jsonb, output jsonb, notes jsonb, sources jsonb, firewall jsonb, created_at timestamptz)
     on conflict (workspace_id, id) do nothing`,
    [JSON.stringify(traces)],
  );
}

export interface TraceRow {
  id: string;
  created_at: Date;
  [column: string]: unknown;
}

export async function findTrace(db: Queryable, workspaceId: string, id: string): Promise<TraceRow | undefined> {
  const { rows } = await db.query<TraceRow>('select * from traces where workspace_id = $1 and id = $2', [workspaceId, id]);
  return rows[0];
}
