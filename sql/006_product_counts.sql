-- Live product count per tenant, so the unfiltered product list's `total`
-- costs one primary-key read instead of counting every row of the tenant
-- (O(1) at a million products). Kept exact by statement-level triggers that
-- see each statement's rows at once: a bulk insert is one counter update,
-- not one per row. Concurrent product writes of one tenant queue briefly on
-- its counter row; product writes are admin operations, so that is cheap.

CREATE TABLE product_counts (
  tenant_id  bigint PRIMARY KEY REFERENCES tenants (id) ON DELETE CASCADE,
  live       bigint NOT NULL DEFAULT 0 CHECK (live >= 0)
);

CREATE FUNCTION product_counts_on_insert() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO product_counts AS c (tenant_id, live)
  SELECT tenant_id, count(*) FROM new_rows WHERE deleted_at IS NULL GROUP BY tenant_id
  ON CONFLICT (tenant_id) DO UPDATE SET live = c.live + EXCLUDED.live;
  RETURN NULL;
END $$;

CREATE FUNCTION product_counts_on_update() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
  -- Soft delete (-1) and undelete (+1) change the live count.
  UPDATE product_counts c SET live = c.live + d.delta
  FROM (SELECT n.tenant_id,
               sum(CASE WHEN n.deleted_at IS NULL THEN 1 ELSE -1 END) AS delta
        FROM new_rows n JOIN old_rows o ON o.tenant_id = n.tenant_id AND o.id = n.id
        WHERE (o.deleted_at IS NULL) <> (n.deleted_at IS NULL)
        GROUP BY n.tenant_id) d
  WHERE c.tenant_id = d.tenant_id AND d.delta <> 0;
  RETURN NULL;
END $$;

CREATE FUNCTION product_counts_on_delete() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
  UPDATE product_counts c SET live = c.live - d.n
  FROM (SELECT tenant_id, count(*) AS n FROM old_rows WHERE deleted_at IS NULL
        GROUP BY tenant_id) d
  WHERE c.tenant_id = d.tenant_id;
  RETURN NULL;
END $$;

CREATE TRIGGER product_counts_insert AFTER INSERT ON products
  REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION product_counts_on_insert();
CREATE TRIGGER product_counts_update AFTER UPDATE ON products
  REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows
  FOR EACH STATEMENT EXECUTE FUNCTION product_counts_on_update();
CREATE TRIGGER product_counts_delete AFTER DELETE ON products
  REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION product_counts_on_delete();

-- Products that existed before this migration.
INSERT INTO product_counts (tenant_id, live)
SELECT tenant_id, count(*) FROM products WHERE deleted_at IS NULL GROUP BY tenant_id;
