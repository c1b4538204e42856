-- Limits and budgets (CONTRACT.md, "Limits and budgets"). A key's limits live on the key
-- (sql/0023); a workspace's and an organization's here.
create table scope_limits (
  scope_kind text not null check (scope_kind in ('workspace', 'organization')),
  scope_id uuid not null,
  organization_id uuid not null references organizations (id) on delete cascade,
  requests_per_minute integer check (requests_per_minute > 0),
  tokens_per_minute integer check (tokens_per_minute > 0),
  credits_per_day numeric(20, 8) check (credits_per_day > 0),
  credits_per_month numeric(20, 8) check (credits_per_month > 0),
  updated_at timestamptz not null default now(),
  primary key (scope_kind, scope_id)
);

-- What each key, workspace and organization has used per window: requests and tokens per minute,
-- credits per UTC day and month. Web processes lease blocks from a counter (`leased`) and spend
-- them locally, so that most requests cost no round trip and, summed over every process, no
-- window admits more than its limit. Credits are also billed here, in the statement that writes
-- each request's usage (metering/writeRecords.ts): a lease shrinks by what was billed from it.
-- `last_grant` is what the last statement on the row granted (or, in the records statement,
-- took back from the lease), read back in the same statement.
create table limit_counters (
  scope_kind text not null check (scope_kind in ('key', 'workspace', 'organization')),
  scope_id uuid not null,
  counter text not null check (counter in ('requests', 'tokens', 'credits_day', 'credits_month')),
  window_start timestamptz not null,
  leased numeric(20, 8) not null default 0,
  billed numeric(20, 8) not null default 0,
  last_grant numeric(20, 8) not null default 0,
  primary key (scope_kind, scope_id, counter, window_start)
);
-- limits__prune deletes windows long past, oldest first.
create index limit_counters_window_idx on limit_counters (window_start);
