-- A fact submission's extraction spends tokens (the workspace's extraction model, the memory
-- embeddings); they are billed as usage of kind `facts` (src/memory/extraction.ts).
--
-- The new list contains the old one; `not valid` + `validate` checks the rows without blocking
-- writes meanwhile.
alter table usage drop constraint usage_kind_check;
alter table usage
  add constraint usage_kind_check check (kind in ('chat', 'embeddings', 'ingest', 'facts')) not valid;
alter table usage validate constraint usage_kind_check;
