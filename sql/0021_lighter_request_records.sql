-- Every answered request writes a usage row, a trace, an audit entry and (on a miss) a cache entry
-- before its answer is sent (sql/0020). What each of them costs Postgres was measured per request
-- (bench/README.md, "Postgres per request"); this takes away what no query needs:
--
-- usage: the surrogate `id` and its index. A line is known by (workspace, request id), which was
-- already unique; it becomes the primary key.
alter table usage drop constraint usage_pkey;
alter table usage drop column id;
alter table usage drop constraint usage_workspace_id_request_id_key;
alter table usage add primary key (workspace_id, request_id);

-- audit_log: `event_id` made a retried audit__record job idempotent; entries are now written in the
-- transaction of what they record, once. The organization-wide entries (workspace_id null) are the
-- only ones listed by organization: a partial index serves them (src/audit/store.ts).
alter table audit_log drop column event_id;
drop index audit_log_organization_idx;
create index audit_log_organization_idx on audit_log (organization_id, at desc, id desc) where workspace_id is null;

-- response_cache: rows expire in the order they were written (one TTL), so a BRIN index finds the
-- expired ones for cache__expire at a fraction of a B-tree's upkeep on every insert.
drop index response_cache_expiry_idx;
create index response_cache_expiry_idx on response_cache using brin (expires_at);

-- traces: what was sent and what came back, and the firewall's counts, are stored and returned
-- whole, never queried inside: `json` keeps the text, where `jsonb` parsed it on every insert
-- (about a quarter of the records statement's Postgres time for a short chat). The table is
-- rewritten once, here.
alter table traces
  alter column input type json,
  alter column output type json,
  alter column firewall type json;
-- A new type takes the default compression: lz4 again where the server has it (as sql/0013).
do $$
begin
  if 'lz4' = any (select unnest(enumvals) from pg_settings where name = 'default_toast_compression') then
    alter table traces
      alter column input set compression lz4,
      alter column output set compression lz4;
  end if;
end
$$;
