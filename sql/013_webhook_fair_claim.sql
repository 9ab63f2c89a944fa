-- The worker's claim is fair between subscriptions and tenants
-- (handlers/worker/webhook_tasks.cc, kClaim): it asks each active
-- subscription for its oldest due rows, and counts the rows each one has in
-- flight (leased). One index for each question; the leased rows are only
-- those being sent, or left by a worker that died, so that index stays small.
CREATE INDEX webhook_deliveries_due_by_webhook_idx
  ON webhook_deliveries (tenant_id, webhook_id, next_attempt_at, id)
  WHERE status = 'pending';
CREATE INDEX webhook_deliveries_leased_idx ON webhook_deliveries (tenant_id, webhook_id)
  WHERE status = 'pending' AND lease_until IS NOT NULL;
