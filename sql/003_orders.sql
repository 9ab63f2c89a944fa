-- Orders (docs/design/api-conventions.md "Orders", "Addresses"): per-user addresses, and the
-- tenant-owned orders and order items. Orders and items are keyed
-- (tenant_id, id); an item can only point at an order and a product of its own
-- tenant, and an order only at an address of its own user, because every
-- reference is a composite foreign key.

-- Addresses belong to a user, not to a tenant: the same address serves the
-- user's orders in every tenant.
CREATE TABLE addresses (
  id           bigserial PRIMARY KEY,
  user_id      bigint NOT NULL REFERENCES users (id) ON DELETE CASCADE,
  street       text NOT NULL CHECK (char_length(street) BETWEEN 1 AND 255),
  city         text NOT NULL CHECK (char_length(city) BETWEEN 1 AND 255),
  country      text NOT NULL CHECK (char_length(country) BETWEEN 2 AND 100),
  postal_code  text NOT NULL CHECK (char_length(postal_code) BETWEEN 1 AND 20),
  created_at   timestamptz NOT NULL DEFAULT now(),
  -- The target of orders' (user_id, address_id) foreign key, and the index of
  -- "my addresses" ordered by id.
  UNIQUE (user_id, id)
);

CREATE TABLE orders (
  tenant_id     bigint NOT NULL REFERENCES tenants (id) ON DELETE CASCADE,
  id            bigserial,
  user_id       bigint NOT NULL,
  address_id    bigint NOT NULL,
  payment_type  integer NOT NULL CHECK (payment_type >= 1),
  total_amount  numeric(12, 2) NOT NULL CHECK (total_amount >= 0),
  status        text NOT NULL DEFAULT 'pending'
                CHECK (status IN ('pending', 'processing', 'completed', 'cancelled')),
  created_at    timestamptz NOT NULL DEFAULT now(),
  updated_at    timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (tenant_id, id),
  -- The address must be one of the ordering user's own. No ON DELETE: an
  -- address that orders use cannot be deleted (nor, through it, its user).
  FOREIGN KEY (user_id, address_id) REFERENCES addresses (user_id, id)
);
-- The list is newest first (id DESC): unfiltered it walks the primary key
-- backwards; these serve the `status`, `user_id` and combined filters.
CREATE INDEX orders_status_idx ON orders (tenant_id, status, id DESC);
CREATE INDEX orders_user_idx ON orders (tenant_id, user_id, id DESC);
CREATE INDEX orders_user_status_idx ON orders (tenant_id, user_id, status, id DESC);

CREATE TABLE order_items (
  tenant_id   bigint NOT NULL,
  id          bigserial,
  order_id    bigint NOT NULL,
  product_id  bigint NOT NULL,
  size        text CHECK (char_length(size) <= 100),
  qty         integer NOT NULL CHECK (qty >= 1),
  amount      numeric(12, 2) NOT NULL CHECK (amount >= 0),
  notes       text CHECK (char_length(notes) <= 1000),
  PRIMARY KEY (tenant_id, id),
  FOREIGN KEY (tenant_id, order_id) REFERENCES orders (tenant_id, id) ON DELETE CASCADE,
  -- Products are soft-deleted, so old orders keep pointing at them.
  FOREIGN KEY (tenant_id, product_id) REFERENCES products (tenant_id, id)
);
-- An order's items in order, and its item count.
CREATE INDEX order_items_order_idx ON order_items (tenant_id, order_id, id);
-- Foreign key checks when a product row is really deleted (tenant removal).
CREATE INDEX order_items_product_idx ON order_items (tenant_id, product_id);
