-- The writes issue 39 had left with INSERT CTEs on the webhook, order
-- status and category delete routes, as functions Citus delegates to the
-- tenant's worker, as sql/061's and sql/062's
-- (docs/decisions/0139-webhook-order-status-and-category-delete-are-calls.md,
-- 0138): a webhook's create, update, test event and redelivery, an order's
-- status change, a category's delete.
--
-- Each is what the statements it replaces did, as plain statements on the
-- tenant's shards, with its audit entry (and events and deliveries) written
-- by ca_write_recorded() (sql/061) or, for a write with more than one event
-- or with an event that is not fanned out, by ca_event_actor() and
-- ca_event_recorded() below. Every id a write creates that a client sees
-- (a subscription's, a delivery's it answers with, every event's) is the
-- caller's, from the coordinator's sequences (decision 0128: a worker's
-- sequence gives its own range), taken in the request's first send.
--
-- A refusal the handlers judged between their two sends (a webhook that is
-- gone or disabled, too many pending deliveries, a delivery still pending,
-- a status move the order may not make) is judged here, after the same
-- locks, and returned as `outcome` or `previous`: nothing is written then,
-- and the handler answers as before.

SET LOCAL lock_timeout = '10s';
SET LOCAL citus.multi_shard_modify_mode = 'sequential';

-- An event's `actor` as CA_EVENT_ACTOR_OF_AUDIT_ENTRIES (common/events.h)
-- and ca_write_recorded() give it: the API key as {type, id, name} when
-- `who` names one, NULL for a session.
CREATE FUNCTION ca_event_actor(tenant_id bigint, who jsonb) RETURNS jsonb
LANGUAGE plpgsql AS $$
#variable_conflict use_column
DECLARE
  actor jsonb;
BEGIN
  IF (who ->> 'api_key_id')::bigint = 0 THEN
    RETURN NULL;
  END IF;
  SELECT jsonb_build_object('type', 'api_key', 'id', k.id, 'name', k.name) INTO actor
  FROM api_keys k
  WHERE k.tenant_id = ca_event_actor.tenant_id AND k.id = (who ->> 'api_key_id')::bigint;
  RETURN actor;
END $$;

-- The event part of ca_write_recorded() alone, for a write whose audit
-- entry is written once for several events: the event (id the caller's,
-- `actor` from ca_event_actor()) and one delivery per matching active
-- subscription of the tenant, INSERT ... VALUES each.
CREATE FUNCTION ca_event_recorded(
  tenant_id bigint, event_id bigint, event_type text, payload jsonb, actor jsonb)
RETURNS void
LANGUAGE plpgsql AS $$
#variable_conflict use_column
DECLARE
  hook record;
BEGIN
  INSERT INTO events (tenant_id, id, type, payload, actor)
  VALUES (ca_event_recorded.tenant_id, ca_event_recorded.event_id, ca_event_recorded.event_type,
          ca_event_recorded.payload, ca_event_recorded.actor);
  FOR hook IN
    SELECT h.id, h.url FROM webhooks h
    WHERE h.tenant_id = ca_event_recorded.tenant_id AND h.is_active
      AND (h.events @> jsonb_build_array(ca_event_recorded.event_type)
           OR h.events @> '["*"]')
    ORDER BY h.id
  LOOP
    INSERT INTO webhook_deliveries (tenant_id, webhook_id, event_id, event, url)
    VALUES (ca_event_recorded.tenant_id, hook.id, ca_event_recorded.event_id,
            ca_event_recorded.event_type, hook.url);
  END LOOP;
END $$;

-- POST /webhooks/{tenantId} (handlers/webhooks/subscriptions.cc): what
-- tenant_turn, webhooks_under_cap and webhooks_create did. Creates of one
-- tenant take turns at its row of cap_locks (sql/039; the collection
-- 'webhook subscriptions', as decision 0060 first had it), taken first with
-- an upsert that changes nothing: a second create waits for the
-- first to commit, and its count, a statement of its own (its snapshot is
-- taken after the lock), sees the first one's row. The turn was an advisory
-- lock of the coordinator while the write was a distributed transaction
-- the coordinator committed; here the whole write is one transaction on the
-- tenant's worker, and a row of the tenant's shard is released with it. At
-- `max` live subscriptions the count raises CA422 with `refusal` (a 422
-- under "limit"), which rolls the call back. Then the subscription (id the
-- caller's) and the audit entry webhook.created; `json` the subscription
-- without its secret.
CREATE FUNCTION ca_webhook_create(
  tenant_id bigint, webhook_id bigint, url text, events jsonb, secret text, description text,
  max bigint, refusal text, who jsonb, OUT json text)
LANGUAGE plpgsql AS $$
#variable_conflict use_column
DECLARE
  live bigint;
  h webhooks;
BEGIN
  INSERT INTO cap_locks AS l (tenant_id, collection)
  VALUES (ca_webhook_create.tenant_id, 'webhook subscriptions')
  ON CONFLICT (tenant_id, collection) DO UPDATE SET collection = l.collection;
  SELECT count(*) INTO live FROM webhooks x
  WHERE x.tenant_id = ca_webhook_create.tenant_id AND x.deleted_at IS NULL;
  IF live >= ca_webhook_create.max THEN
    PERFORM ca_refuse('CA422', ca_webhook_create.refusal);
  END IF;
  INSERT INTO webhooks (tenant_id, id, url, events, secret, description)
  VALUES (ca_webhook_create.tenant_id, ca_webhook_create.webhook_id, ca_webhook_create.url,
          ca_webhook_create.events, ca_webhook_create.secret, ca_webhook_create.description)
  RETURNING * INTO h;
  PERFORM ca_write_recorded(ca_webhook_create.tenant_id, NULL, 'webhook.created', 'webhook', h.id,
                            NULL, ca_webhook_create.who, NULL, NULL);
  json := ca_webhook_json(id => h.id, url => h.url, events => h.events,
                          description => h.description, is_active => h.is_active,
                          disabled_at => h.disabled_at, disabled_reason => h.disabled_reason,
                          created_at => h.created_at, updated_at => h.updated_at);
END $$;

-- POST /webhooks/{tenantId}/{id} (handlers/webhooks/subscriptions.cc): what
-- webhooks_update, webhooks_stamp_disabled, webhooks_move_pending and
-- webhooks_get did. NULL `url`, `events`, `is_active` keep the field;
-- `description_sent` tells "clear" from "keep". Enabling clears the
-- disabled state and the failing mark; so does a new URL, which also takes
-- the pending deliveries no worker holds. Disabling stamps when and
-- `disabled_reason`. The audit entry webhook.updated compares the fields
-- before (locked first) and after. `json` NULL: no such live subscription.
CREATE FUNCTION ca_webhook_update(
  tenant_id bigint, webhook_id bigint, url text, events jsonb, description_sent boolean,
  description text, is_active boolean, disabled_reason text, who jsonb, OUT json text)
LANGUAGE plpgsql AS $$
#variable_conflict use_column
DECLARE
  o record;
  h webhooks;
BEGIN
  SELECT x.url, x.events, x.description, x.is_active INTO o FROM webhooks x
  WHERE x.tenant_id = ca_webhook_update.tenant_id AND x.id = ca_webhook_update.webhook_id
    AND x.deleted_at IS NULL
  FOR UPDATE;
  IF NOT FOUND THEN
    RETURN;
  END IF;
  UPDATE webhooks x
  SET url = COALESCE(ca_webhook_update.url, x.url),
    events = COALESCE(ca_webhook_update.events, x.events),
    description = CASE WHEN ca_webhook_update.description_sent
                       THEN ca_webhook_update.description ELSE x.description END,
    is_active = COALESCE(ca_webhook_update.is_active, x.is_active),
    disabled_at = CASE WHEN ca_webhook_update.is_active THEN NULL ELSE x.disabled_at END,
    disabled_reason = CASE WHEN ca_webhook_update.is_active THEN NULL
                           ELSE x.disabled_reason END,
    failing_since = CASE WHEN (ca_webhook_update.is_active AND NOT x.is_active)
                              OR ca_webhook_update.url <> x.url
                         THEN NULL ELSE x.failing_since END,
    updated_at = now()
  WHERE x.tenant_id = ca_webhook_update.tenant_id AND x.id = ca_webhook_update.webhook_id
  RETURNING * INTO h;
  PERFORM ca_write_recorded(
    ca_webhook_update.tenant_id, NULL, 'webhook.updated', 'webhook', h.id,
    ca_changed(jsonb_build_object('url', o.url, 'events', o.events,
                                  'description', o.description, 'is_active', o.is_active),
               jsonb_build_object('url', h.url, 'events', h.events,
                                  'description', h.description, 'is_active', h.is_active),
               '{url,events,description,is_active}'),
    ca_webhook_update.who, NULL, NULL);
  IF NOT h.is_active AND h.disabled_at IS NULL THEN
    UPDATE webhooks x SET disabled_at = now(), disabled_reason = ca_webhook_update.disabled_reason
    WHERE x.tenant_id = ca_webhook_update.tenant_id AND x.id = ca_webhook_update.webhook_id
    RETURNING * INTO h;
  END IF;
  IF ca_webhook_update.url IS NOT NULL THEN
    UPDATE webhook_deliveries d SET url = ca_webhook_update.url
    WHERE d.tenant_id = ca_webhook_update.tenant_id AND d.webhook_id = ca_webhook_update.webhook_id
      AND d.status = 'pending' AND d.url <> ca_webhook_update.url
      AND (d.lease_until IS NULL OR d.lease_until < now());
  END IF;
  json := ca_webhook_json(id => h.id, url => h.url, events => h.events,
                          description => h.description, is_active => h.is_active,
                          disabled_at => h.disabled_at, disabled_reason => h.disabled_reason,
                          created_at => h.created_at, updated_at => h.updated_at);
END $$;

-- POST /webhooks/{tenantId}/{id}/test: what webhooks_lock_for_test,
-- webhook_deliveries_pending_count and webhooks_send_test did. The
-- subscription's row is locked first, so that the pending count after it
-- (a statement of its own: its snapshot is taken after the lock) sees
-- every other test's or redelivery's delivery. `outcome`: 'not_found' (no
-- such live subscription), 'disabled', 'limit' (`max` pending deliveries
-- already), all without a write; 'sent': the audit entry webhook.tested,
-- the `webhook.test` event (`payload`) and its one delivery to this
-- subscription (never fanned out), `json` the delivery. The event's and
-- the delivery's ids are the caller's.
CREATE FUNCTION ca_webhook_test(
  tenant_id bigint, webhook_id bigint, event_id bigint, delivery_id bigint, payload jsonb,
  max bigint, who jsonb, OUT outcome text, OUT json text)
LANGUAGE plpgsql AS $$
#variable_conflict use_column
DECLARE
  h record;
  pending bigint;
  d webhook_deliveries;
BEGIN
  SELECT x.url, x.is_active INTO h FROM webhooks x
  WHERE x.tenant_id = ca_webhook_test.tenant_id AND x.id = ca_webhook_test.webhook_id
    AND x.deleted_at IS NULL
  FOR UPDATE;
  IF NOT FOUND THEN
    outcome := 'not_found';
    RETURN;
  END IF;
  IF NOT h.is_active THEN
    outcome := 'disabled';
    RETURN;
  END IF;
  SELECT count(*) INTO pending FROM (
    SELECT FROM webhook_deliveries p
    WHERE p.tenant_id = ca_webhook_test.tenant_id AND p.webhook_id = ca_webhook_test.webhook_id
      AND p.status = 'pending'
    LIMIT ca_webhook_test.max) p;
  IF pending >= ca_webhook_test.max THEN
    outcome := 'limit';
    RETURN;
  END IF;
  PERFORM ca_write_recorded(ca_webhook_test.tenant_id, NULL, 'webhook.tested', 'webhook',
                            ca_webhook_test.webhook_id, NULL, ca_webhook_test.who, NULL, NULL);
  INSERT INTO events (tenant_id, id, type, payload, actor)
  VALUES (ca_webhook_test.tenant_id, ca_webhook_test.event_id, 'webhook.test',
          ca_webhook_test.payload,
          ca_event_actor(ca_webhook_test.tenant_id, ca_webhook_test.who));
  INSERT INTO webhook_deliveries (tenant_id, id, webhook_id, event_id, event, url)
  VALUES (ca_webhook_test.tenant_id, ca_webhook_test.delivery_id, ca_webhook_test.webhook_id,
          ca_webhook_test.event_id, 'webhook.test', h.url)
  RETURNING * INTO d;
  outcome := 'sent';
  json := ca_delivery_json(tenant_id => d.tenant_id, id => d.id, webhook_id => d.webhook_id,
    event_id => d.event_id, event => d.event, url => d.url, status => d.status,
    attempts => d.attempts,
    next_attempt_at => CASE WHEN d.status = 'pending' THEN d.next_attempt_at END,
    last_attempt_at => d.last_attempt_at, response_status => d.response_status,
    error => d.error, created_at => d.created_at, delivered_at => d.delivered_at,
    redelivery_of => d.redelivery_of);
END $$;

-- POST /webhooks/{tenantId}/deliveries/{id}/redeliver
-- (handlers/webhooks/deliveries.cc): what webhook_deliveries_lock_for_redelivery,
-- webhook_deliveries_pending_count_of_delivery, webhook_deliveries_redeliver
-- and the audit entry webhook.redelivered did. The delivery is read with
-- its subscription's row locked, the pending count after it. `outcome`:
-- 'not_found', 'deleted' (its subscription is), 'disabled', 'pending' (the
-- delivery is still), 'limit', all without a write; 'sent': a new pending
-- delivery (id the caller's) of the same event to the subscription's URL
-- of now, with the message id of the delivery it repeats, `json` its record.
CREATE FUNCTION ca_webhook_redeliver(
  tenant_id bigint, delivery_id bigint, new_delivery_id bigint, max bigint, who jsonb,
  OUT outcome text, OUT json text)
LANGUAGE plpgsql AS $$
#variable_conflict use_column
DECLARE
  r record;
  pending bigint;
  d webhook_deliveries;
BEGIN
  SELECT o.webhook_id, o.event_id, o.event, o.status, w.url,
         COALESCE(o.redelivery_of, o.id) AS message_of, w.is_active,
         w.deleted_at IS NOT NULL AS deleted
  INTO r
  FROM webhook_deliveries o
  JOIN webhooks w ON w.tenant_id = ca_webhook_redeliver.tenant_id AND w.id = o.webhook_id
  WHERE o.tenant_id = ca_webhook_redeliver.tenant_id AND o.id = ca_webhook_redeliver.delivery_id
  FOR UPDATE OF w;
  IF NOT FOUND THEN
    outcome := 'not_found';
  ELSIF r.deleted THEN
    outcome := 'deleted';
  ELSIF NOT r.is_active THEN
    outcome := 'disabled';
  ELSIF r.status = 'pending' THEN
    outcome := 'pending';
  END IF;
  IF outcome IS NOT NULL THEN
    RETURN;
  END IF;
  SELECT count(*) INTO pending FROM (
    SELECT FROM webhook_deliveries p
    WHERE p.tenant_id = ca_webhook_redeliver.tenant_id AND p.webhook_id = r.webhook_id
      AND p.status = 'pending'
    LIMIT ca_webhook_redeliver.max) p;
  IF pending >= ca_webhook_redeliver.max THEN
    outcome := 'limit';
    RETURN;
  END IF;
  INSERT INTO webhook_deliveries (tenant_id, id, webhook_id, event_id, event, url, redelivery_of)
  VALUES (ca_webhook_redeliver.tenant_id, ca_webhook_redeliver.new_delivery_id, r.webhook_id,
          r.event_id, r.event, r.url, r.message_of)
  RETURNING * INTO d;
  PERFORM ca_write_recorded(ca_webhook_redeliver.tenant_id, NULL, 'webhook.redelivered',
                            'webhook', r.webhook_id, NULL, ca_webhook_redeliver.who, NULL, NULL);
  outcome := 'sent';
  json := ca_delivery_json(tenant_id => d.tenant_id, id => d.id, webhook_id => d.webhook_id,
    event_id => d.event_id, event => d.event, url => d.url, status => d.status,
    attempts => d.attempts,
    next_attempt_at => CASE WHEN d.status = 'pending' THEN d.next_attempt_at END,
    last_attempt_at => d.last_attempt_at, response_status => d.response_status,
    error => d.error, created_at => d.created_at, delivered_at => d.delivered_at,
    redelivery_of => d.redelivery_of);
END $$;

-- POST /orders/{id}/status (handlers/orders/order_status.cc): what
-- orders_status_lock and orders_status_set did. The order's row is locked
-- (FOR NO KEY UPDATE: it serialises status changes without blocking
-- foreign-key checks on the order), so that two moves are applied one after
-- the other and the second is judged against the first one's result.
-- `previous`: the status found (NULL: no such order); `changed` false when
-- `previous` is not one of `allowed_from` (the handler's transition rule),
-- with nothing written. Otherwise the new status, the order moved from the
-- old status's counter to the new one's in this connection's slot
-- (order_counts, sql/017 and 032; rows in status order, as every writer of
-- them takes them, so that two changes sharing a slot queue instead of
-- deadlocking), the audit entry order.status_changed, the event
-- order.status_changed (`event_ids`[1]) and, when the new status is final,
-- order.completed or order.cancelled (`event_ids`[2]), sql/026's payload,
-- with their deliveries.
CREATE FUNCTION ca_order_status(
  tenant_id bigint, order_id bigint, status text, allowed_from text[], event_ids bigint[],
  who jsonb, OUT previous text, OUT changed boolean)
LANGUAGE plpgsql AS $$
#variable_conflict use_column
DECLARE
  o record;
  items bigint;
  s record;
BEGIN
  changed := false;
  SELECT x.status INTO previous FROM orders x
  WHERE x.tenant_id = ca_order_status.tenant_id AND x.id = ca_order_status.order_id
  FOR NO KEY UPDATE;
  IF NOT FOUND OR NOT previous = ANY (ca_order_status.allowed_from) THEN
    RETURN;
  END IF;
  UPDATE orders x SET status = ca_order_status.status, updated_at = now()
  WHERE x.tenant_id = ca_order_status.tenant_id AND x.id = ca_order_status.order_id
  RETURNING x.id, x.user_id, x.status, x.total_amount INTO o;
  SELECT count(*) INTO items FROM order_items i
  WHERE i.tenant_id = ca_order_status.tenant_id AND i.order_id = ca_order_status.order_id;
  FOR s IN
    SELECT v.status, v.n
    FROM (VALUES (previous, -1), (ca_order_status.status, 1)) AS v (status, n)
    ORDER BY v.status
  LOOP
    INSERT INTO order_counts AS k (tenant_id, status, slot, n)
    VALUES (ca_order_status.tenant_id, s.status, pg_backend_pid() % 16, s.n)
    ON CONFLICT (tenant_id, status, slot) DO UPDATE SET n = k.n + EXCLUDED.n;
  END LOOP;
  PERFORM ca_write_recorded(
    ca_order_status.tenant_id, ca_order_status.event_ids[1], 'order.status_changed', 'order', o.id,
    '{status}', ca_order_status.who, 'order.status_changed',
    ca_order_event_json(order_id => o.id, user_id => o.user_id, status => o.status,
                        total_amount => o.total_amount, items_count => items,
                        previous_status => previous)::jsonb);
  IF o.status IN ('completed', 'cancelled') THEN
    PERFORM ca_event_recorded(
      ca_order_status.tenant_id, ca_order_status.event_ids[2], 'order.' || o.status,
      ca_order_event_json(order_id => o.id, user_id => o.user_id, status => o.status,
                          total_amount => o.total_amount, items_count => items,
                          previous_status => NULL)::jsonb,
      ca_event_actor(ca_order_status.tenant_id, ca_order_status.who));
  END IF;
  changed := true;
END $$;

-- DELETE /category/{id} (handlers/categories/categories.cc): what
-- categories_lock_for_delete, categories_lock_products_for_delete and
-- categories_delete did. Deleting a category detaches its products, and a
-- detached product has changed: its category_id becomes null, its
-- updated_at moves and a product.updated event carries it, as if each had
-- been updated through the API.
--
-- The category is locked first, so that no product can join it (a product
-- write checks the category under a key-share lock, which waits for this
-- one), then its live products in id order, as POST /orders locks the
-- products it names, so that the two cannot deadlock. `deleted` NULL: no
-- such category, nothing written.
--
-- The events' ids are the caller's, `event_ids`, taken from the
-- coordinator's sequence in the request's first send by
-- ca_category_delete_event_ids(), as many as the category had live products
-- then. A product that joined the category between that send and the locks
-- has no id: the function then writes nothing and answers `ids_needed`,
-- how many it needs now (`deleted` NULL), and the handler takes that many
-- more and calls again. Ids left over (a product that left meanwhile) are
-- a gap in the sequence, as a rolled-back write's.
--
-- Otherwise the live products are detached with updated_at the time after
-- every lock is held (so after any product update that committed
-- meanwhile; the transaction's now() was before the waits), soft-deleted
-- ones too (no event, updated_at kept: on Citus the foreign key is NO
-- ACTION, sql/027), the category is deleted, then its audit entry
-- category.deleted (one entry: the products it detached are not entries of
-- their own, decision 0112), then one product.updated event per detached
-- product in id order, `event_ids` in their order, with their deliveries.
CREATE FUNCTION ca_category_delete(
  tenant_id bigint, category_id bigint, event_ids bigint[], who jsonb,
  OUT deleted boolean, OUT ids_needed integer)
LANGUAGE plpgsql AS $$
#variable_conflict use_column
DECLARE
  moved bigint[] := '{}';
  moved_at timestamptz;
  actor jsonb;
  p record;
  n integer := 0;
BEGIN
  PERFORM FROM categories c
  WHERE c.tenant_id = ca_category_delete.tenant_id AND c.id = ca_category_delete.category_id
  FOR UPDATE;
  IF NOT FOUND THEN
    RETURN;
  END IF;
  FOR p IN
    SELECT x.id FROM products x
    WHERE x.tenant_id = ca_category_delete.tenant_id
      AND x.category_id = ca_category_delete.category_id AND x.deleted_at IS NULL
    ORDER BY x.id
    FOR NO KEY UPDATE
  LOOP
    moved := moved || p.id;
  END LOOP;
  IF cardinality(moved) > COALESCE(cardinality(ca_category_delete.event_ids), 0) THEN
    ids_needed := cardinality(moved);
    RETURN;
  END IF;
  moved_at := clock_timestamp();
  UPDATE products x SET category_id = NULL, updated_at = moved_at
  WHERE x.tenant_id = ca_category_delete.tenant_id AND x.id = ANY (moved);
  UPDATE products x SET category_id = NULL
  WHERE x.tenant_id = ca_category_delete.tenant_id
    AND x.category_id = ca_category_delete.category_id AND x.deleted_at IS NOT NULL;
  DELETE FROM categories c
  WHERE c.tenant_id = ca_category_delete.tenant_id AND c.id = ca_category_delete.category_id;
  PERFORM ca_write_recorded(ca_category_delete.tenant_id, NULL, 'category.deleted', 'category',
                            ca_category_delete.category_id, NULL, ca_category_delete.who, NULL,
                            NULL);
  IF cardinality(moved) > 0 THEN
    actor := ca_event_actor(ca_category_delete.tenant_id, ca_category_delete.who);
    FOR p IN
      SELECT x.id, x.api_json FROM products x
      WHERE x.tenant_id = ca_category_delete.tenant_id AND x.id = ANY (moved)
      ORDER BY x.id
    LOOP
      n := n + 1;
      PERFORM ca_event_recorded(ca_category_delete.tenant_id, ca_category_delete.event_ids[n],
                                'product.updated', p.api_json::jsonb, actor);
    END LOOP;
  END IF;
  deleted := true;
END $$;

-- The ids ca_category_delete() takes, for the request's first send on the
-- coordinator (not distributed: nextval() must run where the sequence gives
-- the coordinator's ids, decision 0128): one per live product of the
-- category now, ascending. The count is a read on the tenant's shard.
CREATE FUNCTION ca_category_delete_event_ids(tenant_id bigint, category_id bigint)
RETURNS bigint[]
LANGUAGE plpgsql AS $$
#variable_conflict use_column
DECLARE
  n bigint;
BEGIN
  SELECT count(*) INTO n FROM products x
  WHERE x.tenant_id = ca_category_delete_event_ids.tenant_id
    AND x.category_id = ca_category_delete_event_ids.category_id AND x.deleted_at IS NULL;
  RETURN ARRAY(SELECT nextval('events_id_seq') FROM generate_series(1, n) ORDER BY 1);
END $$;

DO $$
BEGIN
  IF ca_citus() THEN
    -- The shared parts first: plain functions on every worker.
    PERFORM create_distributed_function('ca_event_actor(bigint, jsonb)');
    PERFORM create_distributed_function(
      'ca_event_recorded(bigint, bigint, text, jsonb, jsonb)');
    PERFORM create_distributed_function(
      'ca_webhook_create(bigint, bigint, text, jsonb, text, text, bigint, text, jsonb)',
      distribution_arg_name := 'tenant_id', colocate_with := 'webhooks',
      force_delegation := true);
    PERFORM create_distributed_function(
      'ca_webhook_update(bigint, bigint, text, jsonb, boolean, text, boolean, text, jsonb)',
      distribution_arg_name := 'tenant_id', colocate_with := 'webhooks',
      force_delegation := true);
    PERFORM create_distributed_function(
      'ca_webhook_test(bigint, bigint, bigint, bigint, jsonb, bigint, jsonb)',
      distribution_arg_name := 'tenant_id', colocate_with := 'webhooks',
      force_delegation := true);
    PERFORM create_distributed_function(
      'ca_webhook_redeliver(bigint, bigint, bigint, bigint, jsonb)',
      distribution_arg_name := 'tenant_id', colocate_with := 'webhooks',
      force_delegation := true);
    PERFORM create_distributed_function(
      'ca_order_status(bigint, bigint, text, text[], bigint[], jsonb)',
      distribution_arg_name := 'tenant_id', colocate_with := 'orders',
      force_delegation := true);
    PERFORM create_distributed_function(
      'ca_category_delete(bigint, bigint, bigint[], jsonb)',
      distribution_arg_name := 'tenant_id', colocate_with := 'categories',
      force_delegation := true);
  END IF;
END $$;
