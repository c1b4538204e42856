-- A stream the client closed is billed for what was streamed, as a partial line: a retry under
-- the same request id runs anew, and its line replaces the partial one (writeRecords.ts), so the
-- caller pays for one answer.
alter table usage add column partial boolean not null default false;
