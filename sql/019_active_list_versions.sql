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
-- passing): the handler keeps the next such moment with the list.

SET LOCAL lock_timeout = '10s';

CREATE TABLE announcement_list_versions (
  tenant_id  bigint PRIMARY KEY REFERENCES tenants (id) ON DELETE CASCADE,
  version    bigint NOT NULL
);

-- A tenant's row appears with its first announcement. A delete only
-- updates: the tenant may be the thing being deleted (its row is gone
-- then, and an insert would break the foreign key).
CREATE FUNCTION announcement_list_versions_bump() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP = 'DELETE' OR (TG_OP = 'UPDATE' AND NEW.tenant_id <> OLD.tenant_id) THEN
    UPDATE announcement_list_versions SET version = version + 1 WHERE tenant_id = OLD.tenant_id;
  END IF;
  IF TG_OP <> 'DELETE' THEN
    INSERT INTO announcement_list_versions AS v (tenant_id, version) VALUES (NEW.tenant_id, 1)
    ON CONFLICT (tenant_id) DO UPDATE SET version = v.version + 1;
  END IF;
  RETURN NULL;
END $$;

CREATE TRIGGER announcement_list_versions_insert AFTER INSERT ON announcements
  FOR EACH ROW EXECUTE FUNCTION announcement_list_versions_bump();
CREATE TRIGGER announcement_list_versions_update AFTER UPDATE ON announcements
  FOR EACH ROW WHEN (OLD.active_json IS DISTINCT FROM NEW.active_json
                     OR OLD.scheduled_at IS DISTINCT FROM NEW.scheduled_at
                     OR OLD.tenant_id <> NEW.tenant_id)
  EXECUTE FUNCTION announcement_list_versions_bump();
CREATE TRIGGER announcement_list_versions_delete AFTER DELETE ON announcements
  FOR EACH ROW EXECUTE FUNCTION announcement_list_versions_bump();

INSERT INTO announcement_list_versions (tenant_id, version)
SELECT DISTINCT tenant_id, 1 FROM announcements;

-- Microseconds since the epoch, the handler's clock for the list's
-- validity (the database's, so the two are never skewed); NULL for an
-- infinite time (no boundary).
CREATE FUNCTION ca_epoch_us(t timestamptz) RETURNS bigint
LANGUAGE sql STABLE STRICT PARALLEL SAFE
AS $$ SELECT CASE WHEN isfinite(t) THEN (extract(epoch FROM t) * 1000000)::bigint END $$;

-- The check of a kept list looks up the caller's read records of the
-- listed announcements: (user, tenant, announcement) with the dismissal
-- beside it answers from the index alone. It also serves what the old index
-- on user_id did (deleting a user).
CREATE INDEX announcement_reads_user_tenant_idx ON announcement_reads
  (user_id, tenant_id, announcement_id) INCLUDE (dismissed);
DROP INDEX announcement_reads_user_idx;
