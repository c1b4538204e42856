-- The writers of usage, traces, audit_log and thread messages, as functions of a JSON array of
-- records. The stores call them, and so does drain_pending_settlements, which moves a batch of the
-- outbox (sql/0007) into those tables inside Postgres: before, every row went to the worker and
-- back (parsed, checked, serialized), which cost the worker ~35 µs per settled request and
-- Postgres no less. Each column mapping is written once, here.

-- The drain's fast path relies on the tables' own types and constraints (tasks/settlements__drain.ts
-- checks rows one by one only when a batch fails), so what billing depends on is a constraint too.
alter table usage
  add constraint usage_token_counts_check
  check (prompt_tokens >= 0 and completion_tokens >= 0 and cached_tokens >= 0),
  add constraint usage_credits_check
  check (credits_base >= 0 and credits_services >= 0 and credits_total >= 0);

create function insert_usage(records json) returns void
language sql as $$
  insert into usage (organization_id, workspace_id, request_id, kind, model, provider, prompt_tokens,
                     completion_tokens, cached_tokens, credits_base, credits_services, credits_total, created_at)
  select r.organization_id, r.workspace_id, r.request_id, r.kind, r.model, r.provider, r.prompt_tokens,
         r.completion_tokens, r.cached_tokens, (r.credits->>'base')::numeric, (r.credits->>'services')::numeric,
         (r.credits->>'total')::numeric, r.created_at
    from json_to_recordset(records) as r(
           organization_id uuid, workspace_id uuid, request_id text, kind text, model text, provider text,
           prompt_tokens integer, completion_tokens integer, cached_tokens integer, credits json,
           created_at timestamptz)
  on conflict (workspace_id, request_id) do nothing
$$;

create function insert_traces(records json) returns void
language sql as $$
  insert into traces (workspace_id, organization_id, id, key_id, name, tags, thread, end_user, application,
                      trace_id, parent_span_id, model, provider, attempts, status, latency_ms, prompt_tokens,
                      completion_tokens, cached_tokens, credits_base, credits_services, credits_total, stream,
                      cache, input, output, notes, sources, firewall, created_at)
  select t.workspace_id, t.organization_id, t.id, t.key_id, t.name,
         coalesce(array(select json_array_elements_text(t.tags)), '{}'), t.thread, t.end_user, t.application,
         t.trace_id, t.parent_span_id, t.model, t.provider, t.attempts, t.status, t.latency_ms, t.prompt_tokens,
         t.completion_tokens, t.cached_tokens, (t.credits->>'base')::numeric, (t.credits->>'services')::numeric,
         (t.credits->>'total')::numeric, t.stream, t.cache, t.input, t.output, t.notes, t.sources, t.firewall, t.created_at
    from json_to_recordset(records) as t(
           workspace_id uuid, organization_id uuid, id text, key_id uuid, name text, tags json, thread text,
           end_user text, application text, trace_id text, parent_span_id text, model text, provider text,
           attempts jsonb, status integer, latency_ms double precision, prompt_tokens integer,
           completion_tokens integer, cached_tokens integer, credits json, stream boolean, cache text,
           input jsonb, output jsonb, notes jsonb, sources jsonb, firewall jsonb, created_at timestamptz)
  on conflict (workspace_id, id) do nothing
$$;

create function insert_audit_entries(entries json) returns void
language sql as $$
  insert into audit_log (event_id, organization_id, workspace_id, at, actor_key_id, actor_kind, action, target, details)
  select e.event_id, e.organization_id, e.workspace_id, e.at, (e.actor->>'key_id')::uuid, e.actor->>'kind',
         e.action, e.target, e.details
    from json_to_recordset(entries) as e(
           event_id uuid, organization_id uuid, workspace_id uuid, at timestamptz, actor json, action text,
           target text, details jsonb)
  on conflict (event_id) do nothing
$$;

create function append_to_threads(appends json) returns void
language sql as $$
  with input as (
    select a.workspace_id, a.organization_id, a.thread, a.request_id, a.created_at, a.messages
      from json_to_recordset(appends) as a(
             workspace_id uuid, organization_id uuid, thread text, request_id text, created_at timestamptz,
             messages json)
  ), threads_upserted as (
    insert into threads (workspace_id, id, organization_id, created_at, updated_at)
    select distinct on (workspace_id, thread) workspace_id, thread, organization_id, created_at, created_at
      from input
     order by workspace_id, thread, created_at desc
    on conflict (workspace_id, id) do update set updated_at = greatest(threads.updated_at, excluded.updated_at)
    returning workspace_id, id
  )
  insert into thread_messages (workspace_id, thread_id, request_id, position, role, content, created_at)
  select i.workspace_id, i.thread, i.request_id, m.position - 1, m.message->>'role', m.message->'content', i.created_at
    from input i
    cross join lateral json_array_elements(i.messages) with ordinality as m(message, position)
    join threads_upserted t on t.workspace_id = i.workspace_id and t.id = i.thread
  on conflict (workspace_id, thread_id, request_id, position) do nothing
$$;

-- Takes up to batch_size of the oldest pending rows that no other drain holds and that were not set
-- aside, writes every part of them and deletes them; returns how many it took. It all happens in
-- the caller's transaction, so a failure leaves every row of the batch pending.
create function drain_pending_settlements(batch_size integer) returns integer
language plpgsql as $$
declare
  taken integer;
  usage_records json;
  trace_records json;
  audit_entries json;
  thread_appends json;
begin
  with batch as (
    delete from pending_settlements
     where id in (select id from pending_settlements
                   where failed_at is null
                   order by id
                   limit batch_size
                     for update skip locked)
    returning usage, trace, audit, thread
  )
  select count(*)::integer,
         json_agg(usage) filter (where usage is not null),
         json_agg(trace) filter (where trace is not null),
         json_agg(audit),
         json_agg(thread) filter (where thread is not null)
    into taken, usage_records, trace_records, audit_entries, thread_appends
    from batch;
  if usage_records is not null then perform insert_usage(usage_records); end if;
  if trace_records is not null then perform insert_traces(trace_records); end if;
  if audit_entries is not null then perform insert_audit_entries(audit_entries); end if;
  if thread_appends is not null then perform append_to_threads(thread_appends); end if;
  return taken;
end
$$;
