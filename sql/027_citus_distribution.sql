-- Citus (docs/scaling.md): one sql/ tree for both modes. Without the citus
-- extension in this database everything here is a no-op; with it (CLUSTER=citus
-- ./scripts/run creates it before migrating), every table is placed:
--
--   tenant     distributed by tenant_id, all colocated (one tenant's rows of
--              every table on the same shard): every table with tenant_id
--              that is not listed below.
--   reference  copied to every worker (not per tenant; read with every
--              tenant's rows, or read by all; written far less than read):
--              tenants, users, sessions, addresses, worker_status.
--   local      stays on the coordinator only, outside Citus (read and
--              written alone, never joined): schema_migrations, and
--              login_failures, whose upsert computes with now() in
--              ON CONFLICT DO UPDATE, which Citus refuses on its tables.
--
-- A migration after this one that creates a table places it itself:
--   SELECT ca_distribute('new_table', 'tenant');   -- or 'reference', 'local'
-- and one that creates a function the shards run (a generated column, a
-- statement sent to a shard) ends with SELECT ca_distribute_all(), which
-- also copies new functions to the workers. Citus refuses, on distributed
-- tables: ALTER TABLE ... ADD CONSTRAINT together with other subcommands
-- (one ADD CONSTRAINT per ALTER TABLE), ON DELETE SET NULL (col) on a key
-- that includes tenant_id, triggers that write other tables, FOR UPDATE over
-- several tenants, non-IMMUTABLE expressions in RETURNING, VOLATILE
-- functions in UPDATE, and now() inside CASE or ON CONFLICT DO UPDATE.

-- True when this database runs Citus.
CREATE FUNCTION ca_citus() RETURNS boolean
LANGUAGE sql STABLE
RETURN EXISTS (SELECT FROM pg_extension WHERE extname = 'citus');

-- The kind a table gets from ca_distribute_all() when no migration named it.
CREATE FUNCTION ca_distribution_kind(t regclass) RETURNS text
LANGUAGE sql STABLE
RETURN CASE
  WHEN t::text IN ('tenants', 'users', 'sessions', 'addresses', 'worker_status') THEN 'reference'
  WHEN t::text IN ('schema_migrations', 'login_failures') THEN 'local'
  WHEN EXISTS (SELECT FROM pg_attribute
               WHERE attrelid = t AND attname = 'tenant_id' AND attnotnull AND NOT attisdropped)
    THEN 'tenant'
END;

-- Places one table (see above); a no-op without Citus, and for a table Citus
-- already has. Its foreign keys' targets must be placed first.
CREATE FUNCTION ca_distribute(t regclass, kind text) RETURNS void
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
  PERFORM create_distributed_table(t, 'tenant_id', colocate_with => COALESCE(anchor, 'default'));
END
$$;

-- Places every table of the public schema Citus does not have yet, parents
-- before children, by ca_distribution_kind(); a table it has no kind for
-- stops the migration (a new table without tenant_id needs a decision).
-- Then copies every function of ours to the workers (shards evaluate
-- generated columns and the functions in statements sent to them). Safe to
-- call again: what is placed already is left alone. A single-node database
-- moved to Citus later (CREATE EXTENSION citus, citus_add_node for each
-- worker) is distributed by calling it once as the schema owner.
CREATE FUNCTION ca_distribute_all() RETURNS void
LANGUAGE plpgsql AS $$
DECLARE
  r record;
  placed_one boolean;
BEGIN
  IF NOT ca_citus() THEN
    RETURN;
  END IF;
  -- Foreign keys between reference and coordinator-local tables would
  -- turn the local ones into Citus tables; none is wanted.
  SET LOCAL citus.enable_local_reference_table_foreign_keys = off;
  -- In the migration's transaction: DDL over many shards one connection
  -- per worker, so later statements of the transaction can see it.
  SET LOCAL citus.multi_shard_modify_mode = 'sequential';
  -- Citus refuses to distribute a table with triggers unless told to. Ours
  -- write only their own row now (sql/026 moved every write of another
  -- table into the handlers' statements); one that is left, or a database
  -- migrated without 026, is distributed anyway and its writes fail on the
  -- shards, loudly, instead of this migration.
  SET LOCAL citus.enable_unsafe_triggers = on;
  -- Citus refuses ON DELETE SET NULL (category_id) on a key that includes
  -- the distribution column. On Citus the key checks only (NO ACTION); the
  -- category delete must then clear its products' category_id in its own
  -- statement (docs/scaling.md). Single-node keeps the original key.
  IF EXISTS (SELECT FROM pg_constraint
             WHERE conname = 'products_tenant_id_category_id_fkey'
               AND conrelid = 'products'::regclass AND confdeltype = 'n')
     AND NOT EXISTS (SELECT FROM pg_dist_partition WHERE logicalrelid = 'products'::regclass) THEN
    ALTER TABLE products DROP CONSTRAINT products_tenant_id_category_id_fkey;
    ALTER TABLE products ADD CONSTRAINT products_tenant_id_category_id_fkey
      FOREIGN KEY (tenant_id, category_id) REFERENCES categories (tenant_id, id);
  END IF;
  LOOP
    placed_one := false;
    FOR r IN
      SELECT c.oid::regclass AS t, ca_distribution_kind(c.oid::regclass) AS kind
      FROM pg_class c
      WHERE c.relnamespace = 'public'::regnamespace AND c.relkind IN ('r', 'p')
        AND NOT c.relispartition
        AND NOT EXISTS (SELECT FROM pg_dist_partition p WHERE p.logicalrelid = c.oid)
        AND COALESCE(ca_distribution_kind(c.oid::regclass), '') <> 'local'
        -- Ready: every table it references (but itself) is placed.
        AND NOT EXISTS (
          SELECT FROM pg_constraint k
          WHERE k.conrelid = c.oid AND k.contype = 'f' AND k.confrelid <> c.oid
            AND NOT EXISTS (SELECT FROM pg_dist_partition p WHERE p.logicalrelid = k.confrelid))
      ORDER BY c.oid
    LOOP
      IF r.kind IS NULL THEN
        RAISE EXCEPTION 'table % has no tenant_id: place it with ca_distribute(%, ''reference'' or ''local'')',
          r.t, quote_literal(r.t::text);
      END IF;
      PERFORM ca_distribute(r.t, r.kind);
      placed_one := true;
    END LOOP;
    EXIT WHEN NOT placed_one;
  END LOOP;
  -- Left over: tables waiting for a parent that can never be placed.
  FOR r IN
    SELECT c.oid::regclass AS t FROM pg_class c
    WHERE c.relnamespace = 'public'::regnamespace AND c.relkind IN ('r', 'p')
      AND NOT c.relispartition
      AND NOT EXISTS (SELECT FROM pg_dist_partition p WHERE p.logicalrelid = c.oid)
      AND COALESCE(ca_distribution_kind(c.oid::regclass), '') <> 'local'
  LOOP
    RAISE EXCEPTION 'table % references a table that cannot be distributed', r.t;
  END LOOP;
  -- Our functions (not extensions' ones) on every worker.
  FOR r IN
    SELECT p.oid::regprocedure AS f FROM pg_proc p
    WHERE p.pronamespace = 'public'::regnamespace AND p.prokind = 'f'
      AND NOT EXISTS (SELECT FROM pg_depend d WHERE d.classid = 'pg_proc'::regclass
                      AND d.objid = p.oid AND d.deptype = 'e')
      AND NOT EXISTS (SELECT FROM pg_dist_object o WHERE o.classid = 'pg_proc'::regclass
                      AND o.objid = p.oid)
  LOOP
    PERFORM create_distributed_function(r.f::text);
  END LOOP;
END
$$;

SELECT ca_distribute_all();
