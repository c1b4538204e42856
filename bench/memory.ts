/**
 * Document memory, measured end to end on this machine:
 *
 *   npm run bench:memory              # full run (~3 min on 2 cores)
 *   npm run bench:memory -- --quick   # smoke run: 100 documents, 10,000 chunks, 10 facts
 *
 *  1. ingest throughput: 1,000 documents of 5,000 characters POSTed to the web process, one worker
 *     process (WORKER_CONCURRENCY=8) chunking, embedding (local/embed-1024) and indexing them;
 *     chunks/s and documents/s from the first POST until the last document is ready;
 *  2. time to ready of one 100,000-character document (POST → GET shows ready), 3 runs;
 *  3. fact submit → queryable through the API (POST /v1/recall/facts, then polling
 *     GET /v1/recall/facts?user_ref=…), one at a time;
 *  4. retrieval over 100,000 chunks: rows with local embeddings written straight into the chunks
 *     table (not through the API), the migration's indexes built over them, then searchChunks()
 *     latency (vector + full text, as chat calls it) and recall@10 of its HNSW ranking against an
 *     exact scan (index scans disabled).
 *
 * Web and worker run as the Procfile runs them (dist/src/server.js, dist/src/worker.js) on a
 * database of their own (dropped, created, migrated; dropped again at the end, also on Ctrl-C).
 * Provider keys are blanked for them, so memory uses the built-in EU model and no network.
 */
import { cpus, loadavg, totalmem } from 'node:os';
import { migrate } from '../src/db/migrate.js';
import { createPool, type Pool } from '../src/db/pool.js';
import { embedBatch } from '../src/gateway/providers/local/embed.js';
import { embedForMemory } from '../src/memory/embedder.js';
import { searchChunks } from '../src/memory/search.js';
import { loadCatalog } from '../src/gateway/catalog.js';
import { createAdapters, closeAdapters } from '../src/gateway/providers/index.js';
import { fromRoot } from '../src/paths.js';
import { createKey } from '../src/tenancy/keys.js';
import { cpuMsOf, freePort, killAllNow, postgresCpuDelta, postgresCpuMs, spawnManaged, stopAll, type Managed } from './gateway-procs.js';
import { Corpus, type Lang, type Topic } from './memory-corpus.js';
import { benchDatabaseUrl, maintenanceQuery } from './bench-postgres.js';

// ---- settings -------------------------------------------------------------------------------

const args = new Set(process.argv.slice(2));
const QUICK = args.has('--quick');
for (const a of args) {
  if (a !== '--quick') {
    process.stderr.write(`bench:memory: unknown option ${a} (known: --quick)\n`);
    process.exit(2);
  }
}

const BENCH_DB = 'polder_bench_memory';
const INGEST_DOCS = QUICK ? 100 : 1_000;
const INGEST_CHARS = 5_000;
const POST_CONCURRENCY = 16;
const BIG_CHARS = 100_000;
const BIG_RUNS = 3;
const FACTS = QUICK ? 10 : 40;
const RETRIEVAL_CHUNKS = QUICK ? 10_000 : 100_000;
const CHUNKS_PER_DOC = 100;
// LangChain's default chunk size; the embedding and the indexes cost the same per chunk either way.
const CHUNK_CHARS = 1_000;
const INSERT_BATCH = 500;
const QUERIES = QUICK ? 100 : 300;
const RECALL_QUERIES = QUICK ? 20 : 50;
const K = 10;
const TARGETS = { chunksPerSec: 500, bigReadyMs: 2_000, retrievalP50Ms: 10, recall: 0.95, factP95Ms: 1_000 };
// Blank provider keys: memory then embeds with local/embed-1024, in process, without network.
const NO_KEYS = { MISTRAL_API_KEY: '', SCW_SECRET_KEY: '', OPENAI_API_KEY: '', ANTHROPIC_API_KEY: '' };

const log = (line: string) => process.stderr.write(`bench:memory: ${line}\n`);
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const now = () => performance.now();

function percentile(values: number[], p: number): number {
  if (values.length === 0) return NaN;
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))]!;
}

const fmt = (n: number, digits = 1) => (Number.isFinite(n) ? n.toLocaleString('en-US', { maximumFractionDigits: digits, minimumFractionDigits: digits }) : 'n/a');
const int = (n: number) => Math.round(n).toLocaleString('en-US');

// ---- processes ------------------------------------------------------------------------------

interface Services {
  url: string;
  pool: Pool;
  baseUrl: string;
  web: Managed;
  worker: Managed;
}

async function startServices(url: string, pool: Pool): Promise<Services> {
  const port = await freePort();
  const env = { ...process.env, ...NO_KEYS, DATABASE_URL: url, LOG_LEVEL: 'warn' };
  const web = spawnManaged('web', process.execPath, [fromRoot('dist/src/server.js')], {
    env: { ...env, PORT: String(port) },
    stdio: ['ignore', 'inherit', 'inherit'],
  });
  const worker = spawnManaged('worker', process.execPath, [fromRoot('dist/src/worker.js')], {
    env: { ...env, WORKER_CONCURRENCY: '8' },
    stdio: ['ignore', 'inherit', 'inherit'],
  });
  const baseUrl = `http://127.0.0.1:${port}`;
  const deadline = Date.now() + 30_000;
  for (;;) {
    const webReady = await fetch(`${baseUrl}/readyz`).then((r) => r.ok, () => false);
    // The worker's pool writes its heartbeat row the moment it starts taking jobs.
    const workerReady = (await pool.query('select count(*)::int as n from worker_heartbeats')).rows[0].n > 0;
    if (webReady && workerReady) break;
    if (Date.now() > deadline) throw new Error('web or worker did not start within 30 s');
    await sleep(100);
  }
  return { url, pool, baseUrl, web, worker };
}

async function call(baseUrl: string, key: string, method: string, path: string, body?: unknown): Promise<{ status: number; body: any }> {
  const response = await fetch(`${baseUrl}${path}`, {
    method,
    headers: { authorization: `Bearer ${key}`, ...(body !== undefined ? { 'content-type': 'application/json' } : {}) },
    ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
  });
  const text = await response.text();
  return { status: response.status, body: text ? JSON.parse(text) : undefined };
}

/** Runs `work` over `items` with at most `limit` at once. */
async function inParallel<T>(items: T[], limit: number, work: (item: T, index: number) => Promise<void>): Promise<void> {
  let next = 0;
  await Promise.all(
    Array.from({ length: Math.min(limit, items.length) }, async () => {
      while (next < items.length) {
        const index = next++;
        await work(items[index]!, index);
      }
    }),
  );
}

interface CpuSnapshot {
  web: number;
  worker: number;
  postgres: Map<number, number>;
  self: number;
}
const cpuNow = (s: Services): CpuSnapshot => ({
  web: cpuMsOf(s.web.child.pid!),
  worker: cpuMsOf(s.worker.child.pid!),
  postgres: postgresCpuMs(),
  self: process.cpuUsage().user / 1000 + process.cpuUsage().system / 1000,
});
const cpuSince = (s: Services, before: CpuSnapshot, seconds: number) => {
  const after = cpuNow(s);
  const share = (ms: number) => `${fmt(ms / 1000 / seconds, 2)}`;
  return `CPU cores busy: worker ${share(after.worker - before.worker)}, web ${share(after.web - before.web)}, postgres ${share(
    postgresCpuDelta(before.postgres, after.postgres),
  )}, bench ${share(after.self - before.self)}`;
};

// ---- 1. ingest throughput -------------------------------------------------------------------

interface IngestResult {
  docs: number;
  chunks: number;
  failed: number;
  seconds: number;
  postSeconds: number;
  latencyP50: number;
  latencyP95: number;
  cpu: string;
}

async function benchIngest(s: Services, key: string, workspaceId: string, corpus: Corpus): Promise<IngestResult> {
  const collection = (await call(s.baseUrl, key, 'POST', '/v1/recall/collections', { name: 'Ingest' })).body.data.slug;
  const texts = Array.from({ length: INGEST_DOCS }, () => corpus.exact(INGEST_CHARS));
  log(`ingest: posting ${INGEST_DOCS} documents of ${INGEST_CHARS} characters`);
  const cpu = cpuNow(s);
  const start = now();
  await inParallel(texts, POST_CONCURRENCY, async (text, i) => {
    const response = await call(s.baseUrl, key, 'POST', '/v1/memory/documents', { title: `Document ${i}`, text, collection });
    if (response.status !== 201) throw new Error(`ingest POST answered ${response.status}: ${JSON.stringify(response.body)}`);
  });
  const postSeconds = (now() - start) / 1000;
  let row: { ready: number; failed: number; chunks: number };
  for (;;) {
    row = (
      await s.pool.query(
        `select count(*) filter (where status = 'ready')::int as ready, count(*) filter (where status = 'failed')::int as failed,
                coalesce(sum(chunk_count), 0)::int as chunks
           from documents where workspace_id = $1`,
        [workspaceId],
      )
    ).rows[0];
    if (row.ready + row.failed >= INGEST_DOCS) break;
    await sleep(20);
  }
  const seconds = (now() - start) / 1000;
  const cpuLine = cpuSince(s, cpu, seconds);
  const latencies = (
    await s.pool.query<{ ms: number }>(
      `select extract(epoch from (updated_at - created_at)) * 1000 as ms from documents where workspace_id = $1 and status = 'ready'`,
      [workspaceId],
    )
  ).rows.map((r) => Number(r.ms));
  return {
    docs: row.ready,
    chunks: row.chunks,
    failed: row.failed,
    seconds,
    postSeconds,
    latencyP50: percentile(latencies, 50),
    latencyP95: percentile(latencies, 95),
    cpu: cpuLine,
  };
}

// ---- 2. one 100,000-character document ------------------------------------------------------

async function benchBigDocument(s: Services, key: string, corpus: Corpus): Promise<{ runs: number[]; chunks: number; serverMs: number[] }> {
  const collection = (await call(s.baseUrl, key, 'POST', '/v1/recall/collections', { name: 'Big' })).body.data.slug;
  const runs: number[] = [];
  const serverMs: number[] = [];
  let chunks = 0;
  for (let run = 0; run < BIG_RUNS; run += 1) {
    const text = corpus.exact(BIG_CHARS);
    const start = now();
    const created = await call(s.baseUrl, key, 'POST', '/v1/memory/documents', { title: `Big ${run}`, text, collection });
    if (created.status !== 201) throw new Error(`big POST answered ${created.status}`);
    const id = created.body.data.id as string;
    for (;;) {
      const document = (await call(s.baseUrl, key, 'GET', `/v1/memory/documents/${id}`)).body.data;
      if (document.status === 'ready') {
        chunks = document.chunk_count;
        break;
      }
      if (document.status === 'failed') throw new Error(`the big document failed: ${document.error}`);
      if (now() - start > 60_000) throw new Error('the big document was not ready within 60 s');
      await sleep(5);
    }
    runs.push(now() - start);
    const row = (await s.pool.query('select extract(epoch from (updated_at - created_at)) * 1000 as ms from documents where id = $1', [id])).rows[0];
    serverMs.push(Number(row.ms));
  }
  return { runs, chunks, serverMs };
}

// ---- 3. facts -------------------------------------------------------------------------------

async function benchFacts(s: Services, key: string, corpus: Corpus): Promise<{ latencies: number[] } | { missing: string }> {
  const probe = await call(s.baseUrl, key, 'GET', '/v1/recall/facts?user_ref=probe');
  if (probe.status === 404 || probe.status === 405) return { missing: 'n/a (facts endpoint missing)' };
  const latencies: number[] = [];
  for (let i = 0; i < FACTS; i += 1) {
    const userRef = `bench-user-${i}`;
    const start = now();
    const submitted = await call(s.baseUrl, key, 'POST', '/v1/recall/facts', { content: corpus.fact(i), user_ref: userRef });
    if (submitted.status === 404) return { missing: 'n/a (facts endpoint missing)' };
    if (submitted.status !== 202) throw new Error(`fact POST answered ${submitted.status}: ${JSON.stringify(submitted.body)}`);
    for (;;) {
      const listed = await call(s.baseUrl, key, 'GET', `/v1/recall/facts?user_ref=${encodeURIComponent(userRef)}`);
      if (listed.status === 200 && listed.body.data.length > 0) break;
      if (now() - start > 30_000) throw new Error(`fact ${i} was not queryable within 30 s`);
      await sleep(5);
    }
    latencies.push(now() - start);
  }
  return { latencies };
}

// ---- 4. retrieval ---------------------------------------------------------------------------

interface RetrievalResult {
  chunks: number;
  loadSeconds: number;
  hnswSeconds: number;
  ginSeconds: number;
  embedP50: number;
  searchP50: number;
  searchP99: number;
  questionRecall: RecallResult;
  passageRecall: RecallResult;
}

/**
 * An array of vectors in Postgres's binary array format (element type: pgvector's vector, whose
 * binary form is int16 dimensions, int16 unused, float4s), sent as a binary parameter: neither
 * side has to print or parse ~100 million decimal numbers.
 */
function binaryVectors(vectors: Float32Array[], vectorOid: number): Buffer {
  const dims = vectors[0]!.length;
  const buffer = Buffer.allocUnsafe(20 + vectors.length * (8 + 4 * dims));
  let at = buffer.writeInt32BE(1, 0);
  at = buffer.writeInt32BE(0, at);
  at = buffer.writeUInt32BE(vectorOid, at);
  at = buffer.writeInt32BE(vectors.length, at);
  at = buffer.writeInt32BE(1, at);
  for (const vector of vectors) {
    at = buffer.writeInt32BE(4 + 4 * dims, at);
    at = buffer.writeInt16BE(dims, at);
    at = buffer.writeInt16BE(0, at);
    for (let i = 0; i < dims; i += 1) at = buffer.writeFloatBE(vector[i]!, at);
  }
  return buffer;
}

const TS_CONFIG: Record<Lang, string> = { nl: 'dutch', en: 'english', fr: 'french', de: 'german' };

/** Writes the chunks of documents of 100 chunks each, every document on a topic of its own. */
async function loadChunks(
  pool: Pool,
  scope: { organizationId: string; workspaceId: string },
  corpus: Corpus,
  model: string,
): Promise<{ topics: Topic[]; documentIds: string[] }> {
  const vectorOid = (await pool.query<{ oid: number }>(`select 'vector'::regtype::oid as oid`)).rows[0]!.oid;
  const collectionId = (
    await pool.query<{ id: string }>(
      `insert into collections (organization_id, workspace_id, slug, name) values ($1, $2, 'retrieval', 'Retrieval') returning id`,
      [scope.organizationId, scope.workspaceId],
    )
  ).rows[0]!.id;
  const documents = Math.ceil(RETRIEVAL_CHUNKS / CHUNKS_PER_DOC);
  const documentIds = (
    await pool.query<{ id: string }>(
      `insert into documents (organization_id, workspace_id, collection_id, title, text, status, chunk_count, token_count)
       select $1, $2, $3, 'Document ' || n, '(generated for the benchmark)', 'ready', $4, 0
         from generate_series(1, $5) as n
       returning id`,
      [scope.organizationId, scope.workspaceId, collectionId, CHUNKS_PER_DOC, documents],
    )
  ).rows.map((r) => r.id);
  const topics = Array.from({ length: documents }, () => corpus.topic());
  // Two inserts in flight: Postgres works on two batches while the next one is generated here.
  const inFlight: Promise<unknown>[] = [];
  for (let start = 0; start < RETRIEVAL_CHUNKS; start += INSERT_BATCH) {
    const count = Math.min(INSERT_BATCH, RETRIEVAL_CHUNKS - start);
    const docOf = (i: number) => Math.floor((start + i) / CHUNKS_PER_DOC);
    const texts = Array.from({ length: count }, (_, i) => corpus.text(CHUNK_CHARS, topics[docOf(i)]!));
    const vectors = binaryVectors(embedBatch(texts), vectorOid);
    if (inFlight.length >= 2) await inFlight.shift();
    inFlight.push(
      pool.query(
        `insert into chunks (organization_id, workspace_id, collection_id, document_id, position, text, token_count, model,
                             embedding, ts_config)
         select $1, $2, $3, c.document_id, c.position, c.text, c.tokens, $4, c.embedding, c.config::regconfig
           from unnest($5::uuid[], $6::int[], $7::text[], $8::int[], $9::vector[], $10::text[])
                as c(document_id, position, text, tokens, embedding, config)`,
        [
          scope.organizationId,
          scope.workspaceId,
          collectionId,
          model,
          texts.map((_, i) => documentIds[docOf(i)]!),
          texts.map((_, i) => (start + i) % CHUNKS_PER_DOC),
          texts,
          texts.map((t) => Math.round(t.length / 4)),
          vectors,
          texts.map((_, i) => TS_CONFIG[topics[docOf(i)]!.lang]),
        ],
      ),
    );
    if ((start / INSERT_BATCH) % 40 === 0) log(`retrieval: ${int(start)} of ${int(RETRIEVAL_CHUNKS)} chunks written`);
  }
  await Promise.all(inFlight);
  return { topics, documentIds };
}

interface RecallResult {
  mean: number;
  worst: number;
  /** Share of the top 10 from the document the query was made from: by HNSW, and by exact scan. */
  ownDocument: { hnsw: number; exact: number };
}

async function benchRetrieval(s: Services, corpus: Corpus): Promise<RetrievalResult> {
  const catalog = loadCatalog({ env: { ...process.env, ...NO_KEYS } });
  const adapters = createAdapters();
  try {
    const created = await createKey(s.pool, { organization: 'bench', workspace: 'retrieval', kind: 'organization' });
    const scope = { organizationId: created.organization_id, workspaceId: created.workspace_id };
    const model = (await embedForMemory(catalog, adapters, ['probe'])).model.id;

    // Bulk loading is faster without the indexes; they are rebuilt afterwards from the
    // migration's own definitions, so what is measured is what production has.
    const indexes = (
      await s.pool.query<{ indexname: string; indexdef: string }>(
        `select indexname, indexdef from pg_indexes where tablename = 'chunks' and indexname in ('chunks_embedding_idx', 'chunks_tsv_idx')`,
      )
    ).rows;
    for (const index of indexes) await s.pool.query(`drop index ${index.indexname}`);
    let start = now();
    const { topics, documentIds } = await loadChunks(s.pool, scope, corpus, model);
    const loadSeconds = (now() - start) / 1000;
    const client = await s.pool.connect();
    const timings: Record<string, number> = {};
    try {
      // The HNSW graph is built in memory when it fits maintenance_work_mem, and by two processes
      // (the leader and one worker) once the table says it may: its heap is small (the vectors
      // are TOASTed), so Postgres would otherwise plan no parallel worker at all.
      await client.query(`set maintenance_work_mem = '1GB'`);
      await client.query('set max_parallel_maintenance_workers = 1');
      await client.query('alter table chunks set (parallel_workers = 1)');
      for (const index of indexes) {
        log(`retrieval: building ${index.indexname}`);
        start = now();
        await client.query(index.indexdef);
        timings[index.indexname] = (now() - start) / 1000;
      }
      await client.query('vacuum analyze chunks');
    } finally {
      client.release();
    }

    // Questions: a few words about one document's subject, as a user would ask. Passages: a
    // held-out text like the stored chunks (the usual way to measure an ANN index).
    const topicOf = (i: number) => topics[(i * 7_919) % topics.length]!;
    const questions = Array.from({ length: QUERIES }, (_, i) => corpus.query(topicOf(i)));
    const passages = Array.from({ length: RECALL_QUERIES }, (_, i) => corpus.text(CHUNK_CHARS, topicOf(i + QUERIES)));
    const embedMs: number[] = [];
    const embed = async (texts: string[]) => {
      const out: number[][] = [];
      for (const text of texts) {
        const t = now();
        out.push((await embedForMemory(catalog, adapters, [text])).vectors[0]!);
        embedMs.push(now() - t);
      }
      return out;
    };
    const questionVectors = await embed(questions);
    const passageVectors = await embed(passages);
    const search = (query: string, embedding: number[]) =>
      searchChunks(s.pool, { workspaceId: scope.workspaceId, collectionIds: null, model, embedding, query, limit: K });
    // Warm-up: the index pages into shared buffers / the OS cache, the plans into the backends.
    for (let i = 0; i < Math.min(50, QUERIES); i += 1) await search(questions[i]!, questionVectors[i]!);
    const searchMs: number[] = [];
    for (let i = 0; i < QUERIES; i += 1) {
      const t = now();
      await search(questions[i]!, questionVectors[i]!);
      searchMs.push(now() - t);
    }

    log(`retrieval: recall@${K} against exact scans (${RECALL_QUERIES} questions, ${RECALL_QUERIES} passages)`);
    const recall = async (texts: string[], vectors: number[][], offset: number): Promise<RecallResult> => {
      const recalls: number[] = [];
      let own = 0;
      let ownExact = 0;
      for (let i = 0; i < RECALL_QUERIES; i += 1) {
        const source = documentIds[topics.indexOf(topicOf(i + offset))];
        const hits = (await search(texts[i]!, vectors[i]!)).byVector;
        const approximate = new Set(hits.map((h) => h.id));
        const exact = await exactNearest(s.pool, scope.workspaceId, model, vectors[i]!);
        recalls.push(exact.filter((e) => approximate.has(e.id)).length / exact.length);
        own += hits.filter((h) => h.documentId === source).length / K;
        ownExact += exact.filter((e) => e.document_id === source).length / K;
      }
      return {
        mean: recalls.reduce((a, b) => a + b, 0) / recalls.length,
        worst: Math.min(...recalls),
        ownDocument: { hnsw: own / RECALL_QUERIES, exact: ownExact / RECALL_QUERIES },
      };
    };
    return {
      chunks: RETRIEVAL_CHUNKS,
      loadSeconds,
      hnswSeconds: timings.chunks_embedding_idx ?? NaN,
      ginSeconds: timings.chunks_tsv_idx ?? NaN,
      embedP50: percentile(embedMs, 50),
      searchP50: percentile(searchMs, 50),
      searchP99: percentile(searchMs, 99),
      questionRecall: await recall(questions, questionVectors, 0),
      passageRecall: await recall(passages, passageVectors, QUERIES),
    };
  } finally {
    await closeAdapters(adapters);
  }
}

/** The true nearest chunks: a (parallel) sequential scan, every index scan disabled for the transaction. */
async function exactNearest(
  pool: Pool,
  workspaceId: string,
  model: string,
  embedding: number[],
): Promise<{ id: string; document_id: string }[]> {
  const client = await pool.connect();
  try {
    await client.query('begin');
    await client.query('set local enable_indexscan = off');
    await client.query('set local enable_bitmapscan = off');
    await client.query('set local max_parallel_workers_per_gather = 2');
    const { rows } = await client.query<{ id: string; document_id: string }>(
      `select id::text, document_id from chunks where workspace_id = $1 and model = $2 order by embedding <=> $3::vector limit $4`,
      [workspaceId, model, JSON.stringify(embedding), K],
    );
    await client.query('commit');
    return rows;
  } finally {
    client.release();
  }
}

// ---- report ---------------------------------------------------------------------------------

function table(rows: string[][]): string {
  const widths = rows[0]!.map((_, c) => Math.max(...rows.map((r) => r[c]!.length)));
  const line = (r: string[]) => `| ${r.map((cell, c) => cell.padEnd(widths[c]!)).join(' | ')} |`;
  return [line(rows[0]!), `|${widths.map((w) => '-'.repeat(w + 2)).join('|')}|`, ...rows.slice(1).map(line)].join('\n');
}

const verdict = (ok: boolean | undefined) => (ok === undefined ? '–' : ok ? 'yes' : 'NO');

// ---- main -----------------------------------------------------------------------------------

async function main(): Promise<void> {
  const started = now();
  // Other processes on the machine take CPU from every figure below: say how busy it was.
  const loadBefore = loadavg()[0]!;
  const url = benchDatabaseUrl(BENCH_DB);
  await maintenanceQuery(`drop database if exists ${BENCH_DB} with (force)`);
  await maintenanceQuery(`create database ${BENCH_DB}`);
  const pool = createPool(url, 8);
  try {
    await migrate(pool);
    const corpus = new Corpus();
    const services = await startServices(url, pool);
    const ingestKey = await createKey(pool, { organization: 'bench', workspace: 'ingest', kind: 'organization' });

    const ingest = await benchIngest(services, ingestKey.key, ingestKey.workspace_id, corpus);
    log(`ingest: ${ingest.docs} ready, ${ingest.failed} failed, ${ingest.chunks} chunks in ${fmt(ingest.seconds, 2)} s`);
    const big = await benchBigDocument(services, ingestKey.key, corpus);
    log(`big document: ${big.runs.map((ms) => fmt(ms, 0)).join(', ')} ms`);
    const facts = await benchFacts(services, ingestKey.key, corpus);
    log(`facts: ${'missing' in facts ? facts.missing : `${facts.latencies.length} measured`}`);
    const retrieval = await benchRetrieval(services, corpus);

    const chunksPerSec = ingest.chunks / ingest.seconds;
    const bigMedian = percentile(big.runs, 50);
    const rows = [
      ['measure', 'result', 'target', 'met'],
      [
        `ingest ${int(INGEST_DOCS)} docs × ${int(INGEST_CHARS)} chars, 1 worker × 8 (queued → ready)`,
        `${int(chunksPerSec)} chunks/s · ${fmt(ingest.docs / ingest.seconds, 0)} docs/s (${int(ingest.chunks)} chunks in ${fmt(ingest.seconds, 2)} s)`,
        `≥ ${TARGETS.chunksPerSec} chunks/s`,
        verdict(chunksPerSec >= TARGETS.chunksPerSec && ingest.failed === 0),
      ],
      [
        '  per document, created → ready (server clock)',
        `p50 ${fmt(ingest.latencyP50, 0)} ms · p95 ${fmt(ingest.latencyP95, 0)} ms`,
        '',
        '–',
      ],
      [
        `one ${int(BIG_CHARS)}-char document, POST → GET ready (${BIG_RUNS} runs)`,
        `median ${fmt(bigMedian / 1000, 2)} s (${big.runs.map((ms) => fmt(ms / 1000, 2)).join(' / ')} s; ${big.chunks} chunks)`,
        `≤ ${TARGETS.bigReadyMs / 1000} s`,
        verdict(bigMedian <= TARGETS.bigReadyMs),
      ],
      [
        `retrieval over ${int(retrieval.chunks)} chunks: searchChunks (vector + text, k=${K}), questions`,
        `p50 ${fmt(retrieval.searchP50, 2)} ms · p99 ${fmt(retrieval.searchP99, 2)} ms`,
        `p50 ≤ ${TARGETS.retrievalP50Ms} ms`,
        verdict(retrieval.searchP50 <= TARGETS.retrievalP50Ms),
      ],
      ['  + query embedding (local/embed-1024)', `p50 ${fmt(retrieval.embedP50, 2)} ms`, '', '–'],
      [
        `recall@${K} of the HNSW ranking vs an exact scan: passages (${RECALL_QUERIES})`,
        `${fmt(retrieval.passageRecall.mean, 3)} (worst query ${fmt(retrieval.passageRecall.worst, 1)})`,
        `≥ ${TARGETS.recall}`,
        verdict(retrieval.passageRecall.mean >= TARGETS.recall),
      ],
      [
        `  … questions of 3–5 words (${RECALL_QUERIES})`,
        `${fmt(retrieval.questionRecall.mean, 3)} (worst query ${fmt(retrieval.questionRecall.worst, 1)})`,
        `≥ ${TARGETS.recall}`,
        verdict(retrieval.questionRecall.mean >= TARGETS.recall),
      ],
      [
        '  top 10 from the document asked about: HNSW / exact',
        `passages ${fmt(retrieval.passageRecall.ownDocument.hnsw, 2)} / ${fmt(retrieval.passageRecall.ownDocument.exact, 2)} · ` +
          `questions ${fmt(retrieval.questionRecall.ownDocument.hnsw, 2)} / ${fmt(retrieval.questionRecall.ownDocument.exact, 2)}`,
        '',
        '–',
      ],
      'missing' in facts
        ? ['fact submit → queryable (API)', facts.missing, `p95 ≤ ${TARGETS.factP95Ms / 1000} s`, '–']
        : [
            `fact submit → queryable via the API (${facts.latencies.length} facts)`,
            `p50 ${fmt(percentile(facts.latencies, 50), 0)} ms · p95 ${fmt(percentile(facts.latencies, 95), 0)} ms`,
            `p95 ≤ ${TARGETS.factP95Ms / 1000} s`,
            verdict(percentile(facts.latencies, 95) <= TARGETS.factP95Ms),
          ],
    ];
    const machine = `${cpus().length} cores (${cpus()[0]?.model.trim()}), ${fmt(totalmem() / 2 ** 30, 0)} GiB, node ${process.version}`;
    process.stdout.write(`\nbench:memory${QUICK ? ' --quick' : ''} on ${machine}\n\n${table(rows)}\n\n`);
    process.stdout.write(
      [
        `ingest: ${ingest.failed} failed; POSTs took ${fmt(ingest.postSeconds, 2)} s; ${ingest.cpu}`,
        `big document, server side created → ready: ${big.serverMs.map((ms) => fmt(ms, 0)).join(' / ')} ms`,
        `retrieval setup: ${int(retrieval.chunks)} chunks of ~${int(CHUNK_CHARS)} chars written in ${fmt(retrieval.loadSeconds, 1)} s, ` +
          `HNSW built in ${fmt(retrieval.hnswSeconds, 1)} s, GIN in ${fmt(retrieval.ginSeconds, 1)} s`,
        `total ${fmt((now() - started) / 1000, 0)} s; load average (1 min) ${fmt(loadBefore, 2)} at the start, ${fmt(loadavg()[0]!, 2)} at the end`,
      ].join('\n') + '\n',
    );
  } finally {
    await stopAll();
    await pool.end();
    await maintenanceQuery(`drop database if exists ${BENCH_DB} with (force)`);
  }
}

for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.on(signal, () => {
    killAllNow();
    void maintenanceQuery(`drop database if exists ${BENCH_DB} with (force)`).finally(() => process.exit(130));
  });
}
process.on('exit', () => killAllNow());

await main().catch((err: unknown) => {
  process.stderr.write(`bench:memory failed: ${(err as Error).stack ?? String(err)}\n`);
  process.exitCode = 1;
});
