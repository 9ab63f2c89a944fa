-- The product writes as functions the database runs where the tenant's rows
-- are (issue 39; docs/decisions/0138-writes-are-delegated-calls.md), as
-- POST /orders is (sql/060, decision 0137), and the part every such write
-- shares: its audit entry, its event and the event's deliveries.
--
-- ca_write_recorded(): the audit entry, then (when `event_type` is given)
-- the event and one delivery per matching active subscription of the
-- tenant, each a plain INSERT ... VALUES, from the body of a delegated
-- function (it is not distributed itself: it runs where its caller runs,
-- on the tenant's worker on Citus). What CA_AUDIT_CTE and
-- CA_AUDITED_EVENTS_CTE (common/audit.h, events.h) write, with the same
-- values: the actor is the API key when `who` names one (its name read
-- now), else the user; an actor not found leaves actor_name NULL, which
-- audit_log refuses, so the write is not made without its entry; the
-- event's `actor` is the key as {type, id, name}, NULL for a session. The
-- event's id is the caller's (from the coordinator's sequence, so that
-- ids grow with time across tenants and moves).
--
-- ca_product_create(), ca_product_update(), ca_product_delete(): what
-- products_create, products_update and products_delete
-- (handlers/products/product_write.cc) did as one statement each, as plain
-- statements: the category check, the write, the live count
-- (product_counts), then ca_write_recorded(). Their rows are the
-- statements': `json` (products.api_json; NULL: no such product),
-- `category_ok` (false: the category is not the tenant's, nothing
-- written). A create's product id is the caller's too.
--
-- On Citus each is distributed by its `tenant_id` argument, colocated with
-- `products`, with force_delegation: the coordinator sends the call to the
-- tenant's worker, which runs the body on its shards, one-phase commit.
-- Every statement filters by the `tenant_id` argument, and none mixes a
-- reference table (users) with a distributed one
-- (docs/design/citus.md, "Functions the coordinator delegates").

SET LOCAL lock_timeout = '10s';
SET LOCAL citus.multi_shard_modify_mode = 'sequential';

CREATE FUNCTION ca_write_recorded(
  tenant_id bigint, event_id bigint, action text, target_type text, target_id bigint,
  changed text[], who jsonb, event_type text, payload jsonb)
RETURNS void
LANGUAGE plpgsql AS $$
#variable_conflict use_column
DECLARE
  actor record;
  hook record;
BEGIN
  IF (who ->> 'api_key_id')::bigint = 0 THEN
    SELECT 'user' AS type, u.id, u.name INTO actor FROM users u
    WHERE u.id = (who ->> 'user_id')::bigint;
  ELSE
    SELECT 'api_key' AS type, k.id, k.name INTO actor FROM api_keys k
    WHERE k.tenant_id = ca_write_recorded.tenant_id AND k.id = (who ->> 'api_key_id')::bigint;
  END IF;
  INSERT INTO audit_log (tenant_id, action, actor_type, actor_id, actor_name, target_type,
                         target_id, changed, request_id)
  VALUES (ca_write_recorded.tenant_id, ca_write_recorded.action, actor.type, actor.id, actor.name,
          ca_write_recorded.target_type, ca_write_recorded.target_id, ca_write_recorded.changed,
          who ->> 'request_id');
  IF ca_write_recorded.event_type IS NULL THEN
    RETURN;
  END IF;
  INSERT INTO events (tenant_id, id, type, payload, actor)
  VALUES (ca_write_recorded.tenant_id, ca_write_recorded.event_id, ca_write_recorded.event_type,
          ca_write_recorded.payload,
          CASE WHEN actor.type = 'api_key'
               THEN jsonb_build_object('type', actor.type, 'id', actor.id, 'name', actor.name)
          END);
  FOR hook IN
    SELECT h.id, h.url FROM webhooks h
    WHERE h.tenant_id = ca_write_recorded.tenant_id AND h.is_active
      AND (h.events @> jsonb_build_array(ca_write_recorded.event_type)
           OR h.events @> '["*"]')
    ORDER BY h.id
  LOOP
    INSERT INTO webhook_deliveries (tenant_id, webhook_id, event_id, event, url)
    VALUES (ca_write_recorded.tenant_id, hook.id, ca_write_recorded.event_id,
            ca_write_recorded.event_type, hook.url);
  END LOOP;
END $$;

CREATE FUNCTION ca_product_create(
  tenant_id bigint, product_id bigint, event_id bigint, name text, description text,
  price numeric, stock integer, category_id bigint, published boolean, who jsonb,
  OUT json text, OUT category_ok boolean)
LANGUAGE plpgsql AS $$
#variable_conflict use_column
DECLARE
  p record;
BEGIN
  category_ok := ca_product_create.category_id IS NULL OR EXISTS (
    SELECT 1 FROM categories c
    WHERE c.tenant_id = ca_product_create.tenant_id AND c.id = ca_product_create.category_id);
  IF NOT category_ok THEN
    RETURN;
  END IF;
  INSERT INTO products (tenant_id, id, name, description, price, stock, category_id, published)
  VALUES (ca_product_create.tenant_id, ca_product_create.product_id, ca_product_create.name,
          ca_product_create.description, ca_product_create.price,
          COALESCE(ca_product_create.stock, 0), ca_product_create.category_id,
          COALESCE(ca_product_create.published, true))
  RETURNING id, api_json INTO p;
  INSERT INTO product_counts AS k (tenant_id, live)
  VALUES (ca_product_create.tenant_id, 1)
  ON CONFLICT (tenant_id) DO UPDATE SET live = k.live + 1;
  PERFORM ca_write_recorded(ca_product_create.tenant_id, ca_product_create.event_id,
                            'product.created', 'product', p.id, NULL, ca_product_create.who,
                            'product.created', p.api_json::jsonb);
  json := p.api_json;
END $$;

-- Only sent fields change: NULL keeps a required field; for the nullable
-- ones a `_sent` flag tells "clear" from "keep". The row before is locked
-- first; the audit entry's `changed` compares the two. An update never
-- changes deleted_at.
CREATE FUNCTION ca_product_update(
  tenant_id bigint, product_id bigint, event_id bigint, name text, description_sent boolean,
  description text, price numeric, stock integer, category_sent boolean, category_id bigint,
  published boolean, who jsonb, OUT json text, OUT category_ok boolean)
LANGUAGE plpgsql AS $$
#variable_conflict use_column
DECLARE
  before text;
  p record;
BEGIN
  category_ok := ca_product_update.category_id IS NULL OR EXISTS (
    SELECT 1 FROM categories c
    WHERE c.tenant_id = ca_product_update.tenant_id AND c.id = ca_product_update.category_id);
  IF NOT category_ok THEN
    RETURN;
  END IF;
  SELECT o.api_json INTO before FROM products o
  WHERE o.tenant_id = ca_product_update.tenant_id AND o.id = ca_product_update.product_id
    AND o.deleted_at IS NULL
  FOR UPDATE;
  IF NOT FOUND THEN
    RETURN;
  END IF;
  UPDATE products x SET
    name = COALESCE(ca_product_update.name, x.name),
    description = CASE WHEN ca_product_update.description_sent
                       THEN ca_product_update.description ELSE x.description END,
    price = COALESCE(ca_product_update.price, x.price),
    stock = COALESCE(ca_product_update.stock, x.stock),
    category_id = CASE WHEN ca_product_update.category_sent
                       THEN ca_product_update.category_id ELSE x.category_id END,
    published = COALESCE(ca_product_update.published, x.published),
    updated_at = now()
  WHERE x.tenant_id = ca_product_update.tenant_id AND x.id = ca_product_update.product_id
  RETURNING x.id, x.api_json INTO p;
  PERFORM ca_write_recorded(
    ca_product_update.tenant_id, ca_product_update.event_id, 'product.updated', 'product', p.id,
    ca_changed(before::jsonb, p.api_json::jsonb,
               '{name,description,price,stock,category_id,published}'),
    ca_product_update.who, 'product.updated', p.api_json::jsonb);
  json := p.api_json;
END $$;

CREATE FUNCTION ca_product_delete(
  tenant_id bigint, product_id bigint, event_id bigint, who jsonb, OUT json text)
LANGUAGE plpgsql AS $$
#variable_conflict use_column
DECLARE
  p record;
BEGIN
  UPDATE products x SET deleted_at = now(), updated_at = now()
  WHERE x.tenant_id = ca_product_delete.tenant_id AND x.id = ca_product_delete.product_id
    AND x.deleted_at IS NULL
  RETURNING x.id, x.api_json INTO p;
  IF NOT FOUND THEN
    RETURN;
  END IF;
  UPDATE product_counts k SET live = k.live - 1 WHERE k.tenant_id = ca_product_delete.tenant_id;
  PERFORM ca_write_recorded(ca_product_delete.tenant_id, ca_product_delete.event_id,
                            'product.deleted', 'product', p.id, NULL, ca_product_delete.who,
                            'product.deleted', p.api_json::jsonb);
  json := p.api_json;
END $$;

-- The caller's read record of an announcement (POST .../read and
-- .../dismiss, handlers/announcements/read_state.cc): what the statements
-- announcements_mark_read and announcements_dismiss did. Nothing when the
-- announcement is not the tenant's (`announcement_found` false: the 404). Otherwise the
-- record's upsert (read_at and dismissed_at keep their first value), and
-- the caller's read version moves when the record is new or, for a
-- dismissal, was not dismissed yet; the record says which, as the
-- statements' did (a new record has created_at = updated_at, a new
-- dismissal dismissed_at = updated_at, all this transaction's now()).
CREATE FUNCTION ca_announcement_read(
  tenant_id bigint, announcement_id bigint, user_id bigint, dismiss boolean,
  OUT announcement_found boolean)
LANGUAGE plpgsql AS $$
#variable_conflict use_column
DECLARE
  moved boolean;
BEGIN
  announcement_found := EXISTS (
    SELECT 1 FROM announcements a
    WHERE a.tenant_id = ca_announcement_read.tenant_id
      AND a.id = ca_announcement_read.announcement_id);
  IF NOT announcement_found THEN
    RETURN;
  END IF;
  IF ca_announcement_read.dismiss THEN
    INSERT INTO announcement_reads AS r
      (tenant_id, announcement_id, user_id, dismissed, dismissed_at)
    VALUES (ca_announcement_read.tenant_id, ca_announcement_read.announcement_id,
            ca_announcement_read.user_id, true, now())
    ON CONFLICT (tenant_id, announcement_id, user_id) DO UPDATE
    SET dismissed = true, dismissed_at = COALESCE(r.dismissed_at, EXCLUDED.dismissed_at),
        updated_at = EXCLUDED.updated_at
    RETURNING r.dismissed_at = r.updated_at INTO moved;
  ELSE
    INSERT INTO announcement_reads AS r (tenant_id, announcement_id, user_id)
    VALUES (ca_announcement_read.tenant_id, ca_announcement_read.announcement_id,
            ca_announcement_read.user_id)
    ON CONFLICT (tenant_id, announcement_id, user_id) DO UPDATE
    SET updated_at = EXCLUDED.updated_at
    RETURNING r.created_at = r.updated_at INTO moved;
  END IF;
  IF moved THEN
    INSERT INTO announcement_read_versions AS v (tenant_id, user_id, version)
    VALUES (ca_announcement_read.tenant_id, ca_announcement_read.user_id, 1)
    ON CONFLICT (tenant_id, user_id) DO UPDATE SET version = v.version + 1;
  END IF;
END $$;

-- The category writes but the delete (handlers/categories/categories.cc):
-- what categories_create, categories_update and categories_toggle did as
-- one statement each. `json` is the category as the API shows it
-- (ca_category_json, sql/025); NULL: no such category. A create's category
-- id and event id are the caller's (the coordinator's sequences). A taken
-- name raises the unique violation, as the statements did (a 422).
CREATE FUNCTION ca_category_create(
  tenant_id bigint, category_id bigint, event_id bigint, name text, description text, who jsonb,
  OUT json text)
LANGUAGE plpgsql AS $$
#variable_conflict use_column
DECLARE
  c categories;
BEGIN
  INSERT INTO categories (tenant_id, id, name, description)
  VALUES (ca_category_create.tenant_id, ca_category_create.category_id, ca_category_create.name,
          ca_category_create.description)
  RETURNING * INTO c;
  json := ca_category_json(id => c.id, tenant_id => c.tenant_id, name => c.name,
                           description => c.description, is_published => c.is_published,
                           created_at => c.created_at, updated_at => c.updated_at);
  PERFORM ca_write_recorded(ca_category_create.tenant_id, ca_category_create.event_id,
                            'category.created', 'category', c.id, NULL, ca_category_create.who,
                            'category.created', json::jsonb);
END $$;

-- NULL `name` keeps it; `description_sent` tells "clear" from "keep". The
-- row before is locked first; the audit entry's `changed` compares the two.
CREATE FUNCTION ca_category_update(
  tenant_id bigint, category_id bigint, name text, description_sent boolean, description text,
  who jsonb, OUT json text)
LANGUAGE plpgsql AS $$
#variable_conflict use_column
DECLARE
  o record;
  c categories;
BEGIN
  SELECT x.name, x.description INTO o FROM categories x
  WHERE x.tenant_id = ca_category_update.tenant_id AND x.id = ca_category_update.category_id
  FOR UPDATE;
  IF NOT FOUND THEN
    RETURN;
  END IF;
  UPDATE categories x SET
    name = COALESCE(ca_category_update.name, x.name),
    description = CASE WHEN ca_category_update.description_sent
                       THEN ca_category_update.description ELSE x.description END,
    updated_at = now()
  WHERE x.tenant_id = ca_category_update.tenant_id AND x.id = ca_category_update.category_id
  RETURNING * INTO c;
  PERFORM ca_write_recorded(
    ca_category_update.tenant_id, NULL, 'category.updated', 'category', c.id,
    ca_changed(jsonb_build_object('name', o.name, 'description', o.description),
               jsonb_build_object('name', c.name, 'description', c.description),
               '{name,description}'),
    ca_category_update.who, NULL, NULL);
  json := ca_category_json(id => c.id, tenant_id => c.tenant_id, name => c.name,
                           description => c.description, is_published => c.is_published,
                           created_at => c.created_at, updated_at => c.updated_at);
END $$;

-- Atomic: concurrent toggles each flip the stored value once.
CREATE FUNCTION ca_category_toggle(
  tenant_id bigint, category_id bigint, who jsonb, OUT json text, OUT is_published boolean)
LANGUAGE plpgsql AS $$
#variable_conflict use_column
DECLARE
  c categories;
BEGIN
  UPDATE categories x SET is_published = NOT x.is_published, updated_at = now()
  WHERE x.tenant_id = ca_category_toggle.tenant_id AND x.id = ca_category_toggle.category_id
  RETURNING * INTO c;
  IF NOT FOUND THEN
    RETURN;
  END IF;
  PERFORM ca_write_recorded(ca_category_toggle.tenant_id, NULL, 'category.toggled', 'category',
                            c.id, '{is_published}', ca_category_toggle.who, NULL, NULL);
  json := ca_category_json(id => c.id, tenant_id => c.tenant_id, name => c.name,
                           description => c.description, is_published => c.is_published,
                           created_at => c.created_at, updated_at => c.updated_at);
  is_published := c.is_published;
END $$;

DO $$
BEGIN
  IF ca_citus() THEN
    -- The shared part first: a plain function on every worker.
    PERFORM create_distributed_function(
      'ca_write_recorded(bigint, bigint, text, text, bigint, text[], jsonb, text, jsonb)');
    PERFORM create_distributed_function(
      'ca_product_create(bigint, bigint, bigint, text, text, numeric, integer, bigint, boolean, '
      'jsonb)',
      distribution_arg_name := 'tenant_id', colocate_with := 'products',
      force_delegation := true);
    PERFORM create_distributed_function(
      'ca_product_update(bigint, bigint, bigint, text, boolean, text, numeric, integer, boolean, '
      'bigint, boolean, jsonb)',
      distribution_arg_name := 'tenant_id', colocate_with := 'products',
      force_delegation := true);
    PERFORM create_distributed_function(
      'ca_product_delete(bigint, bigint, bigint, jsonb)',
      distribution_arg_name := 'tenant_id', colocate_with := 'products',
      force_delegation := true);
    PERFORM create_distributed_function(
      'ca_announcement_read(bigint, bigint, bigint, boolean)',
      distribution_arg_name := 'tenant_id', colocate_with := 'announcement_reads',
      force_delegation := true);
    PERFORM create_distributed_function(
      'ca_category_create(bigint, bigint, bigint, text, text, jsonb)',
      distribution_arg_name := 'tenant_id', colocate_with := 'categories',
      force_delegation := true);
    PERFORM create_distributed_function(
      'ca_category_update(bigint, bigint, text, boolean, text, jsonb)',
      distribution_arg_name := 'tenant_id', colocate_with := 'categories',
      force_delegation := true);
    PERFORM create_distributed_function(
      'ca_category_toggle(bigint, bigint, jsonb)',
      distribution_arg_name := 'tenant_id', colocate_with := 'categories',
      force_delegation := true);
  END IF;
END $$;
