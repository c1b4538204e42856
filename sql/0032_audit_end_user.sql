-- An audit entry names the end-user a call was about (`details.user` of a chat or embeddings call,
-- `details.user_ref` of a fact extraction). An erasure takes the name out of every such entry of
-- the workspace, keeping the entry (what was done, by which key, when) and marking it
-- `user_erased` (src/memory/erasure.ts). This index finds them without reading the workspace's
-- whole trail; it holds only the entries that name an end-user.
create index audit_log_end_user_idx on audit_log (workspace_id, (coalesce(details ->> 'user', details ->> 'user_ref')))
  where details ?| array['user', 'user_ref'];
