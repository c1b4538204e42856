import type { Queryable } from '../db/pool.js';
import { storableJson } from '../db/storable.js';
import type { Credits } from './credits.js';

export type UsageKind = 'chat' | 'embeddings' | 'ingest' | 'facts';

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

/** Unique per (workspace, request id): a record seen twice is billed once. The mapping is sql/0011's. */
export async function insertUsage(db: Queryable, records: UsageRecord[]): Promise<void> {
  await db.query('select insert_usage($1::json)', [storableJson(records)]);
}
