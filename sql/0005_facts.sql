-- Long-term facts: what the workspace knows about each of its end-users (user_ref) and, without a
-- user_ref, its shared knowledge. Submissions are extracted into facts by the
-- memory__extract_facts job; an erasure removes both for one end-user.

create table fact_submissions (
  id uuid primary key default gen_random_uuid(),
  organization_id uuid not null references organizations (id) on delete cascade,
  workspace_id uuid not null references workspaces (id) on delete cascade,
  -- null: shared knowledge of the workspace.
  user_ref text,
  -- The submitted text, needed only until extraction ends: it is cleared then (data minimisation),
  -- so the only copy of what the end-user said is in the facts kept from it.
  content text,
  -- queued → processing → done (facts found) | empty (nothing worth keeping) | failed (error says why).
  status text not null default 'queued' check (status in ('queued', 'processing', 'done', 'empty', 'failed')),
  -- 'rules' or the extraction model's id.
  extractor text,
  facts_found integer,
  facts_added integer,
  facts_updated integer,
  facts_deleted integer,
  error text,
  created_at timestamptz not null default now(),
  completed_at timestamptz
);

-- The erasure finds every submission of one end-user.
create index fact_submissions_owner_idx on fact_submissions (workspace_id, user_ref);

create table facts (
  id uuid primary key default gen_random_uuid(),
  organization_id uuid not null references organizations (id) on delete cascade,
  workspace_id uuid not null references workspaces (id) on delete cascade,
  user_ref text,
  content text not null,
  -- sha256 of the normalised content (case, accents, spacing and punctuation folded): the same
  -- statement is one fact, whatever its spelling.
  content_hash bytea not null,
  -- Vectors of different models are not comparable: a search only looks at its own model's.
  model text not null,
  embedding vector(1024) not null,
  -- Each fact is indexed in its detected language.
  ts_config regconfig not null,
  tsv tsvector generated always as (to_tsvector(ts_config, content)) stored,
  -- The submission that last wrote it (no foreign key: submissions are records, facts outlive them).
  submission_id uuid,
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now(),
  unique nulls not distinct (workspace_id, user_ref, content_hash)
);

-- Listing newest first per end-user (or the shared ones), and the scope filter of every search.
create index facts_owner_idx on facts (workspace_id, user_ref, created_at desc, id desc);
create index facts_embedding_idx on facts using hnsw (embedding vector_cosine_ops);
create index facts_tsv_idx on facts using gin (tsv);
