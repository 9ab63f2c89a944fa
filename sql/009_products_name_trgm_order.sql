-- The name search index led with tenant_id. A GIN index answers each column
-- as its own key and walks them in column order, so a search in a large
-- tenant stepped through that tenant's whole posting list (every product it
-- has) to meet the few rows the trigrams allow: a selective search cost
-- 0.14 ms in a 1k-product tenant and 4.7 ms in a 1M-product one. With the
-- trigrams first, the tenant's list is only probed at the trigrams'
-- candidates: 0.19 ms and 1.5 ms (docs/performance.md, "Scaling").
CREATE INDEX products_name_search_idx ON products USING gin (name gin_trgm_ops, tenant_id)
  WHERE deleted_at IS NULL;
DROP INDEX products_name_trgm_idx;
