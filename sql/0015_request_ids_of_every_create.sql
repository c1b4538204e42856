-- A caller-chosen request id makes every POST that creates something run at most once, not only
-- chat and embeddings: a retried document ingest must not store (and bill) the document twice, a
-- retried fact submission must not be extracted twice, a retried collection must not become
-- "name-2", a retried score must not count twice (src/metering/requestIds.ts, runOnce). Their
-- claims and kept answers are rows of the same table.
--
-- The new list contains the old one, so every row already satisfies it; `not valid` + `validate`
-- checks them without blocking writes meanwhile.
alter table requests drop constraint requests_kind_check;
alter table requests
  add constraint requests_kind_check
  check (kind in ('chat', 'embeddings', 'collections', 'documents', 'facts', 'scores')) not valid;
alter table requests validate constraint requests_kind_check;
