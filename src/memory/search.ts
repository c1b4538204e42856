import type { Pool, PoolClient, Queryable } from '../db/pool.js';
import { withTransaction } from '../db/transaction.js';
import { validationFailed } from '../errors.js';
import { isNonNameWord } from '../firewall/words.js';
import { anyWordQuery } from './factSearch.js';
import { ALL_TS_CONFIGS, TS_CONFIGS } from './textSearch.js';

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
  /** The query's embedding; null when it could not be made (the memory model unavailable): text search only. */
  embedding: number[] | null;
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
 * returns, so with a short list a small workspace in a big table could get fewer hits than asked
 * for; pgvector 0.8's iterative scan (relaxed order) keeps scanning until the limit is met. The
 * length trades recall for time: over 100,000 chunks (bench/memory.ts), recall@10 against an
 * exact scan was 0.96–0.98 at 64 and 0.99 at 100, for ~30 % more time.
 */
export function efSearchFor(limit: number): number {
  return Math.min(1000, Math.max(64, limit * 2));
}

/**
 * Settings of the vector search. Besides HNSW's: the planner does not count the cost of reading
 * TOASTed vectors, so it takes a sequential or bitmap scan that computes the distance of every
 * chunk of the workspace for cheaper than the HNSW index: 55 ms against 7 ms over 10,000 chunks.
 * With both off it chooses by cost between the HNSW index and the btree on (workspace_id,
 * collection_id), which serves a small workspace or collection exactly (300 chunks: 2 ms).
 */
const vectorSettings = (limit: number) => ({
  'hnsw.iterative_scan': 'relaxed_order',
  'hnsw.ef_search': String(efSearchFor(limit)),
  enable_seqscan: 'off',
  enable_bitmapscan: 'off',
});

/**
 * Both rankings, each in a transaction of its own on a connection of its own, at the same time:
 * the answer takes as long as the slower one, not the sum.
 */
export async function searchChunks(db: Pool, search: ChunkSearch): Promise<{ byVector: ChunkHit[]; byText: ChunkHit[] }> {
  const [byVector, byText] = await Promise.allSettled([
    search.embedding === null ? [] : withSettings(db, vectorSettings(search.limit), (client) => nearestChunks(client, search)),
    withSettings(db, {}, (client) => textHits(client, search)),
  ]);
  if (byVector.status === 'rejected') throw byVector.reason;
  if (byText.status === 'rejected') throw byText.reason;
  return { byVector: byVector.value, byText: byText.value };
}

/**
 * Runs `work` in a transaction whose settings are `set local` (they end with it). JIT is always
 * off: compiling takes tens of milliseconds, and pgvector's cost estimate of an HNSW scan
 * (hundreds of thousands) is far above jit_above_cost, so a query of a few milliseconds would be
 * compiled every time. The settings are bound as parameters of set_config, never spliced in.
 */
async function withSettings<T>(db: Pool, settings: Record<string, string>, work: (client: PoolClient) => Promise<T>): Promise<T> {
  const entries = Object.entries({ jit: 'off', ...settings });
  const calls = entries.map((_, i) => `set_config($${2 * i + 1}, $${2 * i + 2}, true)`).join(', ');
  return withTransaction(db, async (client) => {
    await client.query(`select ${calls}`, entries.flat());
    return work(client);
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
 * Nearest chunks by cosine distance. The order is the index's expression (half precision, see
 * sql/0004_documents.sql); the inner query is materialized so that the index order drives it.
 * With relaxed_order, and in half precision, neighbours may come slightly out of order, so the
 * outer query sorts them again by their exact (float4) distance.
 */
async function nearestChunks(db: Queryable, search: ChunkSearch): Promise<ChunkHit[]> {
  const { rows } = await db.query<HitRow>(
    `with nearest as materialized (
       select c.id, c.document_id, c.position, c.collection_id, c.text, c.embedding <=> $2::vector as distance
         from chunks c
        where c.workspace_id = $1 and c.model = $3 and ($4::uuid[] is null or c.collection_id = any($4::uuid[]))
        order by c.embedding::halfvec(1024) <=> $2::vector::halfvec(1024)
        limit $5
     )
     select n.document_id || ':' || n.position as id, n.document_id, d.title, k.slug as collection, n.text, 1 - n.distance as score
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
 * The chunks that hold every word of the question first; when those are fewer than asked for,
 * then those that hold any of its words (stems, without the language's stop words): a question
 * in the words a person uses ("how much do I pay myself when the storm breaks my things") seldom
 * holds every word of the passage that answers it, and would otherwise find nothing by its words.
 */
async function textHits(db: Queryable, search: ChunkSearch): Promise<ChunkHit[]> {
  const every = await matchingChunks(db, search);
  if (every.length >= search.limit) return every;
  const anyWord = anyWordQuery(search.query);
  if (anyWord === '') return every;
  const seen = new Set(every.map((hit) => hit.id));
  // Not 'simple' chunks (a language none of the four: tables, lists of names, a sentence too short
  // to tell): without stop words, "is" or "de" in a question would match nearly all of them. Those
  // are matched by the question's words that no language of the four drops as a stop word, and by
  // its names and codes, which memory's masked embeddings cannot match ("… van Sanne Visser?" finds
  // her row in a CSV; "What is the kumquat policy?" the one-line document that states it).
  const some = (await matchingChunks(db, { ...search, query: anyWord }, STEMMED_TS_CONFIGS)).filter((hit) => !seen.has(hit.id));
  for (const hit of some) seen.add(hit.id);
  const words = [...new Set([...distinctiveWords(search.query), ...(await contentWords(db, search.query))])].join(' or ');
  const plain = words === '' ? [] : (await matchingChunks(db, { ...search, query: words }, ['simple'])).filter((hit) => !seen.has(hit.id));
  return [...every, ...some, ...plain].slice(0, search.limit);
}

const wordsOf = (query: string): string[] => (query.match(/[\p{L}\p{N}]+/gu) ?? []).filter((word) => word.length > 1 && word.toLowerCase() !== 'or');

/** The question's names and codes: a capital or a digit, and no function word. */
export function distinctiveWords(query: string): string[] {
  return wordsOf(query).filter((word) => /^\p{Lu}|\p{N}/u.test(word) && !isNonNameWord(word));
}

/** The question's words (lower case) that none of the four languages' configurations drops as a stop word. */
async function contentWords(db: Queryable, query: string): Promise<string[]> {
  const words = [...new Set(wordsOf(query).map((word) => word.toLowerCase()))];
  if (words.length === 0) return [];
  const { rows } = await db.query<{ word: string }>(
    `select word from unnest($1::text[]) as word
      where numnode(plainto_tsquery('dutch', word)) > 0 and numnode(plainto_tsquery('english', word)) > 0
        and numnode(plainto_tsquery('french', word)) > 0 and numnode(plainto_tsquery('german', word)) > 0`,
    [words],
  );
  return rows.map((row) => row.word);
}

/**
 * Full-text matches, each chunk against the query parsed in the chunk's own configuration (a
 * Dutch chunk is matched by Dutch stems). The query is parsed once per configuration, so the GIN
 * index can serve each parsed query. Texts are read only for the rows returned.
 */
const STEMMED_TS_CONFIGS = Object.values(TS_CONFIGS);

async function matchingChunks(db: Queryable, search: ChunkSearch, configs: readonly string[] = ALL_TS_CONFIGS): Promise<ChunkHit[]> {
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
     select c.document_id || ':' || c.position as id, c.document_id, d.title, k.slug as collection, c.text, r.score
       from ranked r
       join chunks c on c.id = r.id
       join documents d on d.id = c.document_id
       join collections k on k.id = c.collection_id
      order by r.score desc, r.id`,
    [search.workspaceId, search.query, configs, search.collectionIds, search.limit, MAX_TEXT_CANDIDATES],
  );
  return rows.map(toHit);
}
