-- Live idempotency keys per user (IDEMPOTENCY_KEYS_MAX_PER_USER, issue 42;
-- docs/decisions/0031-idempotency-keys-cap.md): how many keys each user
-- claimed in each tenant (0: routes without one, as in idempotency_keys),
-- per hour since the epoch. A keyed request that succeeds adds one to its
-- hour's row with its answer and COMMIT (common/idempotency.cc) and is
-- refused when the rows of the last 24 hours sum above the cap: a sum of
-- at most 25 rows, whatever the number of keys. The row of hour 0 counts
-- nothing: new keys of one user in one tenant lock it, to take turns at the
-- sum. The worker deletes hours past the keys' lifetime with the keys.
--
-- Distributed by tenant_id with the keys (Citus): every statement on it
-- names tenant_id.

SET LOCAL lock_timeout = '10s';
-- Citus: the table's shards created one connection per worker, so that the
-- statements after it may run in the same transaction.
SET LOCAL citus.multi_shard_modify_mode = 'sequential';

CREATE TABLE idempotency_key_counts (
  tenant_id  bigint NOT NULL,
  user_id    bigint NOT NULL,
  hour       bigint NOT NULL,
  n          integer NOT NULL CHECK (n >= 0),
  PRIMARY KEY (tenant_id, user_id, hour)
);

SELECT ca_distribute_all();

-- The keys stored before this migration, by the hour they were claimed in.
INSERT INTO idempotency_key_counts (tenant_id, user_id, hour, n)
SELECT tenant_id, user_id, floor(extract(epoch FROM created_at) / 3600)::bigint, count(*)
FROM idempotency_keys
WHERE status IS NOT NULL
GROUP BY tenant_id, user_id, floor(extract(epoch FROM created_at) / 3600)::bigint;
