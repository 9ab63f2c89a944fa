-- Orders and addresses rendered by PostgreSQL, as every other resource
-- (sql/025, docs/decisions/0320-one-json-renderer-in-postgresql.md): one
-- function per shape, called in the statements that write or read the
-- orders (handlers/orders), and the
-- `order.*` events' payload, so that the order's shape and its event's are
-- each defined once. The rules of sql/025 hold: columns as arguments, never
-- a whole row; PL/pgSQL, IMMUTABLE; timestamps through ca_json_timestamp(),
-- strings through to_json(); member order fixed here (the tests pin it).
-- Amounts are strings ("12.50"), as docs/design/api-conventions.md says.

-- docs/openapi.yaml "Order": the order's own fields, then `items` (a rendered array) or
-- `items_count` (the list), whichever is not NULL, then `user` and `address`
-- (rendered objects). tenant_id is a string.
CREATE FUNCTION ca_order_json(id bigint, user_id bigint, tenant_id bigint, address_id bigint,
                              payment_type integer, total_amount numeric, status text,
                              created_at timestamptz, updated_at timestamptz, items text,
                              items_count bigint, owner text, address text)
RETURNS text LANGUAGE plpgsql IMMUTABLE PARALLEL SAFE AS $$
BEGIN
  RETURN '{"id":' || id
    || ',"user_id":' || user_id
    || ',"tenant_id":"' || tenant_id
    || '","address_id":' || address_id
    || ',"payment_type":' || payment_type
    || ',"total_amount":' || to_json(total_amount::text)
    || ',"status":' || to_json(status)
    || ',"created_at":' || ca_json_timestamp(created_at)
    || ',"updated_at":' || ca_json_timestamp(updated_at)
    || CASE WHEN items IS NULL THEN '' ELSE ',"items":' || items END
    || CASE WHEN items_count IS NULL THEN '' ELSE ',"items_count":' || items_count END
    || ',"user":' || owner
    || ',"address":' || address || '}';
END $$;

-- An order item; `product` (ca_order_product_json) only in the single-order
-- record.
CREATE FUNCTION ca_order_item_json(id bigint, order_id bigint, product_id bigint, size text,
                                   qty integer, amount numeric, notes text, product text)
RETURNS text LANGUAGE plpgsql IMMUTABLE PARALLEL SAFE AS $$
BEGIN
  RETURN '{"id":' || id
    || ',"order_id":' || order_id
    || ',"product_id":' || product_id
    || ',"size":' || COALESCE(to_json(size)::text, 'null')
    || ',"qty":' || qty
    || ',"amount":' || to_json(amount::text)
    || ',"notes":' || COALESCE(to_json(notes)::text, 'null')
    || CASE WHEN product IS NULL THEN '' ELSE ',"product":' || product END || '}';
END $$;

-- The product summary of an item (also of a soft-deleted product). No
-- product images exist yet (docs/design/api-conventions.md "Products").
CREATE FUNCTION ca_order_product_json(id bigint, name text, published boolean)
RETURNS text LANGUAGE plpgsql IMMUTABLE PARALLEL SAFE AS $$
BEGIN
  RETURN '{"id":' || id
    || ',"name_en":' || to_json(name)
    || ',"cover_id":null,"published":' || CASE WHEN published THEN 'true' ELSE 'false' END || '}';
END $$;

-- The ordering user.
CREATE FUNCTION ca_order_user_json(id bigint, name text, email text)
RETURNS text LANGUAGE plpgsql IMMUTABLE PARALLEL SAFE AS $$
BEGIN
  RETURN '{"id":' || id || ',"name":' || to_json(name) || ',"email":' || to_json(email) || '}';
END $$;

-- The order's address: id, street, city; with `all_fields` (the
-- single-order record) also country and postal_code.
CREATE FUNCTION ca_order_address_json(all_fields boolean, id bigint, street text, city text,
                                      country text, postal_code text)
RETURNS text LANGUAGE plpgsql IMMUTABLE PARALLEL SAFE AS $$
BEGIN
  RETURN '{"id":' || id
    || ',"street":' || to_json(street)
    || ',"city":' || to_json(city)
    || CASE WHEN all_fields THEN
         ',"country":' || to_json(country) || ',"postal_code":' || to_json(postal_code)
       ELSE '' END || '}';
END $$;

-- The payload every `order.*` event carries (docs/design/events.md), with
-- `previous_status` for order.status_changed (NULL: left out).
CREATE FUNCTION ca_order_event_json(order_id bigint, user_id bigint, status text,
                                    total_amount numeric, items_count bigint,
                                    previous_status text)
RETURNS text LANGUAGE plpgsql IMMUTABLE PARALLEL SAFE AS $$
BEGIN
  RETURN '{"order_id":' || order_id
    || ',"user_id":' || user_id
    || ',"status":' || to_json(status)
    || ',"total_amount":' || to_json(total_amount::text)
    || ',"items_count":' || items_count
    || CASE WHEN previous_status IS NULL THEN ''
            ELSE ',"previous_status":' || to_json(previous_status) END || '}';
END $$;

-- docs/openapi.yaml "Address" (the caller's own addresses).
CREATE FUNCTION ca_address_json(id bigint, street text, city text, country text,
                                postal_code text, created_at timestamptz)
RETURNS text LANGUAGE plpgsql IMMUTABLE PARALLEL SAFE AS $$
BEGIN
  RETURN '{"id":' || id
    || ',"street":' || to_json(street)
    || ',"city":' || to_json(city)
    || ',"country":' || to_json(country)
    || ',"postal_code":' || to_json(postal_code)
    || ',"created_at":' || ca_json_timestamp(created_at) || '}';
END $$;
