-- A workspace's webhook deliveries hold at most a few slots of the delivery pool at once: with an
-- endpoint queue each (sql/0035), a workspace of twenty receivers that hang still held every slot,
-- and every other organization's webhooks waited. An attempt takes a row here before it sends and
-- deletes it after; a row outlives a worker that died only until held_until (its timeout and a
-- margin). Ids only, nothing of the event.
create table webhook_delivery_slots (
  workspace_id uuid not null,
  delivery_id uuid not null,
  held_until timestamptz not null,
  primary key (workspace_id, delivery_id)
);
