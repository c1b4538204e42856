-- What an erasure's first step removed (the end-user's facts and submissions, committed before the
-- rest so that no request finds them meanwhile), kept with the erasure's mark until the last step
-- commits and reports it: a last step that failed (a 503) and was retried reported 0 facts, and its
-- audit entry too, though the first attempt had removed them.
alter table end_user_erasures
  add column facts_pending integer not null default 0,
  add column submissions_pending integer not null default 0;
