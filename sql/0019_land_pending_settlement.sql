-- A trace is asked for, or scored, right after its answer, before the drain has written it (about
-- 100 ms later): that one pending settlement is then written at once, by the same writers as the
-- drain's (sql/0011), in the caller's transaction. A drain holding the row is waited for, and has
-- then written it; a row the tables refuse stays pending, for the drain to set aside with its
-- reason. Returns whether it wrote anything.
create function land_pending_settlement(target_workspace uuid, target_request text) returns boolean
language plpgsql as $$
declare
  landed record;
  wrote boolean := false;
begin
  for landed in
    delete from pending_settlements
     where workspace_id = target_workspace and request_id = target_request and failed_at is null
    returning usage, trace, audit, thread
  loop
    if landed.usage is not null then perform insert_usage(json_build_array(landed.usage)); end if;
    if landed.trace is not null then perform insert_traces(json_build_array(landed.trace)); end if;
    perform insert_audit_entries(json_build_array(landed.audit));
    if landed.thread is not null then perform append_to_threads(json_build_array(landed.thread)); end if;
    wrote := true;
  end loop;
  return wrote;
exception when data_exception or integrity_constraint_violation then
  -- The block's work is undone with it: the row is pending again.
  return false;
end
$$;
