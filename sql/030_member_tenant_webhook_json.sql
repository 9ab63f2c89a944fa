-- The shapes of tenants, members, invitations, users and webhooks, rendered
-- by PostgreSQL like every other resource (sql/025,
-- docs/decisions/0322-every-resource-rendered-by-postgresql.md; the rules at
-- the top of sql/025 apply). The handlers print the text as it is.

-- A number as cJSON printed it, for the JSON documents the API stores and
-- shows again (tenant settings, webhook event lists): the handlers wrote them
-- with cJSON, and read them back through it, so a stored 1e+300 (kept by
-- jsonb as a numeric, written out in full) comes back as 1e+300. cJSON
-- prints an integer of the int range as such, other numbers with %1.15g
-- (%1.17g when 15 digits do not keep the value, which is what a stored
-- number with 16 or 17 significant digits came from): the exponent form
-- when the exponent is below -4 or at least that precision. A number only
-- an operator's SQL could store (beyond a double's range or digits) is
-- printed as cJSON would have printed the double it reads as, nearly enough.
CREATE FUNCTION ca_json_number(n numeric)
RETURNS text LANGUAGE plpgsql IMMUTABLE PARALLEL SAFE AS $$
DECLARE
  a numeric := abs(n);
  t text;       -- a's digits as numeric prints them (never an exponent)
  digits text;  -- the significant ones, trailing zeros left out
  x integer;    -- the decimal exponent of the first significant digit
  p integer;    -- the precision cJSON printed it with
  r numeric;    -- a to 15 digits
  same boolean;
BEGIN
  IF n = trunc(n) AND n BETWEEN -2147483648 AND 2147483647 THEN RETURN trunc(n)::text; END IF;
  IF a > 1.7976931348623157e308 THEN RETURN 'null'; END IF;  -- infinity to cJSON
  IF a < 2.4703282292062328e-324 THEN RETURN '0'; END IF;    -- zero to cJSON
  FOR pass IN 1..2 LOOP
    t := trim_scale(a)::text;
    IF a >= 1 THEN
      x := length(split_part(t, '.', 1)) - 1;
    ELSE
      x := -(length(split_part(t, '.', 2)) - length(ltrim(split_part(t, '.', 2), '0')) + 1);
    END IF;
    digits := rtrim(ltrim(replace(t, '.', ''), '0'), '0');
    EXIT WHEN length(digits) <= 15 OR pass = 2;
    -- cJSON's test: do 15 digits read back as the same double, give or
    -- take an epsilon? Otherwise 17.
    r := round(a, 14 - x);
    same := r <= 1.7976931348623157e308;
    IF same THEN
      same := abs(r::float8 - a::float8) <= greatest(r::float8, a::float8) * 2.220446049250313e-16;
    END IF;
    IF same THEN
      a := r;
    ELSIF length(digits) > 17 THEN
      a := round(a, 16 - x);
    ELSE
      EXIT;
    END IF;
  END LOOP;
  p := CASE WHEN length(digits) <= 15 THEN 15 ELSE 17 END;
  IF x < -4 OR x >= p THEN
    RETURN CASE WHEN n < 0 THEN '-' ELSE '' END || left(digits, 1)
      || CASE WHEN length(digits) > 1 THEN '.' || substr(digits, 2) ELSE '' END
      || 'e' || CASE WHEN x < 0 THEN '-' ELSE '+' END
      || CASE WHEN abs(x) < 10 THEN '0' ELSE '' END || abs(x);
  END IF;
  RETURN CASE WHEN n < 0 THEN '-' ELSE '' END || t;
END $$;

-- A stored JSON document as compact JSON: members in jsonb's order, strings
-- escaped as to_json() (and cJSON) escape them, numbers by ca_json_number().
CREATE FUNCTION ca_json_compact(j jsonb)
RETURNS text LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE AS $$
  SELECT CASE jsonb_typeof(j)
    WHEN 'object' THEN '{' || COALESCE(
      (SELECT string_agg(to_json(e.key)::text || ':' || ca_json_compact(e.value), ','
                         ORDER BY e.n)
       FROM jsonb_each(j) WITH ORDINALITY e (key, value, n)), '') || '}'
    WHEN 'array' THEN '[' || COALESCE(
      (SELECT string_agg(ca_json_compact(e.value), ',' ORDER BY e.n)
       FROM jsonb_array_elements(j) WITH ORDINALITY e (value, n)), '') || ']'
    WHEN 'number' THEN ca_json_number(j::text::numeric)
    ELSE j::text
  END
$$;

-- docs/design/api-conventions.md "Tenants": the Tenant, with the caller's `role` last when it is
-- given (the list of the caller's tenants), without it when NULL.
CREATE FUNCTION ca_tenant_json(id bigint, name text, settings jsonb, created_at timestamptz,
                               updated_at timestamptz, role text)
RETURNS text LANGUAGE plpgsql IMMUTABLE PARALLEL SAFE AS $$
BEGIN
  RETURN '{"id":' || id
    || ',"name":' || to_json(name)
    || ',"settings":' || COALESCE(ca_json_compact(settings), '{}')
    || ',"created_at":' || ca_json_timestamp(created_at)
    || ',"updated_at":' || ca_json_timestamp(updated_at)
    || CASE WHEN role IS NULL THEN '' ELSE ',"role":' || to_json(role) END || '}';
END $$;

-- The member record (docs/design/api-conventions.md "Team members"): role
-- update, accept, and
-- the member.* events' data.
CREATE FUNCTION ca_member_json(tenant_id bigint, user_id bigint, role text, name text,
                               email text)
RETURNS text LANGUAGE plpgsql IMMUTABLE PARALLEL SAFE AS $$
BEGIN
  RETURN '{"tenant_id":' || tenant_id
    || ',"user_id":' || user_id
    || ',"role":' || to_json(role)
    || ',"name":' || to_json(name)
    || ',"email":' || to_json(email) || '}';
END $$;

-- A member as GET /team-members/{tenantId} lists it.
CREATE FUNCTION ca_member_item_json(user_id bigint, name text, email text, role text,
                                    joined_at timestamptz)
RETURNS text LANGUAGE plpgsql IMMUTABLE PARALLEL SAFE AS $$
BEGIN
  RETURN '{"user_id":' || user_id
    || ',"name":' || to_json(name)
    || ',"email":' || to_json(email)
    || ',"role":' || to_json(role)
    || ',"joined_at":' || ca_json_timestamp(joined_at) || '}';
END $$;

-- The user.registered event's data (README "Events").
CREATE FUNCTION ca_user_registered_json(user_id bigint, name text, email text, role text,
                                        invited_by bigint)
RETURNS text LANGUAGE plpgsql IMMUTABLE PARALLEL SAFE AS $$
BEGIN
  RETURN '{"user_id":' || user_id
    || ',"name":' || to_json(name)
    || ',"email":' || to_json(email)
    || ',"role":' || to_json(role)
    || ',"invited_by":' || invited_by || '}';
END $$;

-- An invitation. `status` is given by the statement: reads show a pending
-- one past its expiry as "expired" (ca_invitation_status), RETURNING clauses
-- the stored status (Citus refuses now() there), which is what a row just
-- written has.
CREATE FUNCTION ca_invitation_json(id bigint, email text, role text, status text,
                                   expires_at timestamptz, created_at timestamptz)
RETURNS text LANGUAGE plpgsql IMMUTABLE PARALLEL SAFE AS $$
BEGIN
  RETURN '{"id":' || id
    || ',"email":' || to_json(email)
    || ',"role":' || to_json(role)
    || ',"status":' || to_json(status)
    || ',"expires_at":' || ca_json_timestamp(expires_at)
    || ',"created_at":' || ca_json_timestamp(created_at) || '}';
END $$;

-- docs/openapi.yaml "User" (as returned by login): the preference flags as "1" / "0".
CREATE FUNCTION ca_user_json(
  id bigint, tenant_id bigint, name text, email text, phone text, country_code text,
  email_verified_at timestamptz, phone_verified_at timestamptz, user_type text, photo_url text,
  theme text, language text, timezone text, email_marketing boolean, email_system boolean,
  push_system boolean, is_active boolean, created_at timestamptz, updated_at timestamptz)
RETURNS text LANGUAGE plpgsql IMMUTABLE PARALLEL SAFE AS $$
BEGIN
  RETURN '{"id":' || id
    || ',"tenant_id":' || COALESCE(tenant_id::text, 'null')
    || ',"name":' || to_json(name)
    || ',"email":' || to_json(email)
    || ',"phone":' || COALESCE(to_json(phone)::text, 'null')
    || ',"country_code":' || COALESCE(to_json(country_code)::text, 'null')
    || ',"email_verified_at":' || ca_json_timestamp(email_verified_at)
    || ',"phone_verified_at":' || ca_json_timestamp(phone_verified_at)
    || ',"user_type":' || to_json(user_type)
    || ',"photo_url":' || COALESCE(to_json(photo_url)::text, 'null')
    || ',"theme":' || to_json(theme)
    || ',"language":' || to_json(language)
    || ',"timezone":' || COALESCE(to_json(timezone)::text, 'null')
    || ',"email_marketing":' || CASE WHEN email_marketing THEN '"1"' ELSE '"0"' END
    || ',"email_system":' || CASE WHEN email_system THEN '"1"' ELSE '"0"' END
    || ',"push_system":' || CASE WHEN push_system THEN '"1"' ELSE '"0"' END
    || ',"is_active":' || CASE WHEN is_active THEN '"1"' ELSE '"0"' END
    || ',"created_at":' || ca_json_timestamp(created_at)
    || ',"updated_at":' || ca_json_timestamp(updated_at) || '}';
END $$;

-- A webhook subscription (docs/design/api-conventions.md "Webhooks"), without its
-- secret: the
-- create answer appends it, the only place it is ever shown.
CREATE FUNCTION ca_webhook_json(id bigint, url text, events jsonb, description text,
                                is_active boolean, created_at timestamptz)
RETURNS text LANGUAGE plpgsql IMMUTABLE PARALLEL SAFE AS $$
BEGIN
  RETURN '{"id":' || id
    || ',"url":' || to_json(url)
    || ',"events":' || COALESCE(ca_json_compact(events), '[]')
    || ',"description":' || COALESCE(to_json(description)::text, 'null')
    || ',"is_active":' || CASE WHEN is_active THEN 'true' ELSE 'false' END
    || ',"created_at":' || ca_json_timestamp(created_at) || '}';
END $$;

-- A delivery record (docs/design/events.md). `message_id` is the webhook-id header the
-- worker sends (common/webhook_signature.h, webhook_message_id(): the same
-- format); `next_attempt_at` is given by the statement (null unless pending).
CREATE FUNCTION ca_delivery_json(
  tenant_id bigint, id bigint, webhook_id bigint, event_id bigint, event text, url text,
  status text, attempts integer, next_attempt_at timestamptz, last_attempt_at timestamptz,
  response_status integer, error text, created_at timestamptz, delivered_at timestamptz)
RETURNS text LANGUAGE plpgsql IMMUTABLE PARALLEL SAFE AS $$
BEGIN
  RETURN '{"id":' || id
    || ',"webhook_id":' || webhook_id
    || ',"event_id":' || event_id
    || ',"message_id":"msg_' || tenant_id || '_' || id
    || '","event":' || to_json(event)
    || ',"url":' || to_json(url)
    || ',"status":' || to_json(status)
    || ',"attempts":' || attempts
    || ',"next_attempt_at":' || ca_json_timestamp(next_attempt_at)
    || ',"last_attempt_at":' || ca_json_timestamp(last_attempt_at)
    || ',"response_status":' || COALESCE(response_status::text, 'null')
    || ',"error":' || COALESCE(to_json(error)::text, 'null')
    || ',"created_at":' || ca_json_timestamp(created_at)
    || ',"delivered_at":' || ca_json_timestamp(delivered_at) || '}';
END $$;
