import type { Pool } from '../db/pool.js';
import { MemoryEmbeddingFailed } from '../errors.js';
import { detectEntities, detectLanguage } from '../firewall/index.js';
import type { Catalog, EmbeddingModel } from '../gateway/catalog.js';
import type { Adapters } from '../gateway/providers/index.js';
import { countTokens } from '../gateway/tokens.js';
import { embedForMemory, embedsMasked, memoryEmbeddingModel, type MemoryEmbeddingPolicy } from './embedder.js';
import { searchFacts } from './factSearch.js';
import { resolveCollectionSlugs, searchChunks } from './search.js';

// Retrieval at chat time: the facts of the end-user, the workspace's shared facts and chunks of
// its collections (or, narrowed by `collection`, the end-user's facts and those collections'
// chunks), each ranked twice (by embedding and by full text) and fused by reciprocal rank.

export interface Source {
  type: 'fact' | 'chunk';
  id: string;
  score: number;
  text: string;
  document_id?: string;
  title?: string;
  collection?: string;
}

export interface Retrieval {
  sources: Source[];
  /** The system message that carries the passages to the model, or null when none was found. */
  message: string | null;
  /** Whether a search ran (the fee is charged only then). */
  searched: boolean;
  /** For the trace: how the search fell short (its query could not be embedded). */
  note?: string;
}

export interface RetrievalRequest {
  workspaceId: string;
  userRef: string | null;
  /** The chat's `collection`: narrows to those collections (unknown slug → 422). */
  collection: string | string[] | undefined;
  query: string;
  /** The workspace's routing policy, which the embedding of the query honours. */
  policy: MemoryEmbeddingPolicy;
}

// k of reciprocal rank fusion: 60 is the value of the original paper, and ranks beyond the first
// few then differ little, so neither ranking dominates.
const RRF_K = 60;
const CANDIDATES = 20;
const MAX_PASSAGES = 8;
const TOKEN_BUDGET = 1500;
// What of the caller's text a search reads: a pasted document with a question after it is
// searched by its opening and its question. Postgres parses the text into one tsquery term per
// word, and a whole long prompt overflows its parser ("stack depth limit exceeded", "value is too
// big in tsquery"); nor does an embedding of megabytes find anything a short one would not.
const SEARCH_HEAD_CHARS = 500;
const SEARCH_TAIL_CHARS = 1500;

/** The part of a long query that a search reads: its opening and its end, cut between words. */
export function searchText(query: string): string {
  if (query.length <= SEARCH_HEAD_CHARS + SEARCH_TAIL_CHARS) return query;
  // Cut at the last space of the head and the first of the tail (a word cut in two would search
  // for a word that is not there); plain index searches, so no pattern runs over the text.
  const head = query.slice(0, SEARCH_HEAD_CHARS);
  const tail = query.slice(-SEARCH_TAIL_CHARS);
  const headEnd = Math.max(head.lastIndexOf(' '), head.lastIndexOf('\n'));
  const tailStart = Math.min(...[tail.indexOf(' '), tail.indexOf('\n')].filter((at) => at >= 0), tail.length);
  return `${headEnd >= 0 ? head.slice(0, headEnd) : head} ${tail.slice(tailStart + 1)}`;
}

/**
 * The hits of a vector ranking similar enough to count (the model's `min_similarity`): nearest is
 * not related, and a question about something the memory does not hold would otherwise be given
 * the closest passages anyway, and billed for them. A full-text hit shares the question's words
 * and needs no floor.
 */
export function related<Hit extends { score: number }>(model: EmbeddingModel, hits: Hit[]): Hit[] {
  const floor = model.minSimilarity;
  return floor === null ? hits : hits.filter((hit) => hit.score >= floor);
}

interface Ranked {
  source: Omit<Source, 'score'>;
  score: number;
}

function fuse(lists: { key: (hit: never) => string; hits: unknown[]; toSource: (hit: never) => Omit<Source, 'score'> }[]): Ranked[] {
  const fused = new Map<string, Ranked>();
  for (const list of lists) {
    list.hits.forEach((hit, rank) => {
      const key = list.key(hit as never);
      const entry = fused.get(key) ?? { source: list.toSource(hit as never), score: 0 };
      entry.score += 1 / (RRF_K + rank + 1);
      fused.set(key, entry);
    });
  }
  return [...fused.values()].sort((a, b) => b.score - a.score);
}

/**
 * Whether the workspace holds anything a retrieval would search: chunks (of the collections it is
 * narrowed to, when it is) and facts (the end-user's, and the shared ones unless narrowed). Cached
 * briefly so a workspace without memory pays no search (and no fee) on every chat call.
 */
export class MemoryPresence {
  private readonly cache = new Map<string, { present: boolean; until: number }>();

  constructor(private readonly pool: Pool) {}

  /** `collectionIds` null: every collection, and the shared facts too (not narrowed). */
  async has(workspaceId: string, userRef: string | null, collectionIds: readonly string[] | null = null): Promise<boolean> {
    const key = `${workspaceId}\0${userRef ?? ''}\0${collectionIds === null ? '*' : [...collectionIds].sort().join(',')}`;
    const cached = this.cache.get(key);
    if (cached && cached.until > Date.now()) return cached.present;
    const { rows } = await this.pool.query<{ present: boolean }>(
      `select exists (select 1 from chunks where workspace_id = $1 and ($3::uuid[] is null or collection_id = any($3::uuid[])))
           or exists (select 1 from facts where workspace_id = $1 and (user_ref = $2 or ($3::uuid[] is null and user_ref is null))) as present`,
      [workspaceId, userRef, collectionIds],
    );
    const present = rows[0]?.present === true;
    // Absence is re-checked soon, so new memory is used within seconds; presence rarely ends.
    if (this.cache.size > 10_000) this.cache.clear();
    this.cache.set(key, { present, until: Date.now() + (present ? 60_000 : 2_000) });
    return present;
  }
}

const HAS_WORD = /[\p{L}\p{N}]/u;

/** The text with its personal values taken out: what a masked embedding of it still reads. */
export function withoutPersonalValues(text: string): string {
  let rest = '';
  let at = 0;
  for (const detection of detectEntities(text, detectLanguage(text, 'en'))) {
    if (detection.start < at) continue;
    rest += `${text.slice(at, detection.start)} `;
    at = detection.end;
  }
  return rest + text.slice(at);
}

/**
 * Whether a question holds a letter or a digit. One without ("???", an emoji) asks about nothing
 * memory could hold; embedded, every such text is alike, and would fetch whatever else has no words.
 */
export function asksAboutSomething(query: string): boolean {
  return HAS_WORD.test(query);
}

export async function retrieve(
  deps: { pool: Pool; catalog: Catalog; adapters: Adapters; presence: MemoryPresence },
  request: RetrievalRequest,
  signal: AbortSignal,
): Promise<Retrieval> {
  const narrowed = request.collection !== undefined;
  const collectionIds = narrowed
    ? await resolveCollectionSlugs(deps.pool, request.workspaceId, request.collection!, 'collection')
    : null;
  const none: Retrieval = { sources: [], message: null, searched: false };
  if (!asksAboutSomething(request.query) || !(await deps.presence.has(request.workspaceId, request.userRef, collectionIds))) return none;

  const query = searchText(request.query);
  const model = memoryEmbeddingModel(deps.catalog);
  let embedding: number[] | null = null;
  let note: string | undefined;
  // Masked, a question that is only personal values ("Jan Jansen?") embeds as "[PERSON_1]", alike
  // for every such question, and would fetch passages about nothing it asked: it is searched by its
  // words alone, which still match the name.
  const onlyValues = embedsMasked(deps.catalog, request.policy) && !asksAboutSomething(withoutPersonalValues(query));
  try {
    if (!onlyValues) embedding = (await embedForMemory(deps.catalog, deps.adapters, [query], signal, request.policy)).vectors[0]!;
  } catch (err) {
    // The memory model's providers are down: the chat is answered with what the words find rather
    // than not at all. A provider that refused the text, or a client that went away, still fails it.
    if (!(err instanceof MemoryEmbeddingFailed && err.status >= 500) || signal.aborted) throw err;
    embedding = null;
    note = `memory was searched by its words only: ${err.message}`;
  }
  const search = { workspaceId: request.workspaceId, model: model.id, embedding, query, limit: CANDIDATES };
  const [chunks, facts] = await Promise.all([
    collectionIds !== null && collectionIds.length === 0 ? { byVector: [], byText: [] } : searchChunks(deps.pool, { ...search, collectionIds }),
    request.userRef !== null || !narrowed
      ? searchFacts(deps.pool, { ...search, userRef: request.userRef, includeShared: !narrowed })
      : { byVector: [], byText: [] },
  ]);
  type ChunkHit = (typeof chunks.byVector)[number];
  type FactHit = (typeof facts.byVector)[number];
  const chunkList = (hits: ChunkHit[]) => ({
    hits,
    key: (hit: ChunkHit) => `chunk:${hit.id}`,
    toSource: (hit: ChunkHit): Omit<Source, 'score'> => ({
      type: 'chunk',
      id: hit.id,
      text: hit.text,
      document_id: hit.documentId,
      title: hit.title,
      collection: hit.collection,
    }),
  });
  const factList = (hits: FactHit[]) => ({
    hits,
    key: (hit: FactHit) => `fact:${hit.id}`,
    toSource: (hit: FactHit): Omit<Source, 'score'> => ({ type: 'fact', id: hit.id, text: hit.content }),
  });
  const ranked = fuse([
    chunkList(related(model, chunks.byVector)),
    chunkList(chunks.byText),
    factList(related(model, facts.byVector)),
    factList(facts.byText),
  ]);

  const sources: Source[] = [];
  const taken: string[] = [];
  let tokens = 0;
  for (const { source, score } of ranked) {
    if (sources.length >= MAX_PASSAGES) break;
    // The same text from another document (a document uploaded twice, a copy with a line added)
    // tells the model nothing more, and took the places of passages that did: the first ranked is kept.
    const text = source.text.replace(/\s+/g, ' ').trim();
    if (taken.some((other) => other.includes(text) || text.includes(other))) continue;
    const cost = countTokens(source.text);
    if (tokens + cost > TOKEN_BUDGET) continue;
    tokens += cost;
    taken.push(text);
    sources.push({ ...source, score: Math.round(score * 1e6) / 1e6 });
  }
  return { sources, message: sources.length > 0 ? knowledgeMessage(sources) : null, searched: true, ...(note !== undefined ? { note } : {}) };
}

/** The first line of the knowledge message: what tells it apart in a trace's request. */
export const KNOWLEDGE_HEADER = 'Knowledge retrieved for this conversation.';

function knowledgeMessage(sources: Source[]): string {
  const lines = sources.map((source, index) => {
    // The title, which the firewall masks as it does any text; not the collection's slug, which
    // the caller may have made of a name ("dossier-jan-de-vries") that no text rule reads as one.
    const origin = source.type === 'fact' ? 'remembered fact' : `document "${source.title}"`;
    // The text on lines of its own: a table's header row is then read as one (firewall, model).
    return `[${index + 1}] (${origin})\n${source.text}`;
  });
  return [
    `${KNOWLEDGE_HEADER} Use it when it helps to answer, and say so when it does not cover the question.`,
    ...lines,
  ].join('\n');
}
