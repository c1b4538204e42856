-- A trace or a thread is read (or a trace scored, or a thread deleted) right after the answer,
-- before the drain has written it (about 100 ms later): the pending settlements it waits for are
-- then written at once, by the same writers as the drain's (sql/0011), in the caller's
-- transaction. Those of one request (`target_request`), or those that append to one thread
-- (`target_thread`, sql/0018's index). A drain holding one of them is waited for, and has then
-- written it; rows the tables refuse stay pending, for the drain to set aside with its reason.
-- Returns how many it wrote.
create function land_pending_settlements(target_workspace uuid, target_request text, target_thread text)
returns integer
language plpgsql as $$
declare
  landed record;
  wrote integer := 0;
begin
  for landed in
    delete from pending_settlements
     where workspace_id = target_workspace
       and failed_at is null
       and (request_id = target_request or (thread is not null and thread->>'thread' = target_thread))
    returning usage, trace, audit, thread
  loop
    if landed.usage is not null then perform insert_usage(json_build_array(landed.usage)); end if;
    if landed.trace is not null then perform insert_traces(json_build_array(landed.trace)); end if;
    perform insert_audit_entries(json_build_array(landed.audit));
    if landed.thread is not null then perform append_to_threads(json_build_array(landed.thread)); end if;
    wrote := wrote + 1;
  end loop;
  return wrote;
exception when data_exception or integrity_constraint_violation then
  -- The block's work is undone with it: every row is pending again.
  return 0;
end
$$;
