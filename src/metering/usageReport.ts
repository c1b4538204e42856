import type { Queryable } from '../db/pool.js';

// Reads of the usage table for reports. Rows are written with the rest of a request's records
// (src/metering/writeRecords.ts); this module only sums them.

export type UsageGrouping = 'day' | 'model' | 'kind';

/** Sums as Postgres returns them: bigint and numeric arrive as exact decimal strings. */
export interface UsageSumRow {
  /** The group's key; null on the grand-total row. */
  key: string | null;
  /** The kind within the group; null on a group's own row and on the total. */
  kind: string | null;
  requests: number;
  prompt_tokens: string;
  completion_tokens: string;
  cached_tokens: string;
  cache_write_tokens: string;
  total_tokens: string;
  credits_base: string;
  credits_services: string;
  credits_total: string;
}

// The group key of each grouping. Day buckets are UTC days. Fixed SQL text chosen by an enum,
// never caller text.
const KEY_SQL: Record<UsageGrouping, string> = {
  day: `to_char(created_at at time zone 'utc', 'YYYY-MM-DD')`,
  model: 'model',
  kind: 'kind',
};

// A day or a model row is also split by kind (chat, embeddings and ingest are lines of their
// own); for the kind grouping that split would repeat the rows.
const SPLIT_BY_KIND = { sets: '(key, kind), (key), ()', kind: 'case when grouping(kind) = 1 then null else kind end' };
const GROUPING: Record<UsageGrouping, { sets: string; kind: string }> = {
  day: SPLIT_BY_KIND,
  model: SPLIT_BY_KIND,
  kind: { sets: '(key), ()', kind: 'null::text' },
};

/**
 * Every group of the workspace's usage in [from, to), its split by kind, and the grand total, in
 * one pass. Sums stay numeric in SQL so they are exact; the caller converts each figure once.
 */
export async function sumUsage(
  db: Queryable,
  workspaceId: string,
  query: { from: Date; to: Date; groupBy: UsageGrouping },
): Promise<UsageSumRow[]> {
  const grouping = GROUPING[query.groupBy];
  const { rows } = await db.query<UsageSumRow>(
    `select case when grouping(key) = 1 then null else key end as key,
            ${grouping.kind} as kind,
            -- A request billed to several models or providers has a line for each (sql/0034).
            count(distinct request_id)::int as requests,
            coalesce(sum(prompt_tokens), 0)::text as prompt_tokens,
            coalesce(sum(completion_tokens), 0)::text as completion_tokens,
            coalesce(sum(cached_tokens), 0)::text as cached_tokens,
            coalesce(sum(cache_write_tokens), 0)::text as cache_write_tokens,
            coalesce(sum(prompt_tokens::bigint + completion_tokens), 0)::text as total_tokens,
            coalesce(sum(credits_base), 0)::text as credits_base,
            coalesce(sum(credits_services), 0)::text as credits_services,
            coalesce(sum(credits_total), 0)::text as credits_total
       from (select ${KEY_SQL[query.groupBy]} as key, kind, request_id, prompt_tokens, completion_tokens, cached_tokens,
                    cache_write_tokens, credits_base, credits_services, credits_total
               from usage
              where workspace_id = $1 and created_at >= $2 and created_at < $3) as u
      group by grouping sets (${grouping.sets})
      order by key nulls last, kind nulls first`,
    [workspaceId, query.from, query.to],
  );
  return rows;
}
