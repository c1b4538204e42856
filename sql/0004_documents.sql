-- Document memory: collections, the documents ingested into them, and the chunks that retrieval
-- searches. Plus the heartbeats that let a worker free the jobs of a worker that died.

create table collections (
  id uuid primary key default gen_random_uuid(),
  organization_id uuid not null references organizations (id) on delete cascade,
  workspace_id uuid not null references workspaces (id) on delete cascade,
  -- Derived from the name (lowercase a-z0-9-), unique per workspace: used in paths and in chat.
  slug text not null,
  name text not null,
  created_at timestamptz not null default now(),
  unique (workspace_id, slug)
);

create table documents (
  id uuid primary key default gen_random_uuid(),
  organization_id uuid not null references organizations (id) on delete cascade,
  workspace_id uuid not null references workspaces (id) on delete cascade,
  -- Deleting a collection deletes its documents, and through them their chunks.
  collection_id uuid not null references collections (id) on delete cascade,
  title text not null,
  source text,
  -- Kept so a retried ingest job can start again from the text.
  text text not null,
  status text not null default 'queued' check (status in ('queued', 'processing', 'ready', 'failed')),
  -- Null until ready.
  chunk_count integer,
  token_count integer,
  -- The text-search configuration its chunks were indexed with (from the detected language).
  ts_config regconfig,
  -- Why the ingest failed: a short message for the caller, never a stack.
  error text,
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now()
);

-- Listing pages newest first, by workspace or by collection; the id breaks ties of one instant.
create index documents_workspace_page_idx on documents (workspace_id, created_at desc, id desc);
create index documents_collection_page_idx on documents (collection_id, created_at desc, id desc);

create table chunks (
  id bigint generated always as identity primary key,
  organization_id uuid not null,
  workspace_id uuid not null,
  -- Copied from the document so that retrieval filters without a join.
  collection_id uuid not null,
  document_id uuid not null references documents (id) on delete cascade,
  position integer not null,
  text text not null,
  token_count integer not null,
  -- Vectors of different models are not comparable: a search only looks at its own model's.
  model text not null,
  embedding vector(1024) not null,
  -- Each chunk is indexed in its document's language; a query is parsed with the same config.
  ts_config regconfig not null,
  tsv tsvector generated always as (to_tsvector(ts_config, text)) stored,
  unique (document_id, position)
);

-- HNSW (cosine) over the embedding in half precision: a third of the size of a float4 index
-- (2.6 instead of 7.8 KB a chunk), so more of it stays in memory, and searches and inserts
-- touch fewer pages, at the same recall (bench/memory.ts). Distances shown to callers are still
-- computed from the float4 column. A query uses the index only with this very expression.
create index chunks_embedding_idx on chunks using hnsw ((embedding::halfvec(1024)) halfvec_cosine_ops);
create index chunks_tsv_idx on chunks using gin (tsv);
create index chunks_scope_idx on chunks (workspace_id, collection_id);

-- One row per live graphile-worker pool (one per worker process), refreshed every few seconds.
-- graphile-worker writes the pool's id into jobs.locked_by and, on its own, keeps a dead pool's
-- jobs locked for 4 hours; a pool whose row went stale is presumed dead and its jobs are freed
-- (src/workerLiveness.ts).
create table worker_heartbeats (
  pool_id text primary key,
  hostname text not null,
  pid integer not null,
  started_at timestamptz not null default now(),
  beat_at timestamptz not null default now()
);
