-- Retention (handlers/worker/retention_tasks.cc): the worker deletes
-- delivered and failed deliveries older than RETENTION_DAYS, oldest first in
-- batches, then the events of that age no delivery refers to any more.
--
-- The finished deliveries by age; pending rows are not in it.
CREATE INDEX webhook_deliveries_finished_idx ON webhook_deliveries (created_at)
  WHERE status <> 'pending';
-- The deliveries of an event: the purge's "no delivery refers to it", and
-- the ON DELETE CASCADE of deleting an event, which without it reads every
-- delivery row.
CREATE INDEX webhook_deliveries_event_idx ON webhook_deliveries (tenant_id, event_id);
-- Events by age.
CREATE INDEX events_created_idx ON events (created_at);
