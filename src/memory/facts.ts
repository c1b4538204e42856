import { createHash } from 'node:crypto';
import type { Pool, PoolClient, Queryable } from '../db/pool.js';
import type { Catalog } from '../gateway/catalog.js';
import type { Adapters } from '../gateway/providers/index.js';
import type { MicrosecondPosition } from '../http/cursor.js';
import { detectEntities, detectLanguage } from '../firewall/index.js';
import { addJob } from '../jobs/registry.js';
import { isKeyId, settingsFromColumns, type Principal, type SettingsColumns, type WorkspaceSettings } from '../tenancy/store.js';
import { embedForMemory } from './embedder.js';
import { fuseFactHits, searchFacts } from './factSearch.js';
import { asksAboutSomething, related, searchText } from './retrieval.js';

// SQL for facts and their submissions, and the services the routes call. Whose facts a query
// touches is always a scope: the workspace plus one end-user (user_ref), or the workspace's
// shared knowledge (user_ref null).

export interface FactScope {
  workspaceId: string;
  /** null: the workspace's shared knowledge. */
  userRef: string | null;
}

export interface FactRow {
  id: string;
  user_ref: string | null;
  content: string;
  created_at: Date;
  updated_at: Date;
  /** Relevance, when searched. */
  score?: number;
}

/** Attempts of one extraction job: the model may be down for a while, but not forever. */
export const EXTRACTION_MAX_ATTEMPTS = 8;
/** Page size of a listing when the caller names none: what one answer held before listings were paged. */
export const LIST_LIMIT = 1000;
/** Results of a search with `q` when the caller names no `limit`. */
export const SEARCH_LIMIT = 20;
/** The most results one search answers: a search is ranked, and is not paged. */
export const SEARCH_MAX_LIMIT = 100;

// Cosine similarity of memory embeddings at or above which a new fact is the same statement as an
// existing one, so it updates that fact (newest wording wins) instead of being added again.
// local/embed-1024 is lexical: on pairs measured for this threshold, restatements of one fact
// (punctuation, contractions, "now" added, "with my wife" → "with my wife and kids", a negation or
// a corrected number) scored 0.86–1.0, while different facts sharing most words (mother/father
// lives in Ghent 0.76, son plays football/tennis 0.70, Amsterdam/Rotterdam 0.66) stayed ≤ 0.76.
// A wrong merge loses a fact and a missed one only leaves a duplicate, so the threshold sits
// above the gap's middle. Spelling variants (favourite/favorite 0.80) are the price.
// Semantic models such as mistral-embed score even unrelated texts far above 0, and there was no
// key to measure mistral-embed here: 0.95 (also for any other model) keeps to near-verbatim
// restatements until someone measures. Equal normalised text always merges, whatever the model. test/memory/facts.dedup.test.ts pins the local pairs.
const DUPLICATE_SIMILARITY: Record<string, number> = {
  'local/embed-1024': 0.85,
  'mistral/mistral-embed': 0.95,
};
const DEFAULT_DUPLICATE_SIMILARITY = 0.95;

export function duplicateThreshold(model: string): number {
  return DUPLICATE_SIMILARITY[model] ?? DEFAULT_DUPLICATE_SIMILARITY;
}

/** The numbers a fact states, in order ("3 May" and "23 May" differ here). */
export function numbersOf(text: string): string {
  return (text.match(/\p{N}+/gu) ?? []).join(' ');
}

/**
 * The personal values a fact states (names, addresses, numbers the firewall masks), folded and in
 * order. Memory is embedded masked (decision 0032): "bevriend met Jan Bakker" and "bevriend met
 * Piet de Groot" are one vector, and only their values tell the two friends apart.
 */
export function personalValuesOf(text: string): string {
  return detectEntities(text, detectLanguage(text, 'en'))
    .map((detection) => normalizeFact(detection.text))
    .join('\u0000');
}

/** Case, accents, punctuation and spacing folded: two texts equal here say the same thing. */
export function normalizeFact(text: string): string {
  return text
    .normalize('NFKD')
    .replace(/\p{M}+/gu, '')
    .toLowerCase()
    .replace(/[^\p{L}\p{N}]+/gu, ' ')
    .trim();
}

/**
 * Whether `restatement` only cuts `fact` short ("I like sailing and I live" of "I like sailing and
 * I live in Delft"): it says nothing new, and must not replace what says more.
 */
export function cutsShort(restatement: string, fact: string): boolean {
  const shorter = normalizeFact(restatement);
  const longer = normalizeFact(fact);
  return shorter.length < longer.length && longer.startsWith(shorter);
}

/**
 * Whether `restatement`, saying what `fact` says (normalizeFact), is written no better: no more
 * capitalised, no more ended by a full stop. Written so, it must not replace the fact ("i live in
 * leiden" replaced "I live in Leiden.").
 */
export function writtenNoBetter(restatement: string, fact: string): boolean {
  const form = (text: string) => Number(/^\P{Ll}/u.test(text.trim())) + Number(/[.!?]$/.test(text.trim())) + Number(text !== text.toLowerCase());
  return normalizeFact(restatement) === normalizeFact(fact) && form(restatement) <= form(fact);
}

export function contentHash(text: string): Buffer {
  return createHash('sha256').update(normalizeFact(text)).digest();
}

// `user_ref = $n` never matches null, so the shared scope has its own condition. Pushes the
// parameter it needs onto `params`.
function scopeSql(scope: FactScope, params: unknown[], alias = ''): string {
  return scope.userRef === null ? `${alias}user_ref is null` : `${alias}user_ref = $${params.push(scope.userRef)}`;
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

// ---------------------------------------------------------------------------------------------
// The end-user lock: the erasure and the write step of an extraction take it, so one of them
// always runs entirely after the other (see src/memory/erasure.ts).
// ---------------------------------------------------------------------------------------------

/** Any constant works; it namespaces these advisory locks from the others in the database. */
const END_USER_LOCK_CLASS = 72_011_005;

/** Transaction-level: released by commit or rollback, never leaked by a crashed process. */
export async function lockEndUser(db: PoolClient, scope: FactScope): Promise<void> {
  await db.query('select pg_advisory_xact_lock($1, hashtext($2))', [
    END_USER_LOCK_CLASS,
    `${scope.workspaceId}:${scope.userRef ?? ''}`,
  ]);
}

// ---------------------------------------------------------------------------------------------
// Submissions
// ---------------------------------------------------------------------------------------------

/**
 * Records the submission and enqueues its extraction. Run it in a transaction (the route's
 * runOnce), so that either both exist or neither does. The job carries only the submission's id,
 * so the text lives in one row that an erasure can delete, never in the queue.
 */
export async function submitFact(db: PoolClient, principal: Principal, input: { content: string; user_ref?: string | null }): Promise<string> {
  const { rows } = await db.query<{ id: string }>(
    `insert into fact_submissions (organization_id, workspace_id, user_ref, content)
     values ($1, $2, $3, $4)
     returning id`,
    [principal.organizationId, principal.workspaceId, input.user_ref ?? null, input.content],
  );
  const id = rows[0]!.id;
  await addJob(
    db,
    'memory__extract_facts',
    { submission_id: id },
    { maxAttempts: EXTRACTION_MAX_ATTEMPTS, queueName: extractionQueueOf(principal.workspaceId, input.user_ref ?? null), jobKey: extractionJobKey(id) },
  );
  return id;
}

/** The extraction job's key: an erasure takes the jobs of the submissions it deletes out of the queue by it. */
const extractionJobKey = (submissionId: string) => `memory__extract_facts:${submissionId}`;

/**
 * Takes the waiting extraction jobs of these submissions out of the queue, in the caller's
 * transaction: each would only find its submission gone, but the end-user's queue runs its jobs
 * one after another, and a bulk import erased left hundreds for the queue's other end-users to
 * wait behind. A job already running keeps running (graphile-worker's remove_job), and finds nothing.
 */
export async function removeExtractionJobs(db: Queryable, submissionIds: readonly string[]): Promise<void> {
  if (submissionIds.length === 0) return;
  await db.query('select graphile_worker.remove_job(key) from unnest($1::text[]) as key', [submissionIds.map(extractionJobKey)]);
}

const EXTRACTION_QUEUES_PER_WORKSPACE = 16;

/**
 * The queue an end-user's extractions run in, one after another: an extraction plans its writes
 * from the facts it reads (a model says which to update), so two planned at once from the same
 * facts would each add what the other should have updated. The queue's name is one of a few per
 * workspace, picked by the end-user's name, which it must not hold: queue names outlive an erasure.
 */
function extractionQueueOf(workspaceId: string, userRef: string | null): string {
  const bucket = createHash('sha256').update(userRef ?? '').digest().readUInt32BE(0) % EXTRACTION_QUEUES_PER_WORKSPACE;
  return `facts:${workspaceId}:${bucket}`;
}

export interface ClaimedSubmission {
  id: string;
  organization_id: string;
  workspace_id: string;
  user_ref: string | null;
  content: string;
  non_eu_accepted: boolean;
  settings: WorkspaceSettings;
}

/**
 * Marks a pending submission as processing and returns it with what extraction needs to know about
 * its workspace (the extraction model, the routing policy) and organization (the non-EU
 * acceptance, read now rather than at submission: a withdrawal applies to queued work). Undefined
 * when it is gone (erased) or already finished (a retried job).
 */
export async function claimSubmission(db: Queryable, id: string): Promise<ClaimedSubmission | undefined> {
  const { rows } = await db.query<Omit<ClaimedSubmission, 'settings'> & SettingsColumns>(
    `with claimed as (
       update fact_submissions set status = 'processing'
        where id = $1 and status in ('queued', 'processing') and content is not null
       returning id, organization_id, workspace_id, user_ref, content
     )
     select c.id, c.organization_id, c.workspace_id, c.user_ref, c.content,
            o.non_eu_accepted_at is not null as non_eu_accepted,
            s.allowed_providers, s.allowed_models, s.extraction_model, s.firewall_default, s.firewall_language,
            s.cache_enabled
       from claimed c
       join organizations o on o.id = c.organization_id
       left join workspace_settings s on s.workspace_id = c.workspace_id`,
    [id],
  );
  const row = rows[0];
  if (!row) return undefined;
  return {
    id: row.id,
    organization_id: row.organization_id,
    workspace_id: row.workspace_id,
    user_ref: row.user_ref,
    content: row.content,
    non_eu_accepted: row.non_eu_accepted,
    settings: settingsFromColumns(row),
  };
}

/**
 * The submissions of the same end-user (or the shared knowledge) of the workspace that came before
 * `id` and still wait for their facts, oldest first.
 */
export async function pendingSubmissionsBefore(db: Queryable, id: string): Promise<string[]> {
  const { rows } = await db.query<{ id: string }>(
    `select e.id
       from fact_submissions s
       join fact_submissions e
         on e.workspace_id = s.workspace_id and e.user_ref is not distinct from s.user_ref
        and (e.created_at, e.id) < (s.created_at, s.id)
        and e.status in ('queued', 'processing') and e.content is not null
      where s.id = $1
      order by e.created_at, e.id`,
    [id],
  );
  return rows.map((row) => row.id);
}

/** A failed attempt: the submission waits for its retry, with why (cleared when it ends). */
export async function awaitRetry(db: Queryable, id: string, error: string): Promise<void> {
  await db.query(`update fact_submissions set status = 'queued', error = $2 where id = $1 and status = 'processing'`, [id, error]);
}

/**
 * Under the end-user lock: whether the submission is still waiting for its facts, locking its
 * row. False means an erasure (or a finished duplicate run) got there first: store nothing.
 */
export async function holdPendingSubmission(db: PoolClient, id: string): Promise<boolean> {
  const { rowCount } = await db.query(
    `select 1 from fact_submissions where id = $1 and status in ('queued', 'processing') for update`,
    [id],
  );
  return (rowCount ?? 0) > 0;
}

export interface SubmissionOutcome {
  status: 'done' | 'empty' | 'failed';
  extractor: string;
  found: number;
  added: number;
  updated: number;
  deleted: number;
  error?: string;
}

export interface SubmissionRow {
  id: string;
  status: 'queued' | 'processing' | 'done' | 'empty' | 'failed';
  user_ref: string | null;
  extractor: string | null;
  facts_found: number | null;
  facts_added: number | null;
  facts_updated: number | null;
  facts_deleted: number | null;
  error: string | null;
  created_at: Date;
  completed_at: Date | null;
}

/** A submission of the workspace, without its text (GET /recall/submissions/{id}). */
export async function findSubmission(db: Queryable, workspaceId: string, id: string): Promise<SubmissionRow | undefined> {
  if (!isKeyId(id)) return undefined;
  const { rows } = await db.query<SubmissionRow>(
    `select id, status, user_ref, extractor, facts_found, facts_added, facts_updated, facts_deleted, error, created_at, completed_at
       from fact_submissions
      where workspace_id = $1 and id = $2`,
    [workspaceId, id],
  );
  return rows[0];
}

/** Records how extraction ended and drops the submitted text, which has served its purpose. */
export async function finishSubmission(db: Queryable, id: string, outcome: SubmissionOutcome): Promise<void> {
  await db.query(
    `update fact_submissions
        set status = $2, extractor = $3, facts_found = $4, facts_added = $5, facts_updated = $6,
            facts_deleted = $7, error = $8, content = null, completed_at = now()
      where id = $1`,
    [id, outcome.status, outcome.extractor, outcome.found, outcome.added, outcome.updated, outcome.deleted, outcome.error ?? null],
  );
}

// ---------------------------------------------------------------------------------------------
// Facts
// ---------------------------------------------------------------------------------------------

export interface NewFact {
  content: string;
  model: string;
  embedding: number[];
  tsConfig: string;
}

const vectorText = (embedding: number[]) => JSON.stringify(embedding);

/**
 * The fact that `fact` restates: one with equal normalised text, else the nearest at or above the
 * model's duplicate threshold. Runs in the write transaction, after hnsw.iterative_scan was set,
 * so a filter on one end-user still finds neighbours among many other users' facts.
 */
export async function findDuplicate(
  db: PoolClient,
  scope: FactScope,
  fact: NewFact,
): Promise<{ id: string; content: string; submission_id: string | null } | undefined> {
  const params: unknown[] = [scope.workspaceId, contentHash(fact.content), vectorText(fact.embedding), fact.model, duplicateThreshold(fact.model)];
  const owner = scopeSql(scope, params);
  const { rows } = await db.query<{ id: string; content: string; submission_id: string | null }>(
    `with same_text as (
       select id, content, submission_id from facts where workspace_id = $1 and ${owner} and content_hash = $2
     ), nearest as materialized (
       select id, content, submission_id, embedding <=> $3::vector as distance
         from facts
        where workspace_id = $1 and ${owner} and model = $4
        order by embedding <=> $3::vector
        limit 5
     )
     select id, content, submission_id from same_text
     union all
     (select id, content, submission_id from nearest where 1 - distance >= $5 order by distance, id limit 1)
     limit 1`,
    params,
  );
  return rows[0];
}

/** The id of the scope's fact whose normalised text equals `content`'s, if any. */
export async function findSameText(db: Queryable, scope: FactScope, content: string): Promise<string | undefined> {
  const params: unknown[] = [scope.workspaceId, contentHash(content)];
  const { rows } = await db.query<{ id: string }>(
    `select id from facts where workspace_id = $1 and ${scopeSql(scope, params)} and content_hash = $2`,
    params,
  );
  return rows[0]?.id;
}

export async function insertFact(
  db: Queryable,
  owner: { organizationId: string } & FactScope,
  fact: NewFact,
  submissionId: string,
): Promise<void> {
  await db.query(
    `insert into facts (organization_id, workspace_id, user_ref, content, content_hash, model, embedding, ts_config, submission_id)
     values ($1, $2, $3, $4, $5, $6, $7::vector, $8::regconfig, $9)`,
    [
      owner.organizationId,
      owner.workspaceId,
      owner.userRef,
      fact.content,
      contentHash(fact.content),
      fact.model,
      vectorText(fact.embedding),
      fact.tsConfig,
      submissionId,
    ],
  );
}

/**
 * Rewrites a fact of the scope with new content; false when it no longer exists. `submissionId`:
 * the submission that said it, or null for a caller's correction (the fact keeps its own).
 */
export async function rewriteFact(db: Queryable, scope: FactScope, id: string, fact: NewFact, submissionId: string | null): Promise<boolean> {
  if (!UUID.test(id)) return false;
  const params: unknown[] = [
    scope.workspaceId,
    id,
    fact.content,
    contentHash(fact.content),
    fact.model,
    vectorText(fact.embedding),
    fact.tsConfig,
    submissionId,
  ];
  const { rowCount } = await db.query(
    `update facts
        set content = $3, content_hash = $4, model = $5, embedding = $6::vector, ts_config = $7::regconfig,
            submission_id = coalesce($8, submission_id), updated_at = now()
      where workspace_id = $1 and id = $2 and ${scopeSql(scope, params)}`,
    params,
  );
  return (rowCount ?? 0) > 0;
}

/**
 * The ids of the scope's facts that hold every word of `statement` (each fact's own text-search
 * configuration; stop words left out): what a statement withdrawing it deletes (factRules.ts).
 */
export async function factsStating(db: Queryable, scope: FactScope, statement: string, limit = 50): Promise<{ id: string; content: string }[]> {
  const params: unknown[] = [scope.workspaceId, statement, limit];
  const { rows } = await db.query<{ id: string; content: string }>(
    `select id, content from facts
      where workspace_id = $1 and ${scopeSql(scope, params)}
        and numnode(plainto_tsquery(ts_config, $2)) > 0 and tsv @@ plainto_tsquery(ts_config, $2)
      order by created_at, id
      limit $3`,
    params,
  );
  return rows;
}

/** Deletes one fact of the scope (an extraction's DELETE); false when it was already gone. */
export async function deleteFactInScope(db: Queryable, scope: FactScope, id: string): Promise<boolean> {
  if (!UUID.test(id)) return false;
  const params: unknown[] = [scope.workspaceId, id];
  const { rowCount } = await db.query(`delete from facts where workspace_id = $1 and id = $2 and ${scopeSql(scope, params)}`, params);
  return (rowCount ?? 0) > 0;
}

/** DELETE /memory/facts/{id}: any fact of the workspace; false for an unknown id or another workspace's. */
export async function forgetFact(db: Queryable, workspaceId: string, id: string): Promise<boolean> {
  if (!UUID.test(id)) return false;
  const { rowCount } = await db.query('delete from facts where workspace_id = $1 and id = $2', [workspaceId, id]);
  return (rowCount ?? 0) > 0;
}

/** GET /recall/facts/{id}: a fact of the workspace, or undefined for an unknown id or another workspace's. */
export async function findFact(db: Queryable, workspaceId: string, id: string): Promise<FactRow | undefined> {
  if (!UUID.test(id)) return undefined;
  const { rows } = await db.query<FactRow>(
    'select id, user_ref, content, created_at, updated_at from facts where workspace_id = $1 and id = $2',
    [workspaceId, id],
  );
  return rows[0];
}

/**
 * One page of the scope's facts, newest first, (created_at, id) descending: a stable order in which
 * a cursor names an exact position (in microseconds, which a JS Date would drop: the facts of one
 * extraction share their transaction's instant).
 */
export async function listFacts(
  db: Queryable,
  scope: FactScope,
  page: { after?: MicrosecondPosition; limit: number },
): Promise<(FactRow & { position_us: string })[]> {
  const params: unknown[] = [scope.workspaceId, page.limit, page.after?.us ?? null, page.after?.id ?? null];
  const { rows } = await db.query<FactRow & { position_us: string }>(
    `select id, user_ref, content, created_at, updated_at,
            (extract(epoch from created_at) * 1000000)::bigint::text as position_us
       from facts
      where workspace_id = $1 and ${scopeSql(scope, params)}
        and ($3::bigint is null
             or (created_at, id) < ('epoch'::timestamptz + $3::bigint * interval '1 microsecond', $4::uuid))
      order by created_at desc, id desc
      limit $2`,
    params,
  );
  return rows;
}

/**
 * For reconciliation by a model: the existing facts of the scope nearest to each embedding (up to
 * `perEmbedding` each, without repeats).
 */
export async function nearestFacts(
  db: Queryable,
  scope: FactScope,
  model: string,
  embeddings: number[][],
  perEmbedding: number,
): Promise<{ id: string; content: string }[]> {
  if (embeddings.length === 0) return [];
  const params: unknown[] = [scope.workspaceId, embeddings.map(vectorText), model, perEmbedding];
  const { rows } = await db.query<{ id: string; content: string }>(
    `select distinct on (n.id) n.id, n.content
       from unnest($2::text[]) as q(embedding)
       cross join lateral (
         select f.id, f.content from facts f
          where f.workspace_id = $1 and ${scopeSql(scope, params, 'f.')} and f.model = $3
          order by f.embedding <=> q.embedding::vector
          limit $4
       ) n
      order by n.id`,
    params,
  );
  return rows;
}

/**
 * GET /recall/facts?q=: the scope's `limit` most relevant facts (the vector and the full-text
 * rankings fused), best first. A ranking is answered whole, not paged.
 */
export async function findFacts(
  services: { pool: Pool; catalog: Catalog; adapters: Adapters },
  principal: Principal,
  query: { user_ref?: string; q: string; limit?: number },
): Promise<FactRow[]> {
  if (!asksAboutSomething(query.q)) return [];
  const scope: FactScope = { workspaceId: principal.workspaceId, userRef: query.user_ref ?? null };
  const limit = query.limit ?? SEARCH_LIMIT;
  const text = searchText(query.q);
  const { model, vectors } = await embedForMemory(services.catalog, services.adapters, [text], undefined, principal.settings);
  const rankings = await searchFacts(services.pool, {
    workspaceId: scope.workspaceId,
    userRef: scope.userRef,
    // Without user_ref the caller asked for the shared facts; with it, for that end-user's only.
    includeShared: scope.userRef === null,
    model: model.id,
    embedding: vectors[0]!,
    query: text,
    limit,
  });
  const fused = fuseFactHits({ byVector: related(model, rankings.byVector), byText: rankings.byText }).slice(
    0,
    limit,
  );
  if (fused.length === 0) return [];
  const { rows } = await services.pool.query<FactRow>(
    `select id, user_ref, content, created_at, updated_at from facts where workspace_id = $1 and id = any($2::uuid[])`,
    [scope.workspaceId, fused.map((h) => h.id)],
  );
  const byId = new Map(rows.map((r) => [r.id, r]));
  // A fact deleted between the search and this read is left out.
  return fused.flatMap((hit) => {
    const row = byId.get(hit.id);
    return row ? [{ ...row, score: hit.score }] : [];
  });
}
