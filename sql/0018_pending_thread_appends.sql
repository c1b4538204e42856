-- The pending settlements that append to one thread, found by it: a thread read or deleted right
-- after a chat first writes them (sql/0019). Only rows with a thread are indexed, so chat without
-- one pays nothing for it.
create index pending_settlements_thread_idx on pending_settlements (workspace_id, (thread->>'thread'))
  where thread is not null;
