-- One definition of a webhook delivery's job, for every place that queues one (an emitted event,
-- a test event, a re-send over the API, the next retry). Every job of a delivery has the same key,
-- so a re-send replaces a pending retry rather than doubling it.
create function webhook_queue_delivery(p_delivery_id uuid, p_run_at timestamptz default now())
returns boolean
language plpgsql
as $$
begin
  perform graphile_worker.add_job(
    identifier => 'webhooks__deliver',
    payload => json_build_object('delivery_id', p_delivery_id),
    run_at => p_run_at,
    job_key => 'webhooks__deliver:' || p_delivery_id::text);
  return true;
end;
$$;

-- As in 0027, with the job queued through webhook_queue_delivery.
create or replace function webhook_emit(p_organization_id uuid, p_workspace_id uuid, p_type text, p_data jsonb)
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
  select count(webhook_queue_delivery(d.id))::integer
    into v_queued
    from deliveries d;
  return v_queued;
end;
$$;
