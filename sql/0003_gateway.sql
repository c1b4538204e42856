-- Chat and embeddings gateway: workspace routing settings, idempotent requests, usage, traces,
-- threads and the response cache.

-- One row per workspace once its settings were changed; absent means the defaults.
create table workspace_settings (
  workspace_id uuid primary key references workspaces (id) on delete cascade,
  organization_id uuid not null references organizations (id) on delete cascade,
  -- null: everything in the catalogue.
  allowed_providers text[],
  allowed_models text[],
  firewall_default boolean not null default true,
  firewall_language text not null default 'auto' check (firewall_language in ('auto', 'nl', 'en', 'fr', 'de')),
  cache_enabled boolean not null default true,
  extraction_model text,
  updated_at timestamptz not null default now()
);

-- Each request id once per workspace: a retry replays the stored response instead of running again.
create table requests (
  workspace_id uuid not null references workspaces (id) on delete cascade,
  request_id text not null,
  organization_id uuid not null references organizations (id) on delete cascade,
  kind text not null check (kind in ('chat', 'embeddings')),
  body_hash bytea not null,
  state text not null check (state in ('running', 'completed')),
  -- The first successful response (JSON body and the headers that describe it), for replays.
  response jsonb,
  created_at timestamptz not null default now(),
  completed_at timestamptz,
  primary key (workspace_id, request_id)
);

create index requests_created_idx on requests (created_at);

-- Written by the usage__record job; unique per request so a retried job or request never bills twice.
create table usage (
  id bigint generated always as identity primary key,
  organization_id uuid not null references organizations (id) on delete cascade,
  workspace_id uuid not null references workspaces (id) on delete cascade,
  request_id text not null,
  kind text not null check (kind in ('chat', 'embeddings', 'ingest')),
  model text not null,
  provider text,
  prompt_tokens integer not null default 0,
  completion_tokens integer not null default 0,
  cached_tokens integer not null default 0,
  credits_base numeric(20, 8) not null default 0,
  credits_services numeric(20, 8) not null default 0,
  credits_total numeric(20, 8) not null default 0,
  created_at timestamptz not null,
  unique (workspace_id, request_id)
);

create index usage_workspace_time_idx on usage (workspace_id, created_at);

create table traces (
  workspace_id uuid not null references workspaces (id) on delete cascade,
  id text not null,
  organization_id uuid not null references organizations (id) on delete cascade,
  key_id uuid,
  name text,
  tags text[] not null default '{}',
  thread text,
  end_user text,
  application text,
  trace_id text,
  parent_span_id text,
  model text,
  provider text,
  attempts jsonb not null default '[]',
  status integer not null,
  latency_ms double precision not null,
  prompt_tokens integer not null default 0,
  completion_tokens integer not null default 0,
  cached_tokens integer not null default 0,
  credits_base numeric(20, 8) not null default 0,
  credits_services numeric(20, 8) not null default 0,
  credits_total numeric(20, 8) not null default 0,
  stream boolean not null default false,
  cache text,
  input jsonb,
  output jsonb,
  notes jsonb not null default '[]',
  sources jsonb not null default '[]',
  -- What the firewall found: counts per entity type and the languages; never the values.
  firewall jsonb,
  created_at timestamptz not null,
  primary key (workspace_id, id)
);

create index traces_workspace_time_idx on traces (workspace_id, created_at desc);
create index traces_thread_idx on traces (workspace_id, thread) where thread is not null;
create index traces_application_idx on traces (workspace_id, application) where application is not null;

create table threads (
  workspace_id uuid not null references workspaces (id) on delete cascade,
  id text not null,
  organization_id uuid not null references organizations (id) on delete cascade,
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now(),
  primary key (workspace_id, id)
);

create table thread_messages (
  id bigint generated always as identity primary key,
  workspace_id uuid not null,
  thread_id text not null,
  -- Order within the thread: the request's position, then the message's position in it.
  request_id text not null,
  position integer not null,
  role text not null,
  content jsonb,
  created_at timestamptz not null,
  foreign key (workspace_id, thread_id) references threads (workspace_id, id) on delete cascade,
  unique (workspace_id, thread_id, request_id, position)
);

create index thread_messages_thread_idx on thread_messages (workspace_id, thread_id, created_at, id);

create table response_cache (
  workspace_id uuid not null references workspaces (id) on delete cascade,
  cache_key bytea not null,
  response jsonb not null,
  created_at timestamptz not null default now(),
  expires_at timestamptz not null,
  primary key (workspace_id, cache_key)
);

create index response_cache_expiry_idx on response_cache (expires_at);
