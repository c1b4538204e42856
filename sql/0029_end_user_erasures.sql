-- When each end-user was last erased (DELETE /v1/memory?user_ref=): a request that named them and
-- was already running then writes none of what it would hold about them (its trace, thread append,
-- kept answer, cache entry, stored response) when it finishes after the erasure; it is still billed
-- and audited (src/metering/writeRecords.ts). Kept a day, longer than any request runs
-- (requests__prune deletes older ones).
create table end_user_erasures (
  workspace_id uuid not null references workspaces (id) on delete cascade,
  user_ref text not null,
  erased_at timestamptz not null,
  primary key (workspace_id, user_ref)
);

create index end_user_erasures_erased_idx on end_user_erasures (erased_at);
