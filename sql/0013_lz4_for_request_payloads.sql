-- A long prompt makes its pending settlement, trace and cached answer long enough to be compressed,
-- and Postgres' default (pglz) is slow at it. lz4 (Postgres 14 and later, when built with it)
-- compresses several times faster. Inserting the pending settlement of a request with an 11 kB
-- prompt, beyond parsing the JSON it comes in, took 223 µs with pglz and 161 µs with lz4 (one per
-- statement; 1,117 and 735 µs for eight): on the request's path (the group commit), and again in
-- the drain for the trace. Short requests stay under the compression threshold either way.
-- It applies to values written from now on; a server built without lz4 keeps pglz.
do $$
begin
  if 'lz4' = any (select unnest(enumvals) from pg_settings where name = 'default_toast_compression') then
    alter table pending_settlements
      alter column usage set compression lz4,
      alter column trace set compression lz4,
      alter column audit set compression lz4,
      alter column thread set compression lz4;
    alter table traces
      alter column input set compression lz4,
      alter column output set compression lz4;
    alter table response_cache alter column response set compression lz4;
    alter table requests alter column response set compression lz4;
    alter table thread_messages alter column content set compression lz4;
  end if;
end
$$;
