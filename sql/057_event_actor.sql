-- Events of writes made with an API key name the key (issue 40;
-- docs/decisions/0113-event-actor-for-keys.md): `actor` is `{type, id,
-- name}`, the same as the audit log's actor of that write (sql/056), and
-- NULL for a write made with a session and for the worker's own events.
-- The feed and the webhook bodies show it beside `data` when it is set.

SET LOCAL lock_timeout = '10s';
SET LOCAL citus.multi_shard_modify_mode = 'sequential';

-- One EXECUTE per command: Citus sends a DDL command's own query text to
-- the workers (sql/045).
DO $$
BEGIN
  EXECUTE 'ALTER TABLE events ADD COLUMN actor jsonb';
END
$$;

-- An event's stored actor (NULL: none) as ca_actor_json() (sql/056) shows it.
CREATE FUNCTION ca_event_actor_json(actor jsonb)
RETURNS text LANGUAGE plpgsql IMMUTABLE PARALLEL SAFE AS $$
BEGIN
  IF actor IS NULL THEN
    RETURN NULL;
  END IF;
  RETURN ca_actor_json(actor ->> 'type', (actor ->> 'id')::bigint, actor ->> 'name');
END $$;

-- The feed's event (sql/045) with `actor` after `data` when there is one.
CREATE FUNCTION ca_event_json(id bigint, type text, created_at timestamptz, payload jsonb,
                              actor jsonb)
RETURNS text LANGUAGE plpgsql IMMUTABLE PARALLEL SAFE AS $$
BEGIN
  RETURN left(ca_event_json(id, type, created_at, payload), -1)
    || COALESCE(',"actor":' || ca_event_actor_json(actor), '') || '}';
END $$;

SELECT ca_distribute_all();
