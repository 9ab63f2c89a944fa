-- The 16384-byte limit of tenant settings counted on compact JSON, as the API
-- documents it. The check of sql/001 measured PostgreSQL's jsonb text, which
-- puts a space after every ':' and ',': settings of 1,500 small keys (15,001
-- bytes compact) measured 18,000 and were refused.
--
-- Numbers count as PostgreSQL stores them: a number sent as 1e300 is kept as
-- a numeric and written out in full (301 digits).

-- Refuse to wait long for the table lock (tenant writes queue behind it).
SET LOCAL lock_timeout = '10s';

-- The length in bytes of `j` as compact JSON: strings and keys escaped as in
-- the jsonb text (the escapes cJSON writes too), no spaces between tokens.
CREATE FUNCTION ca_json_compact_size(j jsonb) RETURNS bigint
LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE
AS $$
  SELECT CASE jsonb_typeof(j)
    -- '{' then each member followed by ',' or the closing '}'.
    WHEN 'object' THEN 1 + COALESCE(
      (SELECT sum(octet_length(to_jsonb(e.key)::text) + 1 + ca_json_compact_size(e.value) + 1)
       FROM jsonb_each(j) e), 1)
    WHEN 'array' THEN 1 + COALESCE(
      (SELECT sum(ca_json_compact_size(e.value) + 1) FROM jsonb_array_elements(j) e), 1)
    ELSE octet_length(j::text)
  END
$$;

ALTER TABLE tenants DROP CONSTRAINT tenants_settings_check1;
ALTER TABLE tenants ADD CONSTRAINT tenants_settings_size
  CHECK (ca_json_compact_size(settings) <= 16384);
