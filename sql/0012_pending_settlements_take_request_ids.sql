-- A generated request id used to leave a requests row with no answer in it, so that a caller who
-- sent that id back as X-Request-Id got a 422 instead of running a second request that could not
-- be billed (usage is unique per request id). The usage row says the same once it lands, and until
-- then the pending settlement now does: it carries the request id of what it bills, indexed, and
-- the claim looks in both (src/metering/requestIds.ts). So a settled request no longer writes a
-- requests row unless the caller chose its id, and requests__prune no longer deletes them.
alter table pending_settlements add column request_id text;
update pending_settlements set request_id = usage->>'request_id' where usage is not null;
create index pending_settlements_request_idx on pending_settlements (workspace_id, request_id)
  where request_id is not null;

-- Each of these ids is now taken by its usage row or its pending settlement.
delete from requests where state = 'completed' and response is null;
drop index requests_generated_created_idx;
