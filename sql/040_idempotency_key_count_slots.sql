-- The hour's count of new idempotency keys (sql/038) split into 16 rows per
-- user, tenant and hour, one per database connection slot
-- (pg_backend_pid() % 16, as the order counts of sql/017): new keys of one
-- user in one tenant no longer take turns at one row's lock from their
-- count to their COMMIT. With one row, a client writing with keys on many
-- connections committed one request at a time (bench/run's keyed
-- POST /orders: 1.4k req/s against 2.1k before the cap). The sum over the
-- last 25 hours reads at most 16 rows an hour
-- (docs/decisions/0031-idempotency-keys-cap.md).

SET LOCAL lock_timeout = '10s';
-- Citus: the DDL runs one connection per worker, so that the grants after it
-- (on reference tables) may run in the same transaction.
SET LOCAL citus.multi_shard_modify_mode = 'sequential';

ALTER TABLE idempotency_key_counts ADD COLUMN slot smallint NOT NULL DEFAULT 0;
ALTER TABLE idempotency_key_counts DROP CONSTRAINT idempotency_key_counts_pkey;
ALTER TABLE idempotency_key_counts ADD PRIMARY KEY (tenant_id, user_id, hour, slot);
