-- The presence key (db/presence.ts) of the web process that holds credit leases: a process that
-- asks for a budget back and gets no answer reclaims at once what a holder whose presence lock is
-- gone (killed, out of memory) held, instead of waiting minutes for limits__reclaim (decision 0023).
-- Null for a holder without a presence (a test's app): only limits__reclaim reclaims those.
alter table limit_holders add column presence integer;
