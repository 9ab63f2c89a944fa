-- Counters and versions written by the statements that change the rows, not
-- by triggers (issue 29;
-- docs/decisions/0342-counters-in-the-write-statements.md). The triggers of sql/006 (product_counts), sql/017
-- (order_counts), sql/019 (announcement_list_versions and
-- announcement_read_versions) and sql/010 (a deactivated user's sessions)
-- wrote other tables, which Citus cannot run on a shard. Each handler and
-- worker statement that writes those rows now adds to the counter or moves
-- the version in a CTE of the same statement, with the same lock order:
-- one product_counts row per statement; order_counts rows of the
-- connection's slot (pg_backend_pid() % 16) in (tenant, status) order; one
-- version row per tenant, per (tenant, user) for read records.
--
-- Rows written by hand (psql, a seed, a restore) are counted by nothing:
-- the operator runs ca_recount(tenant) afterwards (ca_recount_all() for
-- every tenant). A user is deactivated with ca_deactivate_user(id), which
-- revokes the user's sessions as the trigger did.

SET LOCAL lock_timeout = '10s';
-- Citus: dropping a trigger of a distributed table is a trigger command.
SET LOCAL citus.enable_unsafe_triggers = on;
-- Citus: DDL over the shards one connection per worker, so that the function
-- commands after it may run in the same transaction.
SET LOCAL citus.multi_shard_modify_mode = 'sequential';

-- One EXECUTE per command: Citus sends a trigger command's own query text to
-- the shards, and a migration's text holds many commands (refused there:
-- "cannot insert multiple commands into a prepared statement").
DO $$
DECLARE
  command text;
BEGIN
  FOREACH command IN ARRAY ARRAY[
    'DROP TRIGGER product_counts_insert ON products',
    'DROP TRIGGER product_counts_update ON products',
    'DROP TRIGGER product_counts_delete ON products',
    'DROP FUNCTION product_counts_on_insert()',
    'DROP FUNCTION product_counts_on_update()',
    'DROP FUNCTION product_counts_on_delete()',
    'DROP TRIGGER order_counts_insert ON orders',
    'DROP TRIGGER order_counts_update ON orders',
    'DROP TRIGGER order_counts_delete ON orders',
    'DROP FUNCTION order_counts_on_insert()',
    'DROP FUNCTION order_counts_on_update()',
    'DROP FUNCTION order_counts_on_delete()',
    'DROP TRIGGER announcement_list_versions_insert ON announcements',
    'DROP TRIGGER announcement_list_versions_update ON announcements',
    'DROP TRIGGER announcement_list_versions_delete ON announcements',
    'DROP FUNCTION announcement_list_versions_bump()',
    'DROP FUNCTION announcement_list_versions_move(bigint[])',
    'DROP TRIGGER announcement_read_versions_insert ON announcement_reads',
    'DROP TRIGGER announcement_read_versions_update ON announcement_reads',
    'DROP TRIGGER announcement_read_versions_delete ON announcement_reads',
    'DROP FUNCTION announcement_read_versions_bump()',
    'DROP FUNCTION announcement_read_versions_move(bigint[], bigint[])',
    'DROP TRIGGER users_deactivated_revoke_sessions ON users',
    'DROP FUNCTION revoke_sessions_of_inactive_user()']
  LOOP
    EXECUTE command;
  END LOOP;
END
$$;

-- Makes the tenant's counters exact again and moves its versions, after
-- its products, orders, announcements or read records were written by
-- hand. Safe while the handlers write: each difference is taken from one
-- snapshot (a handler's row and its counter delta commit together, so
-- both or neither are in it) and added to the counter, as a writer adds
-- its own delta; counter rows are taken in the writers' order. Every
-- statement names the tenant (tenant_id = t): on Citus each one goes to
-- the tenant's shard. A tenant that does not exist is left alone.
CREATE FUNCTION ca_recount(t bigint) RETURNS void
LANGUAGE plpgsql AS $$
BEGIN
  IF NOT EXISTS (SELECT FROM tenants WHERE id = t) THEN
    RETURN;
  END IF;
  -- Live products. The row first (CHECK live >= 0 refuses a negative
  -- insert even when it would conflict), then the difference.
  INSERT INTO product_counts (tenant_id, live) VALUES (t, 0) ON CONFLICT (tenant_id) DO NOTHING;
  UPDATE product_counts c SET live = c.live + d.diff
  FROM (SELECT (SELECT count(*) FROM products p WHERE p.tenant_id = t AND p.deleted_at IS NULL)
               - (SELECT k.live FROM product_counts k WHERE k.tenant_id = t) AS diff) d
  WHERE c.tenant_id = t AND d.diff <> 0;
  -- Orders by status: the difference between the count and the sum of the
  -- slots goes to slot 0, in status order.
  INSERT INTO order_counts AS c (tenant_id, status, slot, n)
  SELECT t, d.status, 0, d.diff
  FROM (SELECT status, sum(n) AS diff
        FROM (SELECT o.status, 1 AS n FROM orders o WHERE o.tenant_id = t
              UNION ALL
              SELECT k.status, -k.n FROM order_counts k WHERE k.tenant_id = t) x
        GROUP BY status) d
  WHERE d.diff <> 0
  ORDER BY d.status
  ON CONFLICT (tenant_id, status, slot) DO UPDATE SET n = c.n + EXCLUDED.n;
  -- The active list and every read state of the tenant: kept copies are
  -- not used again (sql/019).
  INSERT INTO announcement_list_versions AS v (tenant_id, version) VALUES (t, 1)
  ON CONFLICT (tenant_id) DO UPDATE SET version = v.version + 1;
  INSERT INTO announcement_read_versions AS v (tenant_id, user_id, version)
  SELECT t, x.user_id, 1
  FROM (SELECT r.user_id FROM announcement_reads r WHERE r.tenant_id = t
        UNION
        SELECT k.user_id FROM announcement_read_versions k WHERE k.tenant_id = t) x
  JOIN users u ON u.id = x.user_id
  ORDER BY x.user_id
  ON CONFLICT (tenant_id, user_id) DO UPDATE SET version = v.version + 1;
END
$$;

-- ca_recount() of every tenant, one after the other.
CREATE FUNCTION ca_recount_all() RETURNS bigint
LANGUAGE plpgsql AS $$
DECLARE
  t bigint;
  n bigint := 0;
BEGIN
  FOR t IN SELECT id FROM tenants ORDER BY id LOOP
    PERFORM ca_recount(t);
    n := n + 1;
  END LOOP;
  RETURN n;
END
$$;

-- Deactivates a user and revokes the user's sessions (the session check
-- does not read is_active: a live session implies an active user, sql/010).
-- Two statements: the user's row first, which waits for a login holding it
-- (FOR NO KEY UPDATE while it creates its session); then, with a new
-- snapshot, every session, including that login's. In REPEATABLE READ or
-- SERIALIZABLE the second statement would keep the old snapshot, so it is
-- refused there (sql/011). Returns false when there is no such active user.
CREATE FUNCTION ca_deactivate_user(user_id bigint) RETURNS boolean
LANGUAGE plpgsql AS $$
DECLARE
  found_one boolean;
BEGIN
  IF current_setting('transaction_isolation') <> 'read committed' THEN
    RAISE EXCEPTION 'deactivate users in a READ COMMITTED transaction'
      USING DETAIL = 'A session created by a concurrent login would not be revoked.';
  END IF;
  UPDATE users u SET is_active = false, updated_at = now()
  WHERE u.id = ca_deactivate_user.user_id AND u.is_active;
  found_one := FOUND;
  UPDATE sessions s SET revoked_at = now()
  WHERE s.user_id = ca_deactivate_user.user_id AND s.revoked_at IS NULL;
  RETURN found_one;
END
$$;

SELECT ca_distribute_all();
