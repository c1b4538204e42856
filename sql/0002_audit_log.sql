-- The audit trail. Rows are written by the audit__record job; event_id makes a retried job idempotent.
create table audit_log (
  id bigint generated always as identity primary key,
  event_id uuid not null unique,
  organization_id uuid not null references organizations (id) on delete cascade,
  -- null for organization-wide actions (the non-EU acceptance, say).
  workspace_id uuid references workspaces (id) on delete cascade,
  at timestamptz not null,
  actor_key_id uuid,
  actor_kind text not null check (actor_kind in ('organization', 'restricted', 'operator')),
  action text not null,
  target text,
  details jsonb not null default '{}'
);

create index audit_log_workspace_idx on audit_log (workspace_id, at desc, id desc);
create index audit_log_organization_idx on audit_log (organization_id, at desc, id desc);
