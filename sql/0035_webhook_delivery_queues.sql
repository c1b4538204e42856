-- A receiver that hangs holds each delivery to it for the whole timeout. Deliveries to one
-- endpoint now run one at a time, in a graphile-worker queue of their own: such an endpoint holds
-- one slot of the delivery pool (src/worker.ts), and every other endpoint's deliveries go on.
-- A delivery whose endpoint is gone is queued without one (the job finds nothing to do).
create or replace function webhook_queue_delivery(p_delivery_id uuid, p_run_at timestamptz default now())
returns boolean
language plpgsql
as $$
begin
  perform graphile_worker.add_job(
    identifier => 'webhooks__deliver',
    payload => json_build_object('delivery_id', p_delivery_id),
    queue_name => (select 'webhooks:' || d.endpoint_id::text from webhook_deliveries d where d.id = p_delivery_id),
    run_at => p_run_at,
    job_key => 'webhooks__deliver:' || p_delivery_id::text);
  return true;
end;
$$;
