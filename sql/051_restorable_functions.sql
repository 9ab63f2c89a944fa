-- The functions that generated columns, CHECK constraints and index
-- expressions call run with search_path = public (docs/operations.md, "Back
-- up and restore"; docs/decisions/0052-restorable-functions.md). pg_restore
-- empties search_path while it loads the data, and a generated column such
-- as products.api_json computes ca_product_json(), whose body calls
-- ca_json_timestamp() unqualified: every COPY into those tables failed
-- ("function ca_json_timestamp(timestamp with time zone) does not exist")
-- and the restored products, announcements and tenants were empty.
-- A function's own SET applies to everything it calls. Only these
-- functions, which run on writes: a SET keeps a SQL function from being
-- inlined, and costs a little on every call.
-- (tests/integration/db_test.cc checks that every such function has it,
-- whatever later migrations redefine.)

DO $$
DECLARE
  f regprocedure;
BEGIN
  FOR f IN
    SELECT DISTINCT p.oid::regprocedure
    FROM pg_depend d
    JOIN pg_proc p ON p.oid = d.refobjid
    JOIN pg_namespace n ON n.oid = p.pronamespace
    WHERE d.refclassid = 'pg_proc'::regclass
      AND d.classid IN ('pg_attrdef'::regclass, 'pg_constraint'::regclass, 'pg_class'::regclass)
      AND n.nspname = 'public'
  LOOP
    EXECUTE format('ALTER FUNCTION %s SET search_path = public', f);
  END LOOP;
END
$$;
