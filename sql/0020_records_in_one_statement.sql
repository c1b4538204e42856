-- What a request leaves behind (usage, trace, audit entry, thread messages, the answer kept for
-- replay, the cache entry) is now written by one statement in the web process's group commit,
-- before the answer is sent (src/metering/writeRecords.ts), and every audited change writes its
-- entry in its own transaction. The outbox (pending_settlements), its drain and the audit__record
-- job go, and with them the SQL functions only they called: the statement lives in the code.
-- docs/decisions/0001-records-in-one-statement.md says why.

-- 1. What is still on its way is written first, row by row, with the writers it was meant for. A
--    row a table refuses is set aside as the drain did.
do $$
declare
  pending record;
begin
  for pending in select id, usage, trace, audit, thread from pending_settlements where failed_at is null order by id loop
    begin
      if pending.usage is not null then perform insert_usage(json_build_array(pending.usage)); end if;
      if pending.trace is not null then perform insert_traces(json_build_array(pending.trace)); end if;
      perform insert_audit_entries(json_build_array(pending.audit));
      if pending.thread is not null then perform append_to_threads(json_build_array(pending.thread)); end if;
      delete from pending_settlements where id = pending.id;
    exception when data_exception or integrity_constraint_violation then
      update pending_settlements set failed_at = now(), error = sqlerrm where id = pending.id;
    end;
  end loop;
end
$$;

-- Audit entries still queued as jobs are written now, and the jobs of the tasks that are gone are
-- completed (deleted). The public view hides payloads, so they are read from graphile-worker's own
-- table, once, here. Its schema exists only once graphile-worker has migrated: not on a new
-- database, where this runs before it.
do $$
declare
  queued bigint[];
begin
  if to_regclass('graphile_worker.jobs') is null then return; end if;
  select array_agg(id) into queued
    from graphile_worker.jobs
   where task_identifier in ('audit__record', 'settlements__drain') and locked_at is null;
  if queued is null then return; end if;
  perform insert_audit_entries(json_agg(entry))
    from graphile_worker._private_jobs j
   cross join lateral json_array_elements(j.payload->'entries') as entry
   where j.id = any(queued) and json_typeof(j.payload->'entries') = 'array'
  having count(*) > 0;
  perform graphile_worker.complete_jobs(queued);
end
$$;

-- 2. The rows the drain had set aside could never be written; they stay for an operator to read,
--    under a name that says so. A database that has none drops the table.
do $$
begin
  if exists (select 1 from pending_settlements) then
    alter table pending_settlements rename to unwritten_settlements;
    comment on table unwritten_settlements is
      'Requests answered before 0020 whose records a table refused (error says why); nothing writes or reads it.';
    drop index pending_settlements_request_idx;
    drop index pending_settlements_thread_idx;
    drop index pending_settlements_end_user_idx;
  else
    drop table pending_settlements;
  end if;
end
$$;

drop function land_pending_settlements(uuid, text, text);
drop function drain_pending_settlements(integer);
drop function append_to_threads(json);
drop function insert_audit_entries(json);
drop function insert_traces(json);
drop function insert_usage(json);
drop function complete_requests(json);

-- 3. A trace says what kind of work it records: chat, embeddings, an ingest or a fact extraction.
alter table traces add column kind text not null default 'chat';
alter table traces add constraint traces_kind_check check (kind in ('chat', 'embeddings', 'ingest', 'facts'));

-- 4. Work the service does on its own (an ingest, a fact extraction) is audited with the actor
--    kind `service`. The new list contains the old one.
alter table audit_log drop constraint audit_log_actor_kind_check;
alter table audit_log
  add constraint audit_log_actor_kind_check
  check (actor_kind in ('organization', 'restricted', 'operator', 'service')) not valid;
alter table audit_log validate constraint audit_log_actor_kind_check;
