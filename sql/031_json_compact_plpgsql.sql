-- ca_json_compact (sql/030) in PL/pgSQL: the same text, about 20 times
-- cheaper. As a recursive LANGUAGE sql function it could not be inlined and
-- was planned again on every call, about 1.2 ms for a tenant's small
-- settings object: GET /tenants of an admin of 300 tenants took 350 ms.
-- PL/pgSQL keeps its plans for the session (docs/performance.md, "Rendered
-- JSON"). Members in jsonb's own order, as jsonb_each gives them.
CREATE OR REPLACE FUNCTION ca_json_compact(j jsonb)
RETURNS text LANGUAGE plpgsql IMMUTABLE STRICT PARALLEL SAFE AS $$
DECLARE
  out text;
  k text;
  v jsonb;
BEGIN
  IF j = '{}'::jsonb OR j = '[]'::jsonb THEN RETURN j::text; END IF;  -- most settings
  CASE jsonb_typeof(j)
    WHEN 'object' THEN
      out := '';
      FOR k, v IN SELECT e.key, e.value FROM jsonb_each(j) e LOOP
        out := out || ',' || to_json(k)::text || ':' || ca_json_compact(v);
      END LOOP;
      RETURN '{' || substr(out, 2) || '}';
    WHEN 'array' THEN
      out := '';
      FOR v IN SELECT e.value FROM jsonb_array_elements(j) e LOOP
        out := out || ',' || ca_json_compact(v);
      END LOOP;
      RETURN '[' || substr(out, 2) || ']';
    WHEN 'number' THEN
      RETURN ca_json_number(j::text::numeric);
    ELSE
      RETURN j::text;
  END CASE;
END $$;
