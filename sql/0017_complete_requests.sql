-- Completes the claims of caller-chosen request ids with the answer a retry replays: the claim
-- row, or a new one when the prune freed the id of a request that ran longer than an hour. Both
-- writers call it, so the mapping is written once: the group commit (chat, embeddings) and runOnce
-- (the POSTs that create something), like the writers of sql/0011.
create function complete_requests(records json) returns void
language sql as $$
  insert into requests (workspace_id, request_id, organization_id, kind, body_hash, state, response, completed_at)
  select r.workspace_id, r.request_id, r.organization_id, r.kind, decode(r.body_hash, 'hex'), 'completed',
         r.response::jsonb, now()
    from json_to_recordset(records) as r(
           workspace_id uuid, request_id text, organization_id uuid, kind text, body_hash text, response json)
  on conflict (workspace_id, request_id) do update
     set state = 'completed', response = excluded.response, completed_at = excluded.completed_at
   where requests.state = 'running'
$$;
