-- A version number per tenant for the active announcements list, so the
-- announcements handler can keep each tenant's list in memory and know, in
-- the round trip that checks the caller's session, whether it is still the
-- list (docs/performance.md, "Active list in memory").
--
-- What the list shows of a row is its active_json (sql/016: every field,
-- the status, the expiry and the sort keys) and whether it is live, which
-- also depends on scheduled_at. Any write that changes one of those, of any
-- row of the tenant and by whoever, adds one to the tenant's version in the
-- same transaction; writes that change neither (the worker's push
-- bookkeeping) leave it. The row's lock orders the writers of a tenant, so
-- a version is never seen with a list other than the one it was committed
-- with. Time alone changes the list too (a row's scheduled_at or expires_at
-- passing): the handler keeps the next such moment with the list. Each
-- caller's read records get a version of their own (below), so that the
-- caller's read state of a kept list can be kept too.

SET LOCAL lock_timeout = '10s';

CREATE TABLE announcement_list_versions (
  tenant_id  bigint PRIMARY KEY REFERENCES tenants (id) ON DELETE CASCADE,
  version    bigint NOT NULL
);

-- Statement-level triggers over the transition tables: a row-level one
-- made a bulk insert of a million rows update one version row a million
-- times in one transaction (each update walking the chain of its own
-- earlier versions). A tenant's row appears with its first announcement.
-- Only tenants that still exist are written: deleting a tenant deletes its
-- announcements (and its version row) in the same statement. Rows are
-- written in tenant order, so two writers of several tenants queue instead
-- of deadlocking.
CREATE FUNCTION announcement_list_versions_move(tenant_ids bigint[]) RETURNS void
LANGUAGE sql AS $$
  INSERT INTO announcement_list_versions AS v (tenant_id, version)
  SELECT t.id, 1 FROM tenants t WHERE t.id = ANY (tenant_ids) ORDER BY t.id
  ON CONFLICT (tenant_id) DO UPDATE SET version = v.version + 1
$$;

CREATE FUNCTION announcement_list_versions_bump() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP = 'INSERT' THEN
    PERFORM announcement_list_versions_move(ARRAY(SELECT DISTINCT tenant_id FROM new_rows));
  ELSIF TG_OP = 'DELETE' THEN
    PERFORM announcement_list_versions_move(ARRAY(SELECT DISTINCT tenant_id FROM old_rows));
  ELSE
    -- The tenants of rows whose active_json (which holds the id) or
    -- scheduled_at changed: rows written unchanged cancel out.
    PERFORM announcement_list_versions_move(ARRAY(
      SELECT DISTINCT tenant_id FROM (
        (SELECT tenant_id, active_json, scheduled_at FROM new_rows
         EXCEPT ALL SELECT tenant_id, active_json, scheduled_at FROM old_rows)
        UNION ALL
        (SELECT tenant_id, active_json, scheduled_at FROM old_rows
         EXCEPT ALL SELECT tenant_id, active_json, scheduled_at FROM new_rows)) d));
  END IF;
  RETURN NULL;
END $$;

CREATE TRIGGER announcement_list_versions_insert AFTER INSERT ON announcements
  REFERENCING NEW TABLE AS new_rows
  FOR EACH STATEMENT EXECUTE FUNCTION announcement_list_versions_bump();
CREATE TRIGGER announcement_list_versions_update AFTER UPDATE ON announcements
  REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows
  FOR EACH STATEMENT EXECUTE FUNCTION announcement_list_versions_bump();
CREATE TRIGGER announcement_list_versions_delete AFTER DELETE ON announcements
  REFERENCING OLD TABLE AS old_rows
  FOR EACH STATEMENT EXECUTE FUNCTION announcement_list_versions_bump();

INSERT INTO announcement_list_versions (tenant_id, version)
SELECT DISTINCT tenant_id, 1 FROM announcements;

-- The same for each user's read records in a tenant: a version per
-- (tenant, user) that every write of a read record's announcement or
-- dismissal moves (a read repeated, which only touches updated_at, does
-- not). With both versions the handler checks a kept list and the caller's
-- read state of it with two primary-key reads.
CREATE TABLE announcement_read_versions (
  tenant_id  bigint NOT NULL REFERENCES tenants (id) ON DELETE CASCADE,
  user_id    bigint NOT NULL REFERENCES users (id) ON DELETE CASCADE,
  version    bigint NOT NULL,
  PRIMARY KEY (tenant_id, user_id)
);
CREATE INDEX announcement_read_versions_user_idx ON announcement_read_versions (user_id);

-- The (tenant, user) pairs are given as two arrays of equal length.
CREATE FUNCTION announcement_read_versions_move(tenant_ids bigint[], user_ids bigint[])
RETURNS void
LANGUAGE sql AS $$
  INSERT INTO announcement_read_versions AS v (tenant_id, user_id, version)
  SELECT t.id, u.id, 1
  FROM unnest(tenant_ids, user_ids) AS d (tenant_id, user_id)
  JOIN tenants t ON t.id = d.tenant_id JOIN users u ON u.id = d.user_id
  ORDER BY t.id, u.id
  ON CONFLICT (tenant_id, user_id) DO UPDATE SET version = v.version + 1
$$;

CREATE FUNCTION announcement_read_versions_bump() RETURNS trigger
LANGUAGE plpgsql AS $$
DECLARE
  pairs record;
BEGIN
  IF TG_OP = 'INSERT' THEN
    SELECT array_agg(tenant_id) AS t, array_agg(user_id) AS u INTO pairs
    FROM (SELECT DISTINCT tenant_id, user_id FROM new_rows) d;
  ELSIF TG_OP = 'DELETE' THEN
    SELECT array_agg(tenant_id) AS t, array_agg(user_id) AS u INTO pairs
    FROM (SELECT DISTINCT tenant_id, user_id FROM old_rows) d;
  ELSE
    SELECT array_agg(tenant_id) AS t, array_agg(user_id) AS u INTO pairs
    FROM (SELECT DISTINCT tenant_id, user_id FROM (
            (SELECT tenant_id, user_id, announcement_id, dismissed FROM new_rows
             EXCEPT ALL SELECT tenant_id, user_id, announcement_id, dismissed FROM old_rows)
            UNION ALL
            (SELECT tenant_id, user_id, announcement_id, dismissed FROM old_rows
             EXCEPT ALL SELECT tenant_id, user_id, announcement_id, dismissed FROM new_rows)) c
         ) d;
  END IF;
  IF pairs.t IS NOT NULL THEN
    PERFORM announcement_read_versions_move(pairs.t, pairs.u);
  END IF;
  RETURN NULL;
END $$;

CREATE TRIGGER announcement_read_versions_insert AFTER INSERT ON announcement_reads
  REFERENCING NEW TABLE AS new_rows
  FOR EACH STATEMENT EXECUTE FUNCTION announcement_read_versions_bump();
CREATE TRIGGER announcement_read_versions_update AFTER UPDATE ON announcement_reads
  REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows
  FOR EACH STATEMENT EXECUTE FUNCTION announcement_read_versions_bump();
CREATE TRIGGER announcement_read_versions_delete AFTER DELETE ON announcement_reads
  REFERENCING OLD TABLE AS old_rows
  FOR EACH STATEMENT EXECUTE FUNCTION announcement_read_versions_bump();

INSERT INTO announcement_read_versions (tenant_id, user_id, version)
SELECT DISTINCT tenant_id, user_id, 1 FROM announcement_reads;

-- Microseconds since the epoch, the handler's clock for the list's
-- validity (the database's, so the two are never skewed); NULL for an
-- infinite time (no boundary), and for NULL. Not STRICT: PostgreSQL
-- inlines only a SQL function whose strictness it can prove, and a call
-- that is not inlined cost the check statement a third of its throughput.
CREATE FUNCTION ca_epoch_us(t timestamptz) RETURNS bigint
LANGUAGE sql STABLE PARALLEL SAFE
AS $$ SELECT CASE WHEN isfinite(t) THEN (extract(epoch FROM t) * 1000000)::bigint END $$;

-- When the caller's read state of a kept list is not kept (or is out of
-- date), it is read for the list's announcements: (user, tenant,
-- announcement) with the dismissal beside it answers from the index alone.
-- It also serves what the old index on user_id did (deleting a user).
CREATE INDEX announcement_reads_user_tenant_idx ON announcement_reads
  (user_id, tenant_id, announcement_id) INCLUDE (dismissed);
DROP INDEX announcement_reads_user_idx;
