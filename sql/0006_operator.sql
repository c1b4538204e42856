-- The operator's side: scores that people (or evaluators) give to traced answers, so a team can
-- compare models.

create table scores (
  id uuid primary key default gen_random_uuid(),
  organization_id uuid not null references organizations (id) on delete cascade,
  workspace_id uuid not null,
  trace_id text not null,
  -- The key that scored; kept without a foreign key so a score outlives a deleted key.
  key_id uuid,
  name text not null,
  -- A number, a string or a boolean, kept as given.
  value jsonb not null check (jsonb_typeof(value) in ('number', 'string', 'boolean')),
  comment text,
  created_at timestamptz not null default now(),
  -- A score belongs to a trace of the same workspace; erasing the trace erases its scores.
  foreign key (workspace_id, trace_id) references traces (workspace_id, id) on delete cascade
);

-- The scores of one trace, and the workspace's scores newest first (cursor pagination).
create index scores_trace_idx on scores (workspace_id, trace_id, created_at desc, id desc);
create index scores_workspace_idx on scores (workspace_id, created_at desc, id desc);
