-- Keys managed over the API (/v1/keys): a name to tell them apart, an optional expiry, when the
-- key was last used, and the key's own limits (null: no limit at that level).
alter table api_keys
  add column name text,
  add column key_last4 text,
  add column expires_at timestamptz,
  add column last_used_at timestamptz,
  add column requests_per_minute integer,
  add column tokens_per_minute integer,
  add column credits_per_day numeric(20, 8),
  add column credits_per_month numeric(20, 8);

-- A limit is a positive number or none: zero would refuse every request, which is what revoking is for.
alter table api_keys
  add constraint api_keys_requests_per_minute_positive check (requests_per_minute > 0),
  add constraint api_keys_tokens_per_minute_positive check (tokens_per_minute > 0),
  add constraint api_keys_credits_per_day_positive check (credits_per_day > 0),
  add constraint api_keys_credits_per_month_positive check (credits_per_month > 0);

-- GET /v1/keys pages through an organization's keys newest first; this index replaces the plain
-- one on organization_id, which it covers.
create index api_keys_organization_listing_idx on api_keys (organization_id, created_at desc, id desc);
drop index api_keys_organization_idx;
