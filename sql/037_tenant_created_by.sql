-- Tenants one user may create (TENANTS_MAX_PER_USER, issue 42;
-- docs/decisions/0030-caps-on-what-users-and-tenants-grow.md): each tenant
-- records the user who created it, and the create counts the caller's rows
-- here (handlers/tenants/tenants.cc). A column of `tenants`, a reference
-- table on Citus, so the count reads one node whatever the tenants' shards.
-- No foreign key: users.tenant_id already points the other way, and a
-- tenant outlives nothing of its creator's account.
--
-- Tenants made before this migration get their creator back: the member
-- whose membership was written by the create itself (same transaction, so
-- the same created_at as the tenant). A tenant whose creator has left
-- counts for nobody.

SET LOCAL lock_timeout = '10s';
-- Citus: DDL one connection per worker, and the read of memberships (a
-- distributed table that refers to tenants) sequential, so that tenants, a
-- reference table, may be written after it in this transaction.
SET LOCAL citus.multi_shard_modify_mode = 'sequential';

-- One EXECUTE per command: Citus sends a DDL command's own query text to the
-- workers, and a migration's text holds many commands (sql/032).
DO $$
DECLARE
  command text;
  tenant_ids bigint[];
  user_ids bigint[];
BEGIN
  FOREACH command IN ARRAY ARRAY[
    'ALTER TABLE tenants ADD COLUMN created_by bigint',
    'CREATE INDEX tenants_created_by_idx ON tenants (created_by)']
  LOOP
    EXECUTE command;
  END LOOP;
  SELECT array_agg(m.tenant_id), array_agg(m.user_id) INTO tenant_ids, user_ids
  FROM memberships m JOIN tenants t ON t.id = m.tenant_id AND t.created_at = m.created_at;
  -- One row per statement: a plain update by key, which Citus runs on every
  -- placement of the reference table.
  FOR i IN 1 .. COALESCE(array_length(tenant_ids, 1), 0) LOOP
    UPDATE tenants SET created_by = user_ids[i] WHERE id = tenant_ids[i];
  END LOOP;
END
$$;
