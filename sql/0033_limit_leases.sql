-- Which web process holds what of a credit counter's `leased` (sql/0024). A process that dies
-- without giving back its blocks (killed, out of memory) would otherwise keep them counted until
-- the day or the month ends, refusing requests against a budget nobody spent. Each lease, return
-- and billing of a credit counter changes the holder's row in the same statement as the counter
-- (the counter's row first, as every statement locks them), so a counter's `leased` is the sum of
-- its holders' amounts; each process marks itself seen every 15 s, and limits__reclaim gives back
-- the amounts of holders not seen for two minutes. Minute counters are not tracked: their windows
-- end before a dead process would be noticed.
create table limit_holders (
  holder uuid primary key,
  seen_at timestamptz not null default now()
);

create table limit_leases (
  holder uuid not null,
  scope_kind text not null,
  scope_id uuid not null,
  counter text not null check (counter in ('credits_day', 'credits_month')),
  window_start timestamptz not null,
  amount numeric(20, 8) not null default 0 check (amount >= 0),
  primary key (holder, scope_kind, scope_id, counter, window_start)
);
