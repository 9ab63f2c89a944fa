-- A tenant's row on its own shard (issue 39;
-- docs/decisions/0143-a-tenants-row-on-its-shard.md).
--
-- On Citus `tenants` was a reference table: every write of it (the tenant
-- update, POST /tenants/{id}) went to every node in a two-phase commit,
-- whatever the statement's shape. It is now distributed by `id`,
-- colocated with every tenant table (their `tenant_id`): the tenant's row
-- is on the shard that holds the rest of its rows, and the tenant update
-- is one call Citus delegates there (ca_tenant_update(), sql/064, now
-- distributed by its `tenant_id`). The foreign keys of tenant tables to
-- `tenants (id)` stay (distributed to distributed, on the distribution
-- column: checked on the shard).
--
-- `users.tenant_id` (the tenant the user last created or joined) loses its
-- foreign key: a reference table may not refer to a distributed one. It
-- never needed one: login answers the current tenant from the user's
-- memberships, and a value whose membership is gone is passed over
-- (docs/decisions/0142-a-users-current-tenant-is-answered-at-login.md).
-- Dropped on a single PostgreSQL too, so both modes keep one schema.

SET LOCAL lock_timeout = '10s';
SET LOCAL citus.multi_shard_modify_mode = 'sequential';

ALTER TABLE users DROP CONSTRAINT users_tenant_id_fkey;

-- The placement (sql/027, sql/041): `tenants` is a tenant table, keyed by
-- `id`. For a database placed later by ca_distribute_all().
CREATE OR REPLACE FUNCTION ca_distribution_kind(t regclass) RETURNS text
LANGUAGE sql STABLE
RETURN CASE
  WHEN t::text IN ('users', 'sessions', 'addresses', 'worker_status') THEN 'reference'
  WHEN t::text IN ('schema_migrations', 'login_failures', 'password_resets',
                   'password_forgot_requests') THEN 'local'
  WHEN t::text = 'tenants' THEN 'tenant'
  WHEN EXISTS (SELECT FROM pg_attribute
               WHERE attrelid = t AND attname = 'tenant_id' AND attnotnull AND NOT attisdropped)
    THEN 'tenant'
END;

CREATE OR REPLACE FUNCTION ca_distribute(t regclass, kind text) RETURNS void
LANGUAGE plpgsql AS $$
DECLARE
  anchor text;
BEGIN
  IF kind IS NULL OR kind NOT IN ('tenant', 'reference', 'local') THEN
    RAISE EXCEPTION 'ca_distribute(%): kind must be tenant, reference or local, not %', t, kind;
  END IF;
  IF NOT ca_citus() OR kind = 'local' THEN
    RETURN;
  END IF;
  IF EXISTS (SELECT FROM pg_dist_partition WHERE logicalrelid = t) THEN
    RETURN;
  END IF;
  IF kind = 'reference' THEN
    PERFORM create_reference_table(t);
    RETURN;
  END IF;
  -- Colocated with the first tenant table (the same shards hold a tenant's
  -- rows of every table, so joins and foreign keys stay on one shard).
  SELECT p.logicalrelid::regclass::text INTO anchor
  FROM pg_dist_partition p
  WHERE p.partmethod = 'h'
  ORDER BY p.logicalrelid LIMIT 1;
  PERFORM create_distributed_table(
    t, CASE WHEN t::text = 'tenants' THEN 'id' ELSE 'tenant_id' END,
    colocate_with => COALESCE(anchor, 'default'));
END
$$;

-- On Citus, a reference `tenants` becomes a tenant table: the foreign keys
-- that name it are dropped, the table is taken back from Citus and
-- distributed by `id`, colocated with `memberships`, and the keys are made
-- again (checked against the rows as they are).
DO $$
DECLARE
  k record;
  remake text[] := '{}';
  command text;
BEGIN
  -- Two tests: pg_dist_partition exists only with Citus.
  IF NOT ca_citus() THEN
    RETURN;
  END IF;
  IF NOT EXISTS (SELECT FROM pg_dist_partition
                 WHERE logicalrelid = 'tenants'::regclass AND partmethod = 'n') THEN
    RETURN;
  END IF;
  FOR k IN
    SELECT c.conrelid::regclass::text AS t, c.conname, pg_get_constraintdef(c.oid) AS def
    FROM pg_constraint c
    WHERE c.contype = 'f' AND c.confrelid = 'tenants'::regclass
    ORDER BY c.conrelid, c.conname
  LOOP
    EXECUTE format('ALTER TABLE %s DROP CONSTRAINT %I', k.t, k.conname);
    remake := remake || format('ALTER TABLE %s ADD CONSTRAINT %I %s', k.t, k.conname, k.def);
  END LOOP;
  PERFORM undistribute_table('tenants');
  PERFORM create_distributed_table('tenants', 'id', colocate_with => 'memberships');
  FOREACH command IN ARRAY remake LOOP
    EXECUTE command;
  END LOOP;
END $$;

-- POST /tenants/{id}: the call runs where the tenant's row is.
DO $$
BEGIN
  IF ca_citus() THEN
    PERFORM create_distributed_function(
      'ca_tenant_update(bigint, text, jsonb, text[], jsonb)',
      distribution_arg_name := 'tenant_id', colocate_with := 'tenants',
      force_delegation := true);
  END IF;
END $$;
