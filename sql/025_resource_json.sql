-- One way rows become JSON: PostgreSQL renders every resource shape, one
-- function per shape (docs/decisions/0320-one-json-renderer-in-postgresql.md).
-- The handlers print the text as it is and build only the envelopes (data,
-- meta, success, message) around it, in common/ (common/json_rendered.h).
--
-- sql/016 began it for the two shapes read most (ca_product_json, stored in
-- products.api_json; ca_active_announcement_json, stored in
-- announcements.active_json). This adds the others of the catalogue and the
-- announcements. They are called in the statements that read or write the
-- rows (not stored): those reads are rare enough that storing the text
-- would cost every write for nothing.
--
-- Rules every shape function follows (those of sql/016):
--  - arguments are columns, never a whole row: on Citus the shard tables
--    have other row type names;
--  - PL/pgSQL, IMMUTABLE: a generated column can use any of them (to_char
--    and to_json are only STABLE but depend on no setting here, the time
--    zone being given), and PL/pgSQL keeps its plan per session;
--  - timestamps through ca_json_timestamp(), strings through to_json()
--    (which escapes as cJSON did), a NULL as null;
--  - member order is fixed here, and the integration tests pin the bytes.
-- To change a shape, replace its function in a new migration (and, for a
-- stored one, drop and re-add its column).

-- docs/openapi.yaml "Category".
CREATE FUNCTION ca_category_json(id bigint, tenant_id bigint, name text, description text,
                                 is_published boolean, created_at timestamptz,
                                 updated_at timestamptz)
RETURNS text LANGUAGE plpgsql IMMUTABLE PARALLEL SAFE AS $$
BEGIN
  RETURN '{"id":' || id
    || ',"tenant_id":' || tenant_id
    || ',"name":' || to_json(name)
    || ',"description":' || COALESCE(to_json(description)::text, 'null')
    || ',"is_published":' || CASE WHEN is_published THEN 'true' ELSE 'false' END
    || ',"created_at":' || ca_json_timestamp(created_at)
    || ',"updated_at":' || ca_json_timestamp(updated_at) || '}';
END $$;

-- docs/openapi.yaml "Announcement", every field (create, read, update, the
-- announcement.published event) when `all_fields`; the paginated list's shape
-- without push_title, push_body, push_data, target_type, target_value,
-- push_error and attachment_metadata otherwise. tenant_id is a string
-- (docs/openapi.yaml), the creator's name and email come from users.
CREATE FUNCTION ca_announcement_json(
  all_fields boolean, id bigint, tenant_id bigint, title text, summary text, content text, type text,
  priority smallint, status text, is_push_enabled boolean, is_public boolean,
  scheduled_at timestamptz, expires_at timestamptz, topic text, push_title text, push_body text,
  push_data jsonb, target_type text, target_value text, push_status text, push_error text,
  sent_at timestamptz, attachment_type text, attachment_url text, attachment_metadata jsonb,
  created_by bigint, creator_name text, creator_email text, created_at timestamptz,
  updated_at timestamptz)
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
    || ',"is_push_enabled":' || CASE WHEN is_push_enabled THEN 'true' ELSE 'false' END
    || ',"is_public":' || CASE WHEN is_public THEN 'true' ELSE 'false' END
    || ',"scheduled_at":' || ca_json_timestamp(scheduled_at)
    || ',"expires_at":' || ca_json_timestamp(expires_at)
    || ',"topic":' || COALESCE(to_json(topic)::text, 'null')
    || CASE WHEN all_fields THEN
         ',"push_title":' || COALESCE(to_json(push_title)::text, 'null')
         || ',"push_body":' || COALESCE(to_json(push_body)::text, 'null')
         || ',"push_data":' || COALESCE(push_data::text, 'null')
         || ',"target_type":' || to_json(target_type)
         || ',"target_value":' || COALESCE(to_json(target_value)::text, 'null')
       ELSE '' END
    || ',"push_status":' || to_json(push_status)
    || CASE WHEN all_fields THEN ',"push_error":' || COALESCE(to_json(push_error)::text, 'null')
       ELSE '' END
    || ',"sent_at":' || ca_json_timestamp(sent_at)
    || ',"attachment_type":' || COALESCE(to_json(attachment_type)::text, 'null')
    || ',"attachment_url":' || COALESCE(to_json(attachment_url)::text, 'null')
    || CASE WHEN all_fields THEN
         ',"attachment_metadata":' || COALESCE(attachment_metadata::text, 'null')
       ELSE '' END
    || ',"created_by":' || created_by
    || ',"creator":{"id":' || created_by
    || ',"name":' || to_json(creator_name)
    || ',"email":' || to_json(creator_email)
    || '},"created_at":' || ca_json_timestamp(created_at)
    || ',"updated_at":' || ca_json_timestamp(updated_at) || '}';
END $$;
