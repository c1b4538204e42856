-- Responses kept by the Responses door (/v1/responses with `store`, the default): each turn's input
-- items as the caller sent them and the response as it was answered, so that `previous_response_id`
-- can rebuild the conversation and GET /v1/responses/{id} can hand it back. Kept in clear, like
-- threads: the caller needs them back; the firewall masks them again each time they leave.
create table stored_responses (
  workspace_id uuid not null references workspaces (id) on delete cascade,
  id text not null,
  organization_id uuid not null references organizations (id) on delete cascade,
  -- The request (and trace) it answered.
  request_id text not null,
  previous_response_id text,
  -- The request's `user`: an erasure of that end-user deletes the response.
  end_user text,
  input jsonb not null,
  response jsonb not null,
  created_at timestamptz not null default now(),
  primary key (workspace_id, id)
);

-- Retention (RESPONSES_RETENTION_DAYS) deletes the oldest first; an erasure finds an end-user's.
create index stored_responses_created_idx on stored_responses (created_at);
create index stored_responses_end_user_idx on stored_responses (workspace_id, end_user) where end_user is not null;
