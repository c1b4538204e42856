-- A thread is read and deleted with the appends still on their way (pending settlements, which
-- the drain writes about 100 ms after the answer): a chat answered with `thread` is in that thread
-- when its caller reads it next, and a thread deleted right after a chat does not come back when
-- the drain writes that chat's messages. Only rows with a thread are indexed, so chat without one
-- pays nothing for it.
create index pending_settlements_thread_idx on pending_settlements (workspace_id, (thread->>'thread'))
  where thread is not null;
