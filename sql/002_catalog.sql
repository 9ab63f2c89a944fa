-- Catalog: categories and products (docs/design/api-conventions.md). Both are tenant-owned and
-- keyed (tenant_id, id); a product's category must be of the same tenant.

CREATE EXTENSION IF NOT EXISTS pg_trgm;
CREATE EXTENSION IF NOT EXISTS btree_gin;

CREATE TABLE categories (
  tenant_id     bigint NOT NULL REFERENCES tenants (id) ON DELETE CASCADE,
  id            bigserial,
  name          text NOT NULL CHECK (char_length(name) BETWEEN 1 AND 255),
  description   text,
  is_published  boolean NOT NULL DEFAULT true,
  created_at    timestamptz NOT NULL DEFAULT now(),
  updated_at    timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (tenant_id, id)
);
-- Names are unique per tenant regardless of case.
CREATE UNIQUE INDEX categories_name_key ON categories (tenant_id, lower(name));

CREATE TABLE products (
  tenant_id    bigint NOT NULL REFERENCES tenants (id) ON DELETE CASCADE,
  id           bigserial,
  category_id  bigint,
  name         text NOT NULL CHECK (char_length(name) BETWEEN 1 AND 255),
  description  text,
  price        numeric(12, 2) NOT NULL CHECK (price >= 0),
  stock        integer NOT NULL DEFAULT 0 CHECK (stock >= 0),
  published    boolean NOT NULL DEFAULT true,
  -- Soft delete: gone from reads, lists and new orders; old orders still show it.
  deleted_at   timestamptz,
  created_at   timestamptz NOT NULL DEFAULT now(),
  updated_at   timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (tenant_id, id),
  FOREIGN KEY (tenant_id, category_id) REFERENCES categories (tenant_id, id)
    ON DELETE SET NULL (category_id)
);
-- The list (newest first), by category, by published, and the name search.
CREATE INDEX products_list_idx ON products (tenant_id, id DESC) WHERE deleted_at IS NULL;
CREATE INDEX products_category_idx ON products (tenant_id, category_id, id DESC)
  WHERE deleted_at IS NULL;
CREATE INDEX products_published_idx ON products (tenant_id, published, id DESC)
  WHERE deleted_at IS NULL;
CREATE INDEX products_name_trgm_idx ON products USING gin (tenant_id, name gin_trgm_ops)
  WHERE deleted_at IS NULL;
