-- Webhooks (issue 21): a workspace's endpoints, the events that happened, and one delivery per
-- event and endpoint. Deliveries are posted by the webhooks__deliver task; their rows are what
-- GET /v1/webhooks/{id}/deliveries shows.

create table webhook_endpoints (
  id uuid primary key default gen_random_uuid(),
  organization_id uuid not null references organizations (id),
  workspace_id uuid not null references workspaces (id),
  url text not null,
  events text[] not null,
  description text,
  enabled boolean not null default true,
  -- Kept as given (whsec_…): signing needs the secret itself, so it cannot be hashed. Never
  -- selected except to sign or to answer the create and the rotation that made it.
  secret text not null,
  -- After a rotation the old secret signs alongside the new one until previous_secret_until.
  previous_secret text,
  previous_secret_until timestamptz,
  -- The first failed delivery of an unbroken run of failures; a success clears it.
  failing_since timestamptz,
  disabled_reason text,
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now()
);
create index webhook_endpoints_workspace_idx on webhook_endpoints (workspace_id, created_at desc, id desc);

create table webhook_events (
  id uuid primary key default gen_random_uuid(),
  organization_id uuid not null,
  workspace_id uuid not null,
  type text not null,
  -- Ids, counts and the caller's user_ref only: never fact or document text.
  data jsonb not null,
  created_at timestamptz not null default now()
);
-- webhooks__prune deletes by age; an erasure deletes the events that name the end-user.
create index webhook_events_created_idx on webhook_events (created_at);
create index webhook_events_user_ref_idx on webhook_events (workspace_id, (data ->> 'user_ref')) where data ? 'user_ref';

create table webhook_deliveries (
  id uuid primary key default gen_random_uuid(),
  organization_id uuid not null,
  workspace_id uuid not null,
  endpoint_id uuid not null references webhook_endpoints (id) on delete cascade,
  event_id uuid not null references webhook_events (id) on delete cascade,
  status text not null default 'pending' check (status in ('pending', 'delivered', 'failed')),
  attempts integer not null default 0,
  last_status_code integer,
  last_error text,
  -- The receiver's answer, cut at 4 KiB.
  last_response text,
  next_attempt_at timestamptz,
  delivered_at timestamptz,
  created_at timestamptz not null default now()
);
create index webhook_deliveries_endpoint_idx on webhook_deliveries (endpoint_id, created_at desc, id desc);
create index webhook_deliveries_event_idx on webhook_deliveries (event_id);

-- Records an event in the caller's transaction and queues one delivery job per enabled endpoint
-- of the workspace that subscribes to it. A function, so that the TypeScript callers and the
-- metering statement (budget.threshold, written inside one group-committed statement) share one
-- definition. Without a subscriber nothing is written: an event nobody receives is not kept.
create function webhook_emit(p_organization_id uuid, p_workspace_id uuid, p_type text, p_data jsonb)
returns integer
language plpgsql
as $$
declare
  v_event_id uuid;
  v_queued integer;
begin
  if not exists (
    select 1 from webhook_endpoints
     where workspace_id = p_workspace_id and enabled and p_type = any (events)
  ) then
    return 0;
  end if;
  insert into webhook_events (organization_id, workspace_id, type, data)
  values (p_organization_id, p_workspace_id, p_type, p_data)
  returning id into v_event_id;
  with deliveries as (
    insert into webhook_deliveries (organization_id, workspace_id, endpoint_id, event_id, next_attempt_at)
    select p_organization_id, p_workspace_id, e.id, v_event_id, now()
      from webhook_endpoints e
     where e.workspace_id = p_workspace_id and e.enabled and p_type = any (e.events)
    returning id
  )
  select count(graphile_worker.add_job(
           identifier => 'webhooks__deliver',
           payload => json_build_object('delivery_id', d.id),
           job_key => 'webhooks__deliver:' || d.id::text))::integer
    into v_queued
    from deliveries d;
  return v_queued;
end;
$$;
