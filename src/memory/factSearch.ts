import type { Pool, PoolClient, Queryable } from '../db/pool.js';
import { withTransaction } from '../db/transaction.js';

// Fact retrieval: two rankings of the facts held about an end-user (and/or the workspace's shared
// facts): nearest by memory embedding (HNSW, cosine) and best by full text (ts_rank_cd). Chat
// retrieval fuses them with the chunks' rankings; GET /recall/facts?q= fuses them alone.

export interface FactHit {
  id: string;
  /** null for a shared fact. */
  userRef: string | null;
  content: string;
  /** byVector: cosine similarity (1 − distance). byText: ts_rank_cd. Fused: the RRF score. */
  score: number;
}

export interface FactSearch {
  workspaceId: string;
  /** The end-user whose personal facts are searched; null searches none. */
  userRef: string | null;
  /** Also search the workspace's shared facts (user_ref null). */
  includeShared: boolean;
  /** The embedding model of `embedding`: only facts embedded by the same model are compared. */
  model: string;
  /** The query's embedding; null when it could not be made (the memory model unavailable): text search only. */
  embedding: number[] | null;
  query: string;
  limit: number;
}

// Every configuration a fact can be indexed with (see factRules.ts, tsConfigFor).
const TS_CONFIGS = ['simple', 'dutch', 'english', 'french', 'german'];

/**
 * Runs `work` in a transaction whose vector scans keep going until their LIMIT is met after the
 * filters: HNSW applies the workspace/end-user filter to the candidates it returns, so with the
 * plain settings (40 candidates, no iteration) an end-user with a few facts among millions of
 * others' would get none back.
 */
export async function withVectorScan<T>(pool: Pool, limit: number, work: (db: PoolClient) => Promise<T>): Promise<T> {
  return withTransaction(pool, async (db) => {
    await db.query(`select set_config('hnsw.iterative_scan', 'relaxed_order', true), set_config('hnsw.ef_search', $1, true)`, [
      String(Math.min(1000, Math.max(100, limit * 4))),
    ]);
    return work(db);
  });
}

/** Both rankings, each at most `limit` long, best first. No user and no shared facts: nothing. */
export async function searchFacts(db: Pool, search: FactSearch): Promise<{ byVector: FactHit[]; byText: FactHit[] }> {
  if (search.userRef === null && !search.includeShared) return { byVector: [], byText: [] };
  return withVectorScan(db, search.limit, async (client) => {
    const byVector = search.embedding === null ? [] : await nearestFactHits(client, search);
    const byText = await matchingFactHits(client, search);
    return { byVector, byText };
  });
}

interface HitRow {
  id: string;
  user_ref: string | null;
  content: string;
  score: number;
}

const toHit = (row: HitRow): FactHit => ({ id: row.id, userRef: row.user_ref, content: row.content, score: Number(row.score) });

// The scope as a condition on `f`: the end-user's facts, the shared ones, or both. Pushes the
// parameter it needs onto `params`.
function ownerSql(search: FactSearch, params: unknown[]): string {
  const parts: string[] = [];
  if (search.userRef !== null) parts.push(`f.user_ref = $${params.push(search.userRef)}`);
  if (search.includeShared) parts.push('f.user_ref is null');
  return `(${parts.join(' or ')})`;
}

/**
 * Nearest facts by cosine distance. The inner query is materialized so the index order drives it;
 * relaxed_order may hand back neighbours slightly out of order, so the outer query sorts them by
 * their exact distance.
 */
async function nearestFactHits(db: Queryable, search: FactSearch): Promise<FactHit[]> {
  const params: unknown[] = [search.workspaceId, JSON.stringify(search.embedding), search.model, search.limit];
  const { rows } = await db.query<HitRow>(
    `with nearest as materialized (
       select f.id, f.user_ref, f.content, f.embedding <=> $2::vector as distance
         from facts f
        where f.workspace_id = $1 and f.model = $3 and ${ownerSql(search, params)}
        order by f.embedding <=> $2::vector
        limit $4
     )
     select id, user_ref, content, 1 - distance as score from nearest order by distance, id`,
    params,
  );
  return rows.map(toHit);
}

/**
 * The query as "any of its words", for websearch_to_tsquery: a question such as "what does she
 * drink" should find "drinks oat milk" even though "she" is not in it. Each word is parsed by the
 * configuration of the fact it is matched against (stems and stop words of that language); the
 * word "or" is the operator itself, so it is left out.
 */
export function anyWordQuery(query: string): string {
  const words = query.match(/[\p{L}\p{N}]+/gu) ?? [];
  return words.filter((w) => w.toLowerCase() !== 'or').join(' or ');
}

/**
 * Full-text matches, each fact against the query parsed in the fact's own configuration. The
 * query is parsed once per configuration, so the GIN index serves each parsed query.
 */
async function matchingFactHits(db: Queryable, search: FactSearch): Promise<FactHit[]> {
  const words = anyWordQuery(search.query);
  if (words === '') return [];
  const params: unknown[] = [search.workspaceId, words, TS_CONFIGS, search.limit];
  const { rows } = await db.query<HitRow>(
    `with q as materialized (
       select cfg, websearch_to_tsquery(cfg, $2) as query from unnest($3::regconfig[]) as cfg
     )
     select f.id, f.user_ref, f.content, ts_rank_cd(f.tsv, q.query) as score
       from q
       join facts f on f.ts_config = q.cfg and f.tsv @@ q.query
      where f.workspace_id = $1 and ${ownerSql(search, params)}
      order by score desc, f.id
      limit $4`,
    params,
  );
  return rows.map(toHit);
}

/** The usual constant of reciprocal rank fusion: it damps the difference between the first ranks. */
const RRF_K = 60;

/**
 * Reciprocal rank fusion of the two rankings: score = Σ 1 / (k + rank). A fact found both ways
 * ranks above one found one way; the scores of the two rankings (cosine, ts_rank) are on different
 * scales, so only the ranks count.
 */
export function fuseFactHits(rankings: { byVector: FactHit[]; byText: FactHit[] }): FactHit[] {
  const fused = new Map<string, FactHit>();
  for (const ranking of [rankings.byVector, rankings.byText]) {
    ranking.forEach((hit, index) => {
      const add = 1 / (RRF_K + index + 1);
      const seen = fused.get(hit.id);
      if (seen) seen.score += add;
      else fused.set(hit.id, { ...hit, score: add });
    });
  }
  return [...fused.values()].sort((a, b) => b.score - a.score || a.id.localeCompare(b.id));
}
