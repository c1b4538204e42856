-- requests__prune finds two kinds of rows by age: those of generated ids (completed, no answer
-- kept) and claims still running. An index of each alone keeps every batch a short range scan,
-- however many rows of caller-chosen ids (kept with their answers, never pruned) or of recent
-- requests there are. They replace the index on every row's created_at, which no query used.
drop index requests_created_idx;
create index requests_generated_created_idx on requests (created_at) where state = 'completed' and response is null;
create index requests_running_created_idx on requests (created_at) where state = 'running';
