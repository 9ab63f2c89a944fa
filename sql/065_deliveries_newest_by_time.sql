-- A subscription's deliveries and a tenant's, newest first by when they were
-- made, then by id (docs/decisions/0141-deliveries-listed-by-time.md), as
-- the audit log lists its entries (sql/056).
--
-- On Citus a delivery written inside a call delegated to the tenant's
-- worker (sql/060 to 064: orders, products, categories, announcements,
-- webhooks...) takes its id from that worker's range of the sequence
-- ((group id << 48) + n), while one written by a statement from the
-- coordinator (a test event, a redelivery) takes a small one: by id alone a
-- redelivery made now would list below every older delivery. Single-node
-- ids follow time already; the order there changes only between deliveries
-- made in the same instant, still by id.

SET LOCAL lock_timeout = '10s';
-- Citus: DDL one connection per worker.
SET LOCAL citus.multi_shard_modify_mode = 'sequential';

-- One EXECUTE per command: Citus sends a DDL command's own query text to the
-- workers, and a migration's text holds many commands (sql/032).
DO $$
DECLARE
  command text;
BEGIN
  FOREACH command IN ARRAY ARRAY[
    'CREATE INDEX webhook_deliveries_list_time_idx '
      'ON webhook_deliveries (tenant_id, created_at DESC, id DESC)',
    'CREATE INDEX webhook_deliveries_webhook_time_idx '
      'ON webhook_deliveries (tenant_id, webhook_id, created_at DESC, id DESC)',
    'DROP INDEX webhook_deliveries_list_idx',
    'DROP INDEX webhook_deliveries_webhook_idx']
  LOOP
    EXECUTE command;
  END LOOP;
END
$$;
