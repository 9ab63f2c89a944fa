-- Idempotency keys (Stripe's contract; common/idempotency.h): the answer a
-- keyed request got, stored in the same transaction as the change it made,
-- so that a retry with the same key gets that answer again instead of a
-- second order.
--
-- Scoped to the caller and the tenant: tenant_id is the tenant the request
-- acted on (X-Tenant-ID, or the {tenantId} of the path), 0 for routes
-- without a tenant (addresses, tenant creation). Keyed by tenant_id first
-- and without foreign keys, so that the table can be distributed by
-- tenant_id with the rest (Citus); every statement on it names tenant_id.
-- A row is written only by a request that succeeded, with its answer
-- (status NOT NULL once committed); the worker deletes rows older than the
-- keys' lifetime (24 h, common/idempotency.h).
CREATE TABLE idempotency_keys (
  tenant_id     bigint NOT NULL,
  user_id       bigint NOT NULL,
  key           text NOT NULL,
  -- SHA-256 of the request's method, path, query and body: the same key
  -- with another request is refused.
  request_hash  bytea NOT NULL,
  -- The stored answer, byte for byte: status, the handler's own headers
  -- ("Name: value" lines), body. NULL only inside the transaction that
  -- claimed the key, until it stores its answer.
  status        integer,
  headers       text,
  body          text,
  created_at    timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (tenant_id, user_id, key)
);

-- The worker's purge, oldest first.
CREATE INDEX idempotency_keys_created_idx ON idempotency_keys (created_at);
