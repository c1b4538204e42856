-- Whether a web process's presence lock (db/presence.ts: pg_advisory_lock(72011007, key), held on
-- its listening connection while it lives) is held in this database: false once the process died.
-- Read only where a process must tell a dead one from a live one (a retry meeting a running request
-- id, a budget recall left unanswered), never on every request.
create function polder_presence_held(key integer) returns boolean
  language sql stable
  as $$
    select exists (
      select 1 from pg_locks l
       where l.locktype = 'advisory' and l.granted and l.objsubid = 2
         and l.database = (select oid from pg_database where datname = current_database())
         and l.classid = 72011007::oid and l.objid = key::oid)
  $$;
