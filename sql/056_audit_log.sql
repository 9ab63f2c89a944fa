-- The audit log (issue 40; docs/decisions/0110-audit-log-in-the-write.md):
-- who did what to a tenant's records, one row per successful write through
-- the API, inserted by the write's own statement or pipeline
-- (common/audit.h), so it commits or rolls back with the write.
--
-- The actor is stored as it was at write time: its type (`user` or
-- `api_key`), id and name; renaming the user or the key later leaves the
-- entry as it was (decision 0111). `changed` lists the names of the fields
-- an update changed (NULL for actions that are not updates). `request_id`
-- is the X-Request-Id of the response that made it. There is no foreign key
-- to tenants: a password reset, which belongs to no tenant, is kept with
-- tenant_id 0 (as its mails are, sql/041), and nothing reads that tenant
-- through the API. Tenant data, distributed by tenant_id on Citus.
--
-- Nothing updates or deletes a row but the worker's retention
-- (AUDIT_RETENTION_DAYS, handlers/worker/retention_tasks.cc).

SET LOCAL lock_timeout = '10s';
-- Citus: the table's shards created one connection per worker, so that the
-- statements after it may run in the same transaction.
SET LOCAL citus.multi_shard_modify_mode = 'sequential';

CREATE TABLE audit_log (
  tenant_id    bigint NOT NULL,
  id           bigserial,
  action       text NOT NULL CHECK (char_length(action) BETWEEN 1 AND 64),
  actor_type   text NOT NULL CHECK (actor_type IN ('user', 'api_key')),
  actor_id     bigint NOT NULL,
  actor_name   text NOT NULL,
  target_type  text NOT NULL CHECK (char_length(target_type) BETWEEN 1 AND 64),
  target_id    bigint NOT NULL,
  changed      text[],
  request_id   text NOT NULL CHECK (char_length(request_id) BETWEEN 1 AND 64),
  created_at   timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (tenant_id, id)
);

-- GET /audit-log (handlers/tenants/audit_log.cc): newest first, every
-- filter's rows read off an index in that order. Unfiltered (and since,
-- until): the first. By actor, by target, by action: one each, equality
-- columns first.
CREATE INDEX audit_log_tenant_created_idx ON audit_log (tenant_id, created_at DESC, id DESC);
CREATE INDEX audit_log_actor_idx
  ON audit_log (tenant_id, actor_type, actor_id, created_at DESC, id DESC);
CREATE INDEX audit_log_target_idx
  ON audit_log (tenant_id, target_type, target_id, created_at DESC, id DESC);
CREATE INDEX audit_log_action_idx ON audit_log (tenant_id, action, created_at DESC, id DESC);
-- Retention: rows by age, over every tenant.
CREATE INDEX audit_log_created_idx ON audit_log (created_at);

-- The names in `fields` whose values differ between two renderings of a
-- record (its JSON before and after an update, as the API shows it), in the
-- order of `fields`: an audit entry's `changed`. Empty when none differ.
-- PL/pgSQL, as the shape functions: never inlined into a statement Citus
-- sends to a shard (sql/033).
CREATE FUNCTION ca_changed(before jsonb, after jsonb, fields text[]) RETURNS text[]
LANGUAGE plpgsql IMMUTABLE PARALLEL SAFE AS $$
BEGIN
  RETURN ARRAY(SELECT f FROM unnest(fields) WITH ORDINALITY AS t (f, n)
               WHERE before -> f IS DISTINCT FROM after -> f ORDER BY n);
END
$$;

-- An actor as the audit log and the events show it: `{type, id, name}`,
-- in that order.
CREATE FUNCTION ca_actor_json(type text, id bigint, name text)
RETURNS text LANGUAGE plpgsql IMMUTABLE PARALLEL SAFE AS $$
BEGIN
  RETURN '{"type":' || to_json(type) || ',"id":' || id || ',"name":' || to_json(name) || '}';
END $$;

-- An entry of GET /audit-log (docs/openapi.yaml "AuditEntry").
CREATE FUNCTION ca_audit_json(id bigint, action text, actor_type text, actor_id bigint,
                              actor_name text, target_type text, target_id bigint,
                              changed text[], request_id text, created_at timestamptz)
RETURNS text LANGUAGE plpgsql IMMUTABLE PARALLEL SAFE AS $$
BEGIN
  RETURN '{"id":' || id
    || ',"action":' || to_json(action)
    || ',"actor":' || ca_actor_json(actor_type, actor_id, actor_name)
    || ',"target":{"type":' || to_json(target_type) || ',"id":' || target_id || '}'
    || ',"changed":' || COALESCE(to_json(changed)::text, 'null')
    || ',"request_id":' || to_json(request_id)
    || ',"created_at":' || ca_json_timestamp(created_at) || '}';
END $$;

SELECT ca_distribute('audit_log', 'tenant');
SELECT ca_distribute_all();
