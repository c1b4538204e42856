-- Tenancy: organizations own workspaces; API keys act inside exactly one workspace.
create extension if not exists vector;

create table organizations (
  id uuid primary key default gen_random_uuid(),
  name text not null unique,
  -- The organization's recorded acceptance of routing outside the EU (null: not accepted).
  non_eu_accepted_at timestamptz,
  non_eu_accepted_by text,
  created_at timestamptz not null default now()
);

create table workspaces (
  id uuid primary key default gen_random_uuid(),
  organization_id uuid not null references organizations (id) on delete cascade,
  name text not null,
  created_at timestamptz not null default now(),
  unique (organization_id, name)
);

create table api_keys (
  id uuid primary key default gen_random_uuid(),
  organization_id uuid not null references organizations (id) on delete cascade,
  workspace_id uuid not null references workspaces (id) on delete cascade,
  -- Only the SHA-256 of the secret is stored; the secret is shown once at creation.
  key_hash bytea not null unique,
  key_prefix text not null,
  kind text not null check (kind in ('organization', 'restricted')),
  scopes text[] not null,
  created_at timestamptz not null default now(),
  revoked_at timestamptz
);

create index api_keys_organization_idx on api_keys (organization_id);
