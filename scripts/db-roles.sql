-- The two database roles (README "Deploying",
-- docs/decisions/0370-two-database-roles.md), as a superuser, connected to
-- the service's database:
--
--   psql -v owner=commerce_admin_owner -v runtime=commerce_admin_app \
--        -d commerce_admin -f scripts/db-roles.sql
--
-- Idempotent; scripts/run runs it on every start. It creates the roles if
-- they are missing (no password: the dev cluster trusts its unix socket;
-- give them one, or map them in pg_ident.conf, elsewhere), makes the owner
-- the database's owner (so it owns schema public, through
-- pg_database_owner, and may create the trusted extensions sql/002 asks
-- for), takes TEMPORARY from PUBLIC (a temporary table is DDL the runtime
-- role does not need), and hands the owner every object of schema public
-- that another role owns: a database that earlier versions of scripts/run
-- built as the postgres superuser. `commerce-admin migrate` then grants the
-- runtime role its DML (handlers/cli/migrate.cc).
\set ON_ERROR_STOP on
SET client_min_messages = warning;
SELECT set_config('commerce_admin.owner', :'owner', false),
       set_config('commerce_admin.runtime', :'runtime', false);

DO $roles$
DECLARE
  r text;
BEGIN
  FOREACH r IN ARRAY ARRAY[current_setting('commerce_admin.owner'),
                           current_setting('commerce_admin.runtime')] LOOP
    IF NOT EXISTS (SELECT FROM pg_roles WHERE rolname = r) THEN
      EXECUTE format('CREATE ROLE %I LOGIN', r);
    END IF;
  END LOOP;
  EXECUTE format('ALTER DATABASE %I OWNER TO %I', current_database(),
                 current_setting('commerce_admin.owner'));
  EXECUTE format('REVOKE TEMPORARY ON DATABASE %I FROM PUBLIC', current_database());
END
$roles$;

DO $owner$
DECLARE
  owner text := current_setting('commerce_admin.owner');
  obj record;
BEGIN
  -- Indexes, and sequences owned by a column (serial, identity), follow
  -- their table. Extension members stay with the extension's owner.
  FOR obj IN
    SELECT c.oid::regclass AS name,
           CASE c.relkind WHEN 'v' THEN 'VIEW' WHEN 'm' THEN 'MATERIALIZED VIEW'
                          WHEN 'S' THEN 'SEQUENCE' WHEN 'f' THEN 'FOREIGN TABLE'
                          ELSE 'TABLE' END AS kind
    FROM pg_class c
    WHERE c.relnamespace = 'public'::regnamespace AND c.relkind IN ('r', 'p', 'v', 'm', 'f', 'S')
      AND pg_get_userbyid(c.relowner) <> owner
      AND NOT EXISTS (SELECT FROM pg_depend d WHERE d.classid = 'pg_class'::regclass
                      AND d.objid = c.oid AND d.deptype IN ('e', 'a', 'i'))
  LOOP
    EXECUTE format('ALTER %s %s OWNER TO %I', obj.kind, obj.name, owner);
  END LOOP;
  FOR obj IN
    SELECT p.oid::regprocedure AS name FROM pg_proc p
    WHERE p.pronamespace = 'public'::regnamespace AND pg_get_userbyid(p.proowner) <> owner
      AND NOT EXISTS (SELECT FROM pg_depend d WHERE d.classid = 'pg_proc'::regclass
                      AND d.objid = p.oid AND d.deptype = 'e')
  LOOP
    EXECUTE format('ALTER ROUTINE %s OWNER TO %I', obj.name, owner);
  END LOOP;
  -- Types of their own (enums, domains, ranges, composites); a table's row
  -- type follows the table.
  FOR obj IN
    SELECT t.oid::regtype AS name FROM pg_type t
    WHERE t.typnamespace = 'public'::regnamespace AND pg_get_userbyid(t.typowner) <> owner
      AND (t.typtype IN ('e', 'd', 'r')
           OR (t.typtype = 'c' AND (SELECT relkind FROM pg_class WHERE oid = t.typrelid) = 'c'))
      AND NOT EXISTS (SELECT FROM pg_depend d WHERE d.classid = 'pg_type'::regclass
                      AND d.objid = t.oid AND d.deptype = 'e')
  LOOP
    EXECUTE format('ALTER TYPE %s OWNER TO %I', obj.name, owner);
  END LOOP;
END
$owner$;
