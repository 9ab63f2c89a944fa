-- POST /orders as one function, ca_order_create(), that the database runs
-- where the tenant's rows are (issue 39;
-- docs/decisions/0137-order-create-is-one-delegated-call.md).
--
-- On one PostgreSQL it is a PL/pgSQL function like any other. On Citus it
-- is distributed by its `tenant_id` argument and colocated with `orders`,
-- with force_delegation: the coordinator sends the call to the worker that
-- holds the tenant's shards and the whole body runs there, each statement a
-- local one on the tenant's shards (or on the reference tables' copy), in
-- one transaction on one worker with a one-phase commit. The INSERT CTEs it
-- replaces were each a step Citus planned and ran from the coordinator,
-- with intermediate results and a two-phase commit.
--
-- The ids come from the caller: the order's and the event's are taken from
-- the coordinator's sequences first (handlers/orders/order_create.cc,
-- kIds), so they grow with time across tenants and moves as every other id
-- does; a sequence read on a worker would give that worker's range. The
-- items' ids are their table's default.
--
-- What it does, in order:
--   - the address, when it is the caller's and not deleted, with the
--     caller's name and email (addresses and users: reference tables);
--   - the live products among `product_ids`, locked FOR SHARE so that they
--     cannot be soft-deleted until the order commits;
--   - when the address was not found or an id is not a live product, it
--     returns with `json` NULL, `address_found` and `live_product_ids` for
--     the 422, having written nothing;
--   - otherwise the order, its items one INSERT each in the order sent (so
--     their ids follow that order), its count in its status's counter row
--     of this connection's slot (order_counts, sql/017 and 032), the audit
--     entry, the `order.created` event (its actor when an API key wrote),
--     and one delivery per matching active subscription, each a plain
--     INSERT ... VALUES: no statement reads one table to write another, so
--     Citus never plans an INSERT ... SELECT (a prepared one over webhooks
--     ran on every shard);
--   - `json`: the order as created (sql/026's shapes).
--
-- Every statement filters by the `tenant_id` argument itself: Citus refuses
-- a statement of a delegated body that routes by anything else, and one
-- that mixes a reference table with a distributed one (hence the actor's
-- two reads). `who` is audit_who()'s {"user_id", "api_key_id",
-- "request_id"} (common/audit.h).

SET LOCAL lock_timeout = '10s';
SET LOCAL citus.multi_shard_modify_mode = 'sequential';

CREATE FUNCTION ca_order_create(
  tenant_id bigint, order_id bigint, event_id bigint, user_id bigint, address_id bigint,
  payment_type integer, total_amount numeric, product_ids bigint[], sizes text[],
  qtys integer[], amounts numeric[], notes text[], who jsonb,
  OUT json text, OUT address_found boolean, OUT live_product_ids bigint[])
LANGUAGE plpgsql AS $$
#variable_conflict use_column
DECLARE
  addr record;
  o orders;
  actor record;
  hook record;
  n integer;
  item text;
  items text := '';
BEGIN
  SELECT a.street, a.city, u.name, u.email INTO addr
  FROM addresses a JOIN users u ON u.id = a.user_id
  WHERE a.user_id = ca_order_create.user_id AND a.id = ca_order_create.address_id
    AND a.deleted_at IS NULL;
  address_found := FOUND;
  live_product_ids := ARRAY(
    SELECT p.id FROM products p
    WHERE p.tenant_id = ca_order_create.tenant_id AND p.id = ANY (ca_order_create.product_ids)
      AND p.deleted_at IS NULL
    ORDER BY p.id FOR SHARE);
  IF NOT address_found OR EXISTS (
       SELECT 1 FROM unnest(ca_order_create.product_ids) x (id)
       WHERE x.id <> ALL (live_product_ids)) THEN
    RETURN;
  END IF;

  INSERT INTO orders (tenant_id, id, user_id, address_id, payment_type, total_amount)
  VALUES (ca_order_create.tenant_id, ca_order_create.order_id, ca_order_create.user_id,
          ca_order_create.address_id, ca_order_create.payment_type,
          ca_order_create.total_amount)
  RETURNING * INTO o;
  FOR n IN 1 .. cardinality(ca_order_create.product_ids) LOOP
    INSERT INTO order_items (tenant_id, order_id, product_id, size, qty, amount, notes)
    VALUES (ca_order_create.tenant_id, o.id, ca_order_create.product_ids[n],
            ca_order_create.sizes[n], ca_order_create.qtys[n], ca_order_create.amounts[n],
            ca_order_create.notes[n])
    RETURNING ca_order_item_json(id => id, order_id => order_id, product_id => product_id,
                                 size => size, qty => qty, amount => amount, notes => notes,
                                 product => NULL)
    INTO item;
    items := items || CASE WHEN n > 1 THEN ',' ELSE '' END || item;
  END LOOP;
  INSERT INTO order_counts AS k (tenant_id, status, slot, n)
  VALUES (ca_order_create.tenant_id, o.status, pg_backend_pid() % 16, 1)
  ON CONFLICT (tenant_id, status, slot) DO UPDATE SET n = k.n + 1;

  -- The actor as common/audit.h's CA_AUDIT_ACTOR reads it: the caller, whose
  -- name the address's read has (the address is the caller's), or the API
  -- key. Not found (a key deleted meanwhile): actor_name NULL, which
  -- audit_log refuses, so the order is not written without its entry.
  IF (who ->> 'api_key_id')::bigint = 0 THEN
    SELECT 'user' AS type, ca_order_create.user_id AS id, addr.name AS name INTO actor;
  ELSE
    SELECT 'api_key' AS type, k.id, k.name INTO actor FROM api_keys k
    WHERE k.tenant_id = ca_order_create.tenant_id AND k.id = (who ->> 'api_key_id')::bigint;
  END IF;
  INSERT INTO audit_log (tenant_id, action, actor_type, actor_id, actor_name, target_type,
                         target_id, changed, request_id)
  VALUES (ca_order_create.tenant_id, 'order.created', actor.type, actor.id, actor.name, 'order',
          o.id, NULL, who ->> 'request_id');
  INSERT INTO events (tenant_id, id, type, payload, actor)
  VALUES (ca_order_create.tenant_id, ca_order_create.event_id, 'order.created',
          ca_order_event_json(order_id => o.id, user_id => o.user_id, status => o.status,
                              total_amount => o.total_amount,
                              items_count => cardinality(ca_order_create.product_ids)::bigint,
                              previous_status => NULL)::jsonb,
          CASE WHEN actor.type = 'api_key'
               THEN jsonb_build_object('type', actor.type, 'id', actor.id, 'name', actor.name)
          END);
  FOR hook IN
    SELECT h.id, h.url FROM webhooks h
    WHERE h.tenant_id = ca_order_create.tenant_id AND h.is_active
      AND (h.events @> '["order.created"]' OR h.events @> '["*"]')
    ORDER BY h.id
  LOOP
    INSERT INTO webhook_deliveries (tenant_id, webhook_id, event_id, event, url)
    VALUES (ca_order_create.tenant_id, hook.id, ca_order_create.event_id, 'order.created',
            hook.url);
  END LOOP;

  json := ca_order_json(
    id => o.id, user_id => o.user_id, tenant_id => o.tenant_id, address_id => o.address_id,
    payment_type => o.payment_type, total_amount => o.total_amount, status => o.status,
    created_at => o.created_at, updated_at => o.updated_at, items => '[' || items || ']',
    items_count => NULL,
    owner => ca_order_user_json(id => o.user_id, name => addr.name, email => addr.email),
    address => ca_order_address_json(all_fields => false, id => o.address_id,
                                      street => addr.street, city => addr.city,
                                      country => NULL, postal_code => NULL));
END $$;

DO $$
BEGIN
  IF ca_citus() THEN
    PERFORM create_distributed_function(
      'ca_order_create(bigint, bigint, bigint, bigint, bigint, integer, numeric, bigint[], '
      'text[], integer[], numeric[], text[], jsonb)',
      distribution_arg_name := 'tenant_id', colocate_with := 'orders',
      force_delegation := true);
  END IF;
END $$;
