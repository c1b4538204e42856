-- Which web process holds a caller's request id while it runs (metering/requestIds.ts): the key
-- of the advisory lock that process holds for as long as it lives (db/presence.ts). A retry that
-- finds the id still running while no session holds that lock knows its process died (killed, out
-- of memory) and runs anew, instead of answering 409 until the claim is pruned an hour later.
-- Null for claims made without a presence (a process of an older release, a test app): those wait
-- for the prune as before.
alter table requests add column holder integer;
