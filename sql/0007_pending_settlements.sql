-- What each settled request still has to write: its usage row, trace, audit entry and thread
-- messages. The group commit inserts one row per request here (one cheap insert on the request's
-- path instead of enqueueing jobs), and the settlements__drain job moves rows into usage, traces,
-- audit_log and thread_messages, in batches, in one transaction with their deletion.
-- `json`, not `jsonb`: rows live for milliseconds, so the insert only checks the syntax.
create table pending_settlements (
  id bigint generated always as identity primary key,
  workspace_id uuid not null,
  -- The chat request's `user`, so an erasure can drop a trace that has not landed yet.
  end_user text,
  usage json,
  trace json,
  audit json not null,
  thread json,
  created_at timestamptz not null default now(),
  -- A row the drain could not write is kept, marked, and no longer blocks the rest.
  failed_at timestamptz,
  error text
);

create index pending_settlements_end_user_idx on pending_settlements (workspace_id, end_user)
  where end_user is not null;
