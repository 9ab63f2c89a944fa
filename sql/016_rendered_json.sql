-- The JSON of a product, and of an announcement as the active list shows it,
-- rendered by PostgreSQL when the row is written and stored with it.
--
-- A list read used to send every column as text and have the handler build
-- and print one cJSON object per row: for 15 products 135 members, for 40
-- announcements 600, half of the handler's time and more PostgreSQL time
-- (two timestamps and a numeric through their output functions per row)
-- than sending one finished text. Rows are read far more often than they
-- are written, so the work moves to the write: a generated column is
-- recomputed by every INSERT and UPDATE, however it comes (a handler, an
-- order's stock change, a category's ON DELETE SET NULL, the worker
-- publishing), so the stored JSON cannot fall behind its row.
--
-- The format is the API's (docs/openapi.yaml "Product", "ActiveAnnouncement"):
-- timestamps in UTC with microseconds and 'Z', the price as a JSON number
-- without trailing zeros (12.5), ids as numbers except the announcement's
-- tenant_id (a string), strings escaped by to_json() the way cJSON escapes
-- them. The handlers append what depends on the caller (is_read,
-- is_dismissed) and print the rest as it is.
--
-- PL/pgSQL and IMMUTABLE: a generated column needs an immutable expression.
-- to_char() and to_json() are only STABLE (they could depend on settings);
-- here they do not, since the time zone is given and the patterns have no
-- locale parts. A LANGUAGE sql function calling them could not be inlined
-- and would be planned again by every single-row write (10.5k against 51k
-- single-row updates/s without the column, measured); PL/pgSQL keeps its
-- plan for the session (34k/s with the edge values below handled by
-- ca_json_timestamp(), about 20 us more per written row).
--
-- Values only an operator's SQL can write are printed as the handler used
-- to print them: a NaN price as null (cJSON's NaN), a timestamp that is
-- infinite or outside years 1-9999 as PostgreSQL's text.
--
-- Changing a function below does not re-render stored rows: a migration
-- that changes the format must drop and re-add the column.

-- Adding the columns rewrites both tables under an exclusive lock: rather
-- fail (and be run again) than queue behind a long transaction while every
-- read of the tables queues behind the migration.
SET LOCAL lock_timeout = '10s';

-- A timestamp as a JSON string, or null.
CREATE FUNCTION ca_json_timestamp(t timestamptz)
RETURNS text LANGUAGE plpgsql IMMUTABLE PARALLEL SAFE AS $$
BEGIN
  RETURN CASE WHEN t IS NULL THEN 'null'
              WHEN t BETWEEN '0001-01-01 00:00:00+00' AND '9999-12-31 23:59:59.999999+00'
              THEN '"' || to_char(t AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"') || '"'
              ELSE '"' || t::text || '"' END;
END $$;

CREATE FUNCTION ca_product_json(id bigint, name text, description text, price numeric,
                                stock integer, category_id bigint, published boolean,
                                created_at timestamptz, updated_at timestamptz)
RETURNS text LANGUAGE plpgsql IMMUTABLE PARALLEL SAFE AS $$
BEGIN
  RETURN '{"id":' || id
    || ',"name":' || to_json(name)
    || ',"description":' || COALESCE(to_json(description)::text, 'null')
    || ',"price":' || CASE WHEN price = 'NaN' THEN 'null' ELSE trim_scale(price)::text END
    || ',"stock":' || stock
    || ',"category_id":' || COALESCE(category_id::text, 'null')
    || ',"published":' || CASE WHEN published THEN 'true' ELSE 'false' END
    || ',"created_at":' || ca_json_timestamp(created_at)
    || ',"updated_at":' || ca_json_timestamp(updated_at) || '}';
END $$;

ALTER TABLE products ADD COLUMN api_json text NOT NULL GENERATED ALWAYS AS (
  ca_product_json(id, name, description, price, stock, category_id, published, created_at,
                  updated_at)) STORED;

-- Without is_read and is_dismissed, which are the caller's.
CREATE FUNCTION ca_active_announcement_json(
  id bigint, tenant_id bigint, title text, summary text, content text, type text,
  priority smallint, status text, is_public boolean, expires_at timestamptz, topic text,
  attachment_type text, attachment_url text, attachment_metadata jsonb, created_at timestamptz)
RETURNS text LANGUAGE plpgsql IMMUTABLE PARALLEL SAFE AS $$
BEGIN
  RETURN '{"id":' || id
    || ',"tenant_id":"' || tenant_id
    || '","title":' || to_json(title)
    || ',"summary":' || to_json(summary)
    || ',"content":' || to_json(content)
    || ',"type":' || to_json(type)
    || ',"priority":' || priority
    || ',"status":' || to_json(status)
    || ',"is_public":' || CASE WHEN is_public THEN 'true' ELSE 'false' END
    || ',"expires_at":' || ca_json_timestamp(expires_at)
    || ',"topic":' || COALESCE(to_json(topic)::text, 'null')
    || ',"attachment_type":' || COALESCE(to_json(attachment_type)::text, 'null')
    || ',"attachment_url":' || COALESCE(to_json(attachment_url)::text, 'null')
    || ',"attachment_metadata":' || COALESCE(attachment_metadata::text, 'null')
    || ',"created_at":' || ca_json_timestamp(created_at) || '}';
END $$;

ALTER TABLE announcements ADD COLUMN active_json text NOT NULL GENERATED ALWAYS AS (
  ca_active_announcement_json(id, tenant_id, title, summary, content, type, priority, status,
                              is_public, expires_at, topic, attachment_type, attachment_url,
                              attachment_metadata, created_at)) STORED;
