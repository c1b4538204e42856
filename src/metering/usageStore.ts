import type { Queryable } from '../db/pool.js';
import type { Credits } from './credits.js';

export type UsageKind = 'chat' | 'embeddings' | 'ingest';

export interface UsageRecord {
  organization_id: string;
  workspace_id: string;
  request_id: string;
  kind: UsageKind;
  model: string;
  provider: string | null;
  prompt_tokens: number;
  completion_tokens: number;
  cached_tokens: number;
  credits: Credits;
  created_at: string;
}

/** Unique per (workspace, request id): a record seen twice is billed once. */
export async function insertUsage(db: Queryable, records: UsageRecord[]): Promise<number> {
  const result = await db.query(
    `insert into usage (organization_id, workspace_id, request_id, kind, model, provider, prompt_tokens,
                        completion_tokens, cached_tokens, credits_base, credits_services, credits_total, created_at)
     select r.organization_id, r.workspace_id, r.request_id, r.kind, r.model, r.provider, r.prompt_tokens,
            r.completion_tokens, r.cached_tokens, (r.credits->>'base')::numeric, (r.credits->>'services')::numeric,
            (r.credits->>'total')::numeric, r.created_at
       from jsonb_to_recordset($1::jsonb) as r(
              organization_id uuid, workspace_id uuid, request_id text, kind text, model text, provider text,
              prompt_tokens integer, completion_tokens integer, cached_tokens integer, credits jsonb,
              created_at timestamptz)
     on conflict (workspace_id, request_id) do nothing`,
    [JSON.stringify(records)],
  );
  return result.rowCount ?? 0;
}
