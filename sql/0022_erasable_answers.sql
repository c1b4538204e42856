-- An erasure (DELETE /memory?user_ref=) must leave nothing that can bring the end-user back, and
-- forgetting one fact must take it out of every answer that is kept. Besides facts and traces,
-- three stores hold what a chat naming the end-user (`user`) said or was told:
--   requests         the answer kept for a retry to replay, `sources[].text` included;
--   response_cache   the model's answer, and the key made from a prompt with the retrieved facts;
--   thread_messages  the conversation, when the chat named a `thread`.
-- Each row now says which end-user it is about, and an answer which facts were retrieved into it,
-- so that the erasure and DELETE /memory/facts/{id} find them by index rather than by reading
-- every answer's text.
alter table requests add column end_user text, add column fact_ids uuid[];
alter table response_cache add column end_user text, add column fact_ids uuid[];
alter table thread_messages add column end_user text;

-- What was written before: a kept answer and a thread message are tied to their end-user and
-- facts through the trace of the same request id, where one is still held.
update requests r
   set end_user = t.end_user,
       fact_ids = (select array_agg((s->>'id')::uuid) from jsonb_array_elements(t.sources) s where s->>'type' = 'fact')
  from traces t
 where t.workspace_id = r.workspace_id and t.id = r.request_id
   and (t.end_user is not null or t.sources @> '[{"type": "fact"}]');
update thread_messages m
   set end_user = t.end_user
  from traces t
 where t.workspace_id = m.workspace_id and t.id = m.request_id and t.end_user is not null;
-- Cache entries carry no request id to tie them by; the cache only saves a provider call, so the
-- entries written before this are dropped rather than kept untied.
delete from response_cache;

create index requests_end_user_idx on requests (workspace_id, end_user) where end_user is not null;
create index response_cache_end_user_idx on response_cache (workspace_id, end_user) where end_user is not null;
create index thread_messages_end_user_idx on thread_messages (workspace_id, end_user) where end_user is not null;
-- Kept answers are deleted after REPLAY_RETENTION_HOURS (requests__prune), oldest first.
create index requests_completed_idx on requests (completed_at) where state = 'completed';
