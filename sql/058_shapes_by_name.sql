-- The shape functions (ca_<resource>_json, sql/016, 025, 026, 030, 045, 053,
-- 056, 057) build their JSON from named members instead of concatenated
-- text (issue 38; docs/decisions/0135-shapes-built-from-named-members.md).
--
-- Each shape is a composite type here, `ca_<resource>_shape`, whose
-- attributes are the object's members in their order; the function fills
-- one ROW of it and prints it with row_to_json(). row_to_json() writes
-- `{"key":value,...}` without spaces, the bytes the `||` functions wrote,
-- so every response, event and stored column reads as before
-- (json_build_object() would write `"key" : value`, and jsonb would reorder
-- the members). An argument that is NULL prints as null: with `||` one
-- unexpected NULL turned the whole object into NULL. The object of no row,
-- its key argument NULL (a LEFT JOIN that found nothing), is still NULL, as
-- statements test for that.
--
-- Members that only some objects have (the announcement's full record, the
-- order's items or items_count, an event's actor) are two or more shapes
-- chosen by CASE. Values keep their printed form: timestamps through
-- ca_timestamp_text() (ca_json_timestamp() without its quotes), ids shown
-- as strings as text, booleans NULL as false, prices through trim_scale,
-- jsonb objects printed compact (ca_json_compact) where they were, rendered
-- parts (an order's items, user, address) as json.
--
-- The signatures do not change (CREATE OR REPLACE): the handlers of the
-- previous release call them by position while a deploy replaces them; the
-- new ones call them by name (tests/unit/shape_calls_test.cc compares the
-- calls with these signatures). The functions that generated columns call
-- keep `SET search_path = public` (sql/051). Citus propagates the types and
-- the replaced functions to the workers (the functions are distributed
-- since their migrations); ca_distribute_all() at the end distributes the
-- new helper.

SET LOCAL lock_timeout = '10s';
SET LOCAL citus.multi_shard_modify_mode = 'sequential';

-- A timestamp as ca_json_timestamp() prints it, without the quotes; NULL
-- for NULL. A SQL function declared STABLE like to_char(), which it calls,
-- so that the planner inlines it into the shapes' expressions (sql/007):
-- a PL/pgSQL call per timestamp cost more than the whole row_to_json().
-- No SET of its own: that would keep it from being inlined, and the shapes
-- that generated columns call set search_path for everything they call.
CREATE FUNCTION ca_timestamp_text(t timestamptz)
RETURNS text LANGUAGE sql STABLE PARALLEL SAFE AS $$
  SELECT CASE WHEN t BETWEEN '0001-01-01 00:00:00+00' AND '9999-12-31 23:59:59.999999+00'
              THEN to_char(t AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"')
              ELSE t::text END
$$;

CREATE TYPE ca_product_shape AS (
  id bigint, name text, description text, price numeric, stock integer, category_id bigint,
  published boolean, created_at text, updated_at text);

CREATE OR REPLACE FUNCTION ca_product_json(id bigint, name text, description text, price numeric,
                                           stock integer, category_id bigint, published boolean,
                                           created_at timestamptz, updated_at timestamptz)
RETURNS text LANGUAGE plpgsql IMMUTABLE PARALLEL SAFE SET search_path = public AS $$
BEGIN
  RETURN CASE WHEN id IS NOT NULL THEN row_to_json(ROW(
    id, name, description, CASE WHEN price = 'NaN' THEN NULL ELSE trim_scale(price) END, stock,
    category_id, COALESCE(published, false), ca_timestamp_text(created_at),
    ca_timestamp_text(updated_at))::ca_product_shape)::text END;
END $$;

CREATE TYPE ca_active_announcement_shape AS (
  id bigint, tenant_id text, title text, summary text, content text, type text,
  priority smallint, status text, is_public boolean, expires_at text, topic text,
  attachment_type text, attachment_url text, attachment_metadata jsonb, created_at text);

CREATE OR REPLACE FUNCTION ca_active_announcement_json(
  id bigint, tenant_id bigint, title text, summary text, content text, type text,
  priority smallint, status text, is_public boolean, expires_at timestamptz, topic text,
  attachment_type text, attachment_url text, attachment_metadata jsonb, created_at timestamptz)
RETURNS text LANGUAGE plpgsql IMMUTABLE PARALLEL SAFE SET search_path = public AS $$
BEGIN
  RETURN CASE WHEN id IS NOT NULL THEN row_to_json(ROW(
    id, tenant_id::text, title, summary, content, type, priority, status,
    COALESCE(is_public, false), ca_timestamp_text(expires_at), topic, attachment_type,
    attachment_url, attachment_metadata,
    ca_timestamp_text(created_at))::ca_active_announcement_shape)::text END;
END $$;

CREATE TYPE ca_category_shape AS (
  id bigint, tenant_id bigint, name text, description text, is_published boolean,
  created_at text, updated_at text);

CREATE OR REPLACE FUNCTION ca_category_json(id bigint, tenant_id bigint, name text,
                                            description text, is_published boolean,
                                            created_at timestamptz, updated_at timestamptz)
RETURNS text LANGUAGE plpgsql IMMUTABLE PARALLEL SAFE AS $$
BEGIN
  RETURN CASE WHEN id IS NOT NULL THEN row_to_json(ROW(
    id, tenant_id, name, description, COALESCE(is_published, false),
    ca_timestamp_text(created_at), ca_timestamp_text(updated_at))::ca_category_shape)::text END;
END $$;

-- The announcement's creator, `{id, name, email}`.
CREATE TYPE ca_creator_shape AS (id bigint, name text, email text);

-- docs/openapi.yaml "Announcement": every field (all_fields) ...
CREATE TYPE ca_announcement_shape AS (
  id bigint, tenant_id text, title text, summary text, content text, type text,
  priority smallint, status text, is_push_enabled boolean, is_public boolean,
  scheduled_at text, expires_at text, topic text, push_title text, push_body text,
  push_data jsonb, target_type text, target_value text, push_status text, push_error text,
  sent_at text, attachment_type text, attachment_url text, attachment_metadata jsonb,
  created_by bigint, creator ca_creator_shape, created_at text, updated_at text);
-- ... and the paginated list's view, without push_title, push_body,
-- push_data, target_type, target_value, push_error and attachment_metadata.
CREATE TYPE ca_announcement_list_shape AS (
  id bigint, tenant_id text, title text, summary text, content text, type text,
  priority smallint, status text, is_push_enabled boolean, is_public boolean,
  scheduled_at text, expires_at text, topic text, push_status text, sent_at text,
  attachment_type text, attachment_url text, created_by bigint, creator ca_creator_shape,
  created_at text, updated_at text);

CREATE OR REPLACE FUNCTION ca_announcement_json(
  all_fields boolean, id bigint, tenant_id bigint, title text, summary text, content text, type text,
  priority smallint, status text, is_push_enabled boolean, is_public boolean,
  scheduled_at timestamptz, expires_at timestamptz, topic text, push_title text, push_body text,
  push_data jsonb, target_type text, target_value text, push_status text, push_error text,
  sent_at timestamptz, attachment_type text, attachment_url text, attachment_metadata jsonb,
  created_by bigint, creator_name text, creator_email text, created_at timestamptz,
  updated_at timestamptz)
RETURNS text LANGUAGE plpgsql IMMUTABLE PARALLEL SAFE AS $$
BEGIN
  RETURN CASE
    WHEN id IS NULL THEN NULL
    WHEN all_fields THEN row_to_json(ROW(
      id, tenant_id::text, title, summary, content, type, priority, status,
      COALESCE(is_push_enabled, false), COALESCE(is_public, false),
      ca_timestamp_text(scheduled_at), ca_timestamp_text(expires_at), topic, push_title,
      push_body, push_data, target_type, target_value, push_status, push_error,
      ca_timestamp_text(sent_at), attachment_type, attachment_url, attachment_metadata,
      created_by, ROW(created_by, creator_name, creator_email)::ca_creator_shape,
      ca_timestamp_text(created_at), ca_timestamp_text(updated_at))::ca_announcement_shape)::text
    ELSE row_to_json(ROW(
      id, tenant_id::text, title, summary, content, type, priority, status,
      COALESCE(is_push_enabled, false), COALESCE(is_public, false),
      ca_timestamp_text(scheduled_at), ca_timestamp_text(expires_at), topic, push_status,
      ca_timestamp_text(sent_at), attachment_type, attachment_url, created_by,
      ROW(created_by, creator_name, creator_email)::ca_creator_shape,
      ca_timestamp_text(created_at),
      ca_timestamp_text(updated_at))::ca_announcement_list_shape)::text
  END;
END $$;

-- docs/openapi.yaml "Order": `items` (the record) or `items_count` (the
-- list), whichever is not NULL, then `user` and `address`.
CREATE TYPE ca_order_shape AS (
  id bigint, user_id bigint, tenant_id text, address_id bigint, payment_type integer,
  total_amount text, status text, created_at text, updated_at text, "user" json, address json);
CREATE TYPE ca_order_items_shape AS (
  id bigint, user_id bigint, tenant_id text, address_id bigint, payment_type integer,
  total_amount text, status text, created_at text, updated_at text, items json, "user" json,
  address json);
CREATE TYPE ca_order_count_shape AS (
  id bigint, user_id bigint, tenant_id text, address_id bigint, payment_type integer,
  total_amount text, status text, created_at text, updated_at text, items_count bigint,
  "user" json, address json);
CREATE TYPE ca_order_items_count_shape AS (
  id bigint, user_id bigint, tenant_id text, address_id bigint, payment_type integer,
  total_amount text, status text, created_at text, updated_at text, items json,
  items_count bigint, "user" json, address json);

CREATE OR REPLACE FUNCTION ca_order_json(id bigint, user_id bigint, tenant_id bigint,
                                         address_id bigint, payment_type integer,
                                         total_amount numeric, status text,
                                         created_at timestamptz, updated_at timestamptz,
                                         items text, items_count bigint, owner text,
                                         address text)
RETURNS text LANGUAGE plpgsql IMMUTABLE PARALLEL SAFE AS $$
BEGIN
  RETURN CASE
    WHEN id IS NULL THEN NULL
    WHEN items IS NULL AND items_count IS NULL THEN row_to_json(ROW(
      id, user_id, tenant_id::text, address_id, payment_type, total_amount::text, status,
      ca_timestamp_text(created_at), ca_timestamp_text(updated_at), owner::json,
      address::json)::ca_order_shape)::text
    WHEN items_count IS NULL THEN row_to_json(ROW(
      id, user_id, tenant_id::text, address_id, payment_type, total_amount::text, status,
      ca_timestamp_text(created_at), ca_timestamp_text(updated_at), items::json, owner::json,
      address::json)::ca_order_items_shape)::text
    WHEN items IS NULL THEN row_to_json(ROW(
      id, user_id, tenant_id::text, address_id, payment_type, total_amount::text, status,
      ca_timestamp_text(created_at), ca_timestamp_text(updated_at), items_count, owner::json,
      address::json)::ca_order_count_shape)::text
    ELSE row_to_json(ROW(
      id, user_id, tenant_id::text, address_id, payment_type, total_amount::text, status,
      ca_timestamp_text(created_at), ca_timestamp_text(updated_at), items::json, items_count,
      owner::json, address::json)::ca_order_items_count_shape)::text
  END;
END $$;

-- An order item; `product` only in the single-order record.
CREATE TYPE ca_order_item_shape AS (
  id bigint, order_id bigint, product_id bigint, size text, qty integer, amount text,
  notes text);
CREATE TYPE ca_order_item_product_shape AS (
  id bigint, order_id bigint, product_id bigint, size text, qty integer, amount text,
  notes text, product json);

CREATE OR REPLACE FUNCTION ca_order_item_json(id bigint, order_id bigint, product_id bigint,
                                              size text, qty integer, amount numeric,
                                              notes text, product text)
RETURNS text LANGUAGE plpgsql IMMUTABLE PARALLEL SAFE AS $$
BEGIN
  RETURN CASE
    WHEN id IS NULL THEN NULL
    WHEN product IS NULL THEN row_to_json(ROW(
      id, order_id, product_id, size, qty, amount::text, notes)::ca_order_item_shape)::text
    ELSE row_to_json(ROW(
      id, order_id, product_id, size, qty, amount::text, notes,
      product::json)::ca_order_item_product_shape)::text
  END;
END $$;

CREATE TYPE ca_order_product_shape AS (id bigint, name_en text, cover_id bigint,
                                       published boolean);

CREATE OR REPLACE FUNCTION ca_order_product_json(id bigint, name text, published boolean)
RETURNS text LANGUAGE plpgsql IMMUTABLE PARALLEL SAFE AS $$
BEGIN
  RETURN CASE WHEN id IS NOT NULL THEN row_to_json(ROW(
    id, name, NULL, COALESCE(published, false))::ca_order_product_shape)::text END;
END $$;

CREATE TYPE ca_order_user_shape AS (id bigint, name text, email text);

CREATE OR REPLACE FUNCTION ca_order_user_json(id bigint, name text, email text)
RETURNS text LANGUAGE plpgsql IMMUTABLE PARALLEL SAFE AS $$
BEGIN
  RETURN CASE WHEN id IS NOT NULL THEN
    row_to_json(ROW(id, name, email)::ca_order_user_shape)::text END;
END $$;

-- The order's address: every field (the record), or id, street, city.
CREATE TYPE ca_order_address_shape AS (id bigint, street text, city text);
CREATE TYPE ca_order_address_full_shape AS (id bigint, street text, city text, country text,
                                            postal_code text);

CREATE OR REPLACE FUNCTION ca_order_address_json(all_fields boolean, id bigint, street text,
                                                 city text, country text, postal_code text)
RETURNS text LANGUAGE plpgsql IMMUTABLE PARALLEL SAFE AS $$
BEGIN
  RETURN CASE
    WHEN id IS NULL THEN NULL
    WHEN all_fields THEN row_to_json(ROW(
      id, street, city, country, postal_code)::ca_order_address_full_shape)::text
    ELSE row_to_json(ROW(id, street, city)::ca_order_address_shape)::text
  END;
END $$;

-- The order.* events' data; `previous_status` only in order.status_changed.
CREATE TYPE ca_order_event_shape AS (order_id bigint, user_id bigint, status text,
                                     total_amount text, items_count bigint);
CREATE TYPE ca_order_status_event_shape AS (order_id bigint, user_id bigint, status text,
                                            total_amount text, items_count bigint,
                                            previous_status text);

CREATE OR REPLACE FUNCTION ca_order_event_json(order_id bigint, user_id bigint, status text,
                                               total_amount numeric, items_count bigint,
                                               previous_status text)
RETURNS text LANGUAGE plpgsql IMMUTABLE PARALLEL SAFE AS $$
BEGIN
  RETURN CASE
    WHEN order_id IS NULL THEN NULL
    WHEN previous_status IS NULL THEN row_to_json(ROW(
      order_id, user_id, status, total_amount::text, items_count)::ca_order_event_shape)::text
    ELSE row_to_json(ROW(
      order_id, user_id, status, total_amount::text, items_count,
      previous_status)::ca_order_status_event_shape)::text
  END;
END $$;

CREATE TYPE ca_address_shape AS (id bigint, street text, city text, country text,
                                 postal_code text, created_at text);

CREATE OR REPLACE FUNCTION ca_address_json(id bigint, street text, city text, country text,
                                           postal_code text, created_at timestamptz)
RETURNS text LANGUAGE plpgsql IMMUTABLE PARALLEL SAFE AS $$
BEGIN
  RETURN CASE WHEN id IS NOT NULL THEN row_to_json(ROW(
    id, street, city, country, postal_code,
    ca_timestamp_text(created_at))::ca_address_shape)::text END;
END $$;

-- A tenant; `role` (the caller's) only in the list of their tenants.
CREATE TYPE ca_tenant_shape AS (id bigint, name text, settings json, created_at text,
                                updated_at text);
CREATE TYPE ca_tenant_role_shape AS (id bigint, name text, settings json, created_at text,
                                     updated_at text, role text);

CREATE OR REPLACE FUNCTION ca_tenant_json(id bigint, name text, settings jsonb,
                                          created_at timestamptz, updated_at timestamptz,
                                          role text)
RETURNS text LANGUAGE plpgsql IMMUTABLE PARALLEL SAFE AS $$
BEGIN
  RETURN CASE
    WHEN id IS NULL THEN NULL
    WHEN role IS NULL THEN row_to_json(ROW(
      id, name, COALESCE(ca_json_compact(settings), '{}')::json, ca_timestamp_text(created_at),
      ca_timestamp_text(updated_at))::ca_tenant_shape)::text
    ELSE row_to_json(ROW(
      id, name, COALESCE(ca_json_compact(settings), '{}')::json, ca_timestamp_text(created_at),
      ca_timestamp_text(updated_at), role)::ca_tenant_role_shape)::text
  END;
END $$;

CREATE TYPE ca_member_shape AS (tenant_id bigint, user_id bigint, role text, name text,
                                email text);

CREATE OR REPLACE FUNCTION ca_member_json(tenant_id bigint, user_id bigint, role text, name text,
                                          email text)
RETURNS text LANGUAGE plpgsql IMMUTABLE PARALLEL SAFE AS $$
BEGIN
  RETURN CASE WHEN user_id IS NOT NULL THEN row_to_json(ROW(
    tenant_id, user_id, role, name, email)::ca_member_shape)::text END;
END $$;

CREATE TYPE ca_member_item_shape AS (user_id bigint, name text, email text, role text,
                                     joined_at text);

CREATE OR REPLACE FUNCTION ca_member_item_json(user_id bigint, name text, email text, role text,
                                               joined_at timestamptz)
RETURNS text LANGUAGE plpgsql IMMUTABLE PARALLEL SAFE AS $$
BEGIN
  RETURN CASE WHEN user_id IS NOT NULL THEN row_to_json(ROW(
    user_id, name, email, role, ca_timestamp_text(joined_at))::ca_member_item_shape)::text END;
END $$;

CREATE TYPE ca_user_registered_shape AS (user_id bigint, name text, email text, role text,
                                         invited_by bigint);

CREATE OR REPLACE FUNCTION ca_user_registered_json(user_id bigint, name text, email text,
                                                   role text, invited_by bigint)
RETURNS text LANGUAGE plpgsql IMMUTABLE PARALLEL SAFE AS $$
BEGIN
  RETURN CASE WHEN user_id IS NOT NULL THEN row_to_json(ROW(
    user_id, name, email, role, invited_by)::ca_user_registered_shape)::text END;
END $$;

CREATE TYPE ca_invitation_shape AS (id bigint, email text, role text, status text,
                                    expires_at text, created_at text);

CREATE OR REPLACE FUNCTION ca_invitation_json(id bigint, email text, role text, status text,
                                              expires_at timestamptz, created_at timestamptz)
RETURNS text LANGUAGE plpgsql IMMUTABLE PARALLEL SAFE AS $$
BEGIN
  RETURN CASE WHEN id IS NOT NULL THEN row_to_json(ROW(
    id, email, role, status, ca_timestamp_text(expires_at),
    ca_timestamp_text(created_at))::ca_invitation_shape)::text END;
END $$;

-- The user (login, GET /me): the flags are the strings "1" and "0".
CREATE TYPE ca_user_shape AS (
  id bigint, tenant_id bigint, name text, email text, phone text, country_code text,
  email_verified_at text, phone_verified_at text, user_type text, photo_url text, theme text,
  language text, timezone text, email_marketing text, email_system text, push_system text,
  is_active text, created_at text, updated_at text);

CREATE OR REPLACE FUNCTION ca_user_json(
  id bigint, tenant_id bigint, name text, email text, phone text, country_code text,
  email_verified_at timestamptz, phone_verified_at timestamptz, user_type text, photo_url text,
  theme text, language text, timezone text, email_marketing boolean, email_system boolean,
  push_system boolean, is_active boolean, created_at timestamptz, updated_at timestamptz)
RETURNS text LANGUAGE plpgsql IMMUTABLE PARALLEL SAFE AS $$
BEGIN
  RETURN CASE WHEN id IS NOT NULL THEN row_to_json(ROW(
    id, tenant_id, name, email, phone, country_code, ca_timestamp_text(email_verified_at),
    ca_timestamp_text(phone_verified_at), user_type, photo_url, theme, language, timezone,
    CASE WHEN email_marketing THEN '1' ELSE '0' END,
    CASE WHEN email_system THEN '1' ELSE '0' END,
    CASE WHEN push_system THEN '1' ELSE '0' END,
    CASE WHEN is_active THEN '1' ELSE '0' END,
    ca_timestamp_text(created_at), ca_timestamp_text(updated_at))::ca_user_shape)::text END;
END $$;

-- A subscription, without its secret (sql/045), and sql/030's overload of
-- the previous release.
CREATE TYPE ca_webhook_shape AS (
  id bigint, url text, events json, description text, is_active boolean, disabled_at text,
  disabled_reason text, created_at text, updated_at text);
CREATE TYPE ca_webhook_030_shape AS (
  id bigint, url text, events json, description text, is_active boolean, created_at text);

CREATE OR REPLACE FUNCTION ca_webhook_json(id bigint, url text, events jsonb, description text,
                                           is_active boolean, disabled_at timestamptz,
                                           disabled_reason text, created_at timestamptz,
                                           updated_at timestamptz)
RETURNS text LANGUAGE plpgsql IMMUTABLE PARALLEL SAFE AS $$
BEGIN
  RETURN CASE WHEN id IS NOT NULL THEN row_to_json(ROW(
    id, url, COALESCE(ca_json_compact(events), '[]')::json, description,
    COALESCE(is_active, false), ca_timestamp_text(disabled_at), disabled_reason,
    ca_timestamp_text(created_at), ca_timestamp_text(updated_at))::ca_webhook_shape)::text END;
END $$;

CREATE OR REPLACE FUNCTION ca_webhook_json(id bigint, url text, events jsonb, description text,
                                           is_active boolean, created_at timestamptz)
RETURNS text LANGUAGE plpgsql IMMUTABLE PARALLEL SAFE AS $$
BEGIN
  RETURN CASE WHEN id IS NOT NULL THEN row_to_json(ROW(
    id, url, COALESCE(ca_json_compact(events), '[]')::json, description,
    COALESCE(is_active, false), ca_timestamp_text(created_at))::ca_webhook_030_shape)::text END;
END $$;

-- A delivery record with `redelivery_of` (sql/045), and sql/030's overload.
-- `message_id` is the webhook-id header the worker sends.
CREATE TYPE ca_delivery_shape AS (
  id bigint, webhook_id bigint, event_id bigint, message_id text, redelivery_of bigint,
  event text, url text, status text, attempts integer, next_attempt_at text,
  last_attempt_at text, response_status integer, error text, created_at text,
  delivered_at text);
CREATE TYPE ca_delivery_030_shape AS (
  id bigint, webhook_id bigint, event_id bigint, message_id text, event text, url text,
  status text, attempts integer, next_attempt_at text, last_attempt_at text,
  response_status integer, error text, created_at text, delivered_at text);

CREATE OR REPLACE FUNCTION ca_delivery_json(
  tenant_id bigint, id bigint, webhook_id bigint, event_id bigint, event text, url text,
  status text, attempts integer, next_attempt_at timestamptz, last_attempt_at timestamptz,
  response_status integer, error text, created_at timestamptz, delivered_at timestamptz,
  redelivery_of bigint)
RETURNS text LANGUAGE plpgsql IMMUTABLE PARALLEL SAFE AS $$
BEGIN
  RETURN CASE WHEN id IS NOT NULL THEN row_to_json(ROW(
    id, webhook_id, event_id, format('msg_%s_%s', tenant_id, COALESCE(redelivery_of, id)),
    redelivery_of, event, url, status, attempts, ca_timestamp_text(next_attempt_at),
    ca_timestamp_text(last_attempt_at), response_status, error, ca_timestamp_text(created_at),
    ca_timestamp_text(delivered_at))::ca_delivery_shape)::text END;
END $$;

CREATE OR REPLACE FUNCTION ca_delivery_json(
  tenant_id bigint, id bigint, webhook_id bigint, event_id bigint, event text, url text,
  status text, attempts integer, next_attempt_at timestamptz, last_attempt_at timestamptz,
  response_status integer, error text, created_at timestamptz, delivered_at timestamptz)
RETURNS text LANGUAGE plpgsql IMMUTABLE PARALLEL SAFE AS $$
BEGIN
  RETURN CASE WHEN id IS NOT NULL THEN row_to_json(ROW(
    id, webhook_id, event_id, format('msg_%s_%s', tenant_id, id), event, url, status,
    attempts, ca_timestamp_text(next_attempt_at), ca_timestamp_text(last_attempt_at),
    response_status, error, ca_timestamp_text(created_at),
    ca_timestamp_text(delivered_at))::ca_delivery_030_shape)::text END;
END $$;

-- An actor as the audit log and the events show it (sql/056).
CREATE TYPE ca_actor_shape AS (type text, id bigint, name text);

CREATE OR REPLACE FUNCTION ca_actor_json(type text, id bigint, name text)
RETURNS text LANGUAGE plpgsql IMMUTABLE PARALLEL SAFE AS $$
BEGIN
  RETURN CASE WHEN type IS NOT NULL THEN
    row_to_json(ROW(type, id, name)::ca_actor_shape)::text END;
END $$;

CREATE OR REPLACE FUNCTION ca_event_actor_json(actor jsonb)
RETURNS text LANGUAGE plpgsql IMMUTABLE PARALLEL SAFE AS $$
BEGIN
  RETURN ca_actor_json(type => actor ->> 'type', id => (actor ->> 'id')::bigint,
                       name => actor ->> 'name');
END $$;

-- An event of the feed (sql/045), with `actor` after `data` when there is
-- one (sql/057).
CREATE TYPE ca_event_shape AS (id bigint, type text, created_at text, data json);
CREATE TYPE ca_event_actor_shape AS (id bigint, type text, created_at text, data json,
                                     actor ca_actor_shape);

CREATE OR REPLACE FUNCTION ca_event_json(id bigint, type text, created_at timestamptz,
                                         payload jsonb)
RETURNS text LANGUAGE plpgsql IMMUTABLE PARALLEL SAFE AS $$
BEGIN
  RETURN CASE WHEN id IS NOT NULL THEN row_to_json(ROW(
    id, type, ca_timestamp_text(created_at),
    ca_json_compact(payload)::json)::ca_event_shape)::text END;
END $$;

CREATE OR REPLACE FUNCTION ca_event_json(id bigint, type text, created_at timestamptz,
                                         payload jsonb, actor jsonb)
RETURNS text LANGUAGE plpgsql IMMUTABLE PARALLEL SAFE AS $$
BEGIN
  RETURN CASE
    WHEN id IS NULL THEN NULL
    WHEN actor ->> 'type' IS NULL THEN row_to_json(ROW(
      id, type, ca_timestamp_text(created_at),
      ca_json_compact(payload)::json)::ca_event_shape)::text
    ELSE row_to_json(ROW(
      id, type, ca_timestamp_text(created_at), ca_json_compact(payload)::json,
      ROW(actor ->> 'type', (actor ->> 'id')::bigint,
          actor ->> 'name')::ca_actor_shape)::ca_event_actor_shape)::text
  END;
END $$;

CREATE TYPE ca_api_key_shape AS (id bigint, name text, scopes text[], key_prefix text,
                                 created_by bigint, created_at text, last_used_at text);

CREATE OR REPLACE FUNCTION ca_api_key_json(tenant_id bigint, id bigint, name text,
                                           scopes text[], secret_head text, created_by bigint,
                                           created_at timestamptz, last_used_at timestamptz)
RETURNS text LANGUAGE plpgsql IMMUTABLE PARALLEL SAFE AS $$
BEGIN
  RETURN CASE WHEN id IS NOT NULL THEN row_to_json(ROW(
    id, name, scopes, ca_api_key_text(tenant_id, id, created_by, secret_head), created_by,
    ca_timestamp_text(created_at), ca_timestamp_text(last_used_at))::ca_api_key_shape)::text END;
END $$;

-- An entry of GET /audit-log: the actor and the target are objects.
CREATE TYPE ca_audit_target_shape AS (type text, id bigint);
CREATE TYPE ca_audit_shape AS (id bigint, action text, actor ca_actor_shape,
                               target ca_audit_target_shape, changed text[], request_id text,
                               created_at text);

CREATE OR REPLACE FUNCTION ca_audit_json(id bigint, action text, actor_type text,
                                         actor_id bigint, actor_name text, target_type text,
                                         target_id bigint, changed text[], request_id text,
                                         created_at timestamptz)
RETURNS text LANGUAGE plpgsql IMMUTABLE PARALLEL SAFE AS $$
BEGIN
  RETURN CASE WHEN id IS NOT NULL THEN row_to_json(ROW(
    id, action, ROW(actor_type, actor_id, actor_name)::ca_actor_shape,
    ROW(target_type, target_id)::ca_audit_target_shape, changed, request_id,
    ca_timestamp_text(created_at))::ca_audit_shape)::text END;
END $$;

SELECT ca_distribute_all();
