import type { Pool, Queryable } from '../db/pool.js';
import { withTransaction } from '../db/transaction.js';
import { validationFailed } from '../errors.js';
import { ALL_TS_CONFIGS } from './textSearch.js';

// Chunk retrieval: two rankings of a workspace's chunks that the caller fuses (reciprocal rank
// fusion in chat): nearest by embedding (HNSW, cosine) and best by full text (ts_rank_cd).

export interface ChunkHit {
  id: string;
  documentId: string;
  title: string;
  /** The collection's slug. */
  collection: string;
  text: string;
  /** Vector ranking: cosine similarity (1 − distance). Text ranking: ts_rank_cd. */
  score: number;
}

export interface ChunkSearch {
  workspaceId: string;
  /** Collection ids (from resolveCollectionSlugs); null searches every collection. */
  collectionIds: string[] | null;
  /** The embedding model of `embedding`: only chunks embedded by the same model are compared. */
  model: string;
  embedding: number[];
  query: string;
  limit: number;
}

/**
 * The ids of the named collections of the workspace, in order, without duplicates. A slug the
 * workspace does not have is a 422 on `field` (one slug given as a string) or `field.N` (the
 * N-th of an array): a narrowing is never silently ignored.
 */
export async function resolveCollectionSlugs(
  db: Queryable,
  workspaceId: string,
  slugs: string | string[],
  field: string,
): Promise<string[]> {
  const list = typeof slugs === 'string' ? [slugs] : slugs;
  if (list.length === 0) return [];
  const { rows } = await db.query<{ id: string; slug: string }>(
    'select id, slug from collections where workspace_id = $1 and slug = any($2::text[])',
    [workspaceId, list],
  );
  const ids = new Map(rows.map((r) => [r.slug, r.id]));
  const errors: Record<string, string[]> = {};
  list.forEach((slug, index) => {
    if (!ids.has(slug)) errors[typeof slugs === 'string' ? field : `${field}.${index}`] = ['is not a collection of this workspace'];
  });
  if (Object.keys(errors).length > 0) throw validationFailed(errors);
  return [...new Set(list.map((slug) => ids.get(slug)!))];
}

/**
 * HNSW's candidate list. Filters (workspace, model, collections) are applied to what the index
 * returns, so with the plain default of 40 a small workspace in a big table could get fewer hits
 * than asked for. pgvector 0.8's iterative scan (relaxed order) keeps scanning until the limit is
 * met; a list of at least 100 also keeps recall@10 high (bench/memory.ts measures it).
 */
export function efSearchFor(limit: number): number {
  return Math.min(1000, Math.max(100, limit * 4));
}

export async function searchChunks(db: Pool, search: ChunkSearch): Promise<{ byVector: ChunkHit[]; byText: ChunkHit[] }> {
  // `set local` lasts until the end of the transaction, so both queries run inside one.
  return withTransaction(db, async (client) => {
    // JIT compilation takes tens of milliseconds, and pgvector's cost estimate of an HNSW scan
    // (hundreds of thousands) is far above jit_above_cost: a query of a few milliseconds would
    // be compiled every time.
    await client.query(
      `select set_config('hnsw.iterative_scan', 'relaxed_order', true), set_config('hnsw.ef_search', $1, true),
              set_config('jit', 'off', true)`,
      [String(efSearchFor(search.limit))],
    );
    const byVector = await nearestChunks(client, search);
    const byText = await matchingChunks(client, search);
    return { byVector, byText };
  });
}

interface HitRow {
  id: string;
  document_id: string;
  title: string;
  collection: string;
  text: string;
  score: number;
}

const toHit = (row: HitRow): ChunkHit => ({
  id: row.id,
  documentId: row.document_id,
  title: row.title,
  collection: row.collection,
  text: row.text,
  score: Number(row.score),
});

/**
 * Nearest chunks by cosine distance. The inner query is materialized so that the index order
 * drives it; with relaxed_order the index may return neighbours slightly out of order, so the
 * outer query sorts them again by their exact distance.
 */
async function nearestChunks(db: Queryable, search: ChunkSearch): Promise<ChunkHit[]> {
  const { rows } = await db.query<HitRow>(
    `with nearest as materialized (
       select c.id, c.document_id, c.collection_id, c.text, c.embedding <=> $2::vector as distance
         from chunks c
        where c.workspace_id = $1 and c.model = $3 and ($4::uuid[] is null or c.collection_id = any($4::uuid[]))
        order by c.embedding <=> $2::vector
        limit $5
     )
     select n.id::text, n.document_id, d.title, k.slug as collection, n.text, 1 - n.distance as score
       from nearest n
       join documents d on d.id = n.document_id
       join collections k on k.id = n.collection_id
      order by n.distance, n.id`,
    [search.workspaceId, JSON.stringify(search.embedding), search.model, search.collectionIds, search.limit],
  );
  return rows.map(toHit);
}

/**
 * Rows a text search ranks at most. Postgres ranks every row that matches, detoasting its
 * tsvector: ~30 µs a row, so a question of common words ("verzekering", "policy") that matches
 * 25,000 of 100,000 chunks took 0.7–1.4 s (bench/memory.ts corpus). Ranking at most this many
 * of the matches bounds that to a few milliseconds. Specific questions match fewer rows and are
 * ranked in full; for common words the ranking covers the first matches found (in table order),
 * and the vector ranking, fused with this one, carries the relevance.
 */
export const MAX_TEXT_CANDIDATES = 256;

/**
 * Full-text matches, each chunk against the query parsed in the chunk's own configuration (a
 * Dutch chunk is matched by Dutch stems). The query is parsed once per configuration, so the GIN
 * index can serve each parsed query. Texts are read only for the rows returned.
 */
async function matchingChunks(db: Queryable, search: ChunkSearch): Promise<ChunkHit[]> {
  const { rows } = await db.query<HitRow>(
    `with q as materialized (
       select cfg, websearch_to_tsquery(cfg, $2) as query from unnest($3::regconfig[]) as cfg
     ), candidates as materialized (
       select c.id, c.tsv, q.query
         from q join chunks c on c.ts_config = q.cfg and c.tsv @@ q.query
        where c.workspace_id = $1 and ($4::uuid[] is null or c.collection_id = any($4::uuid[]))
        limit $6
     ), ranked as (
       select id, ts_rank_cd(tsv, query) as score from candidates order by score desc, id limit $5
     )
     select c.id::text, c.document_id, d.title, k.slug as collection, c.text, r.score
       from ranked r
       join chunks c on c.id = r.id
       join documents d on d.id = c.document_id
       join collections k on k.id = c.collection_id
      order by r.score desc, r.id`,
    [search.workspaceId, search.query, ALL_TS_CONFIGS, search.collectionIds, search.limit, MAX_TEXT_CANDIDATES],
  );
  return rows.map(toHit);
}
