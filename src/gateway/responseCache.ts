import { hash } from 'node:crypto';
import type { Queryable } from '../db/pool.js';
import type { UpstreamCompletion } from './providers/types.js';

/** Where the group commits announce the keys they stored: base64, comma-separated, ≤ 100 per message. */
export const CACHE_KEYS_CHANNEL = 'polder_cache_keys';

// A cached answer lives this long; the cache__expire cron task deletes what has expired.
export const CACHE_TTL_SECONDS = 3600;

export interface CachedResponse {
  completion: UpstreamCompletion;
  model: string;
  provider: string;
}

/** Asked before a lookup: false only when the key is certainly not stored (see CacheKeyFilter). */
export interface CacheKeyLookup {
  mightContain(key: Buffer): boolean;
  /** A key this process has just stored. */
  add(key: Buffer): void;
}

/**
 * The key covers the workspace, the resolved chain, and the request as it goes upstream (after
 * masking and retrieval), which holds every field that changes the output and none of those
 * that do not (`stream`, `user`, `thread`, `tags`, `name`). Masked placeholders are restored per
 * request, so two callers whose personal data masks alike share an answer safely.
 */
export function cacheKey(workspaceId: string, chain: string[], upstreamRequest: unknown): Buffer {
  return hash('sha256', `${workspaceId}\0${chain.join('\0')}\0${JSON.stringify(upstreamRequest)}`, 'buffer');
}

export async function findCachedResponse(db: Queryable, workspaceId: string, key: Buffer): Promise<CachedResponse | undefined> {
  // Named: on the path of every cacheable chat request, so planned once per connection.
  const { rows } = await db.query<{ response: CachedResponse }>({
    name: 'polder-cache-lookup',
    text: 'select response from response_cache where workspace_id = $1 and cache_key = $2 and expires_at > now()',
    values: [workspaceId, key],
  });
  return rows[0]?.response;
}

export async function deleteExpiredResponses(db: Queryable, limit = 10_000): Promise<number> {
  const result = await db.query(
    `delete from response_cache
      where ctid in (select ctid from response_cache where expires_at <= now() limit $1)`,
    [limit],
  );
  return result.rowCount ?? 0;
}
