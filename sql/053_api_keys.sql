-- API keys (issue 40; docs/decisions/0105-api-key-format.md to 0109): keys
-- a tenant's ADMIN creates for machines, with scopes, revoked on their own.
--
-- A key is `cak_<tenant_id>_<id>_<created_by>_<secret>` (ca_api_key_text()),
-- the secret 64 random hex digits of which only the BLAKE2b-256 hash is kept
-- (key_hash) and the first six digits (secret_head) for the key_prefix that
-- lists show. The check of a request (common/auth.cc, auth_api_key) finds
-- the key by its primary key, the tenant and the id it names, and compares
-- the rest. Tenant data: distributed by tenant_id on Citus, colocated with
-- the tenant's other tables, so every key check is a router query to the
-- tenant's shard (ca_distribute_all() below places it as 'tenant').
--
-- A revoked key keeps its row (revoked_at): the audit log and the key's
-- history may name it; it counts no more against API_KEYS_MAX_PER_TENANT.

SET LOCAL lock_timeout = '10s';
-- Citus: the table's shards created one connection per worker, so that the
-- statements after it may run in the same transaction.
SET LOCAL citus.multi_shard_modify_mode = 'sequential';

CREATE TABLE api_keys (
  tenant_id     bigint NOT NULL REFERENCES tenants (id) ON DELETE CASCADE,
  id            bigserial,
  name          text NOT NULL CHECK (char_length(name) BETWEEN 1 AND 255),
  scopes        text[] NOT NULL CHECK (cardinality(scopes) BETWEEN 1 AND 12),
  key_hash      bytea NOT NULL CHECK (octet_length(key_hash) = 32),
  secret_head   text NOT NULL CHECK (char_length(secret_head) = 6),
  created_by    bigint NOT NULL REFERENCES users (id),
  created_at    timestamptz NOT NULL DEFAULT now(),
  -- Stamped by the key check at most once a minute (auth_api_key).
  last_used_at  timestamptz,
  revoked_at    timestamptz,
  PRIMARY KEY (tenant_id, id)
);
-- The list and the cap's count: a tenant's live keys.
CREATE INDEX api_keys_live_idx ON api_keys (tenant_id, id) WHERE revoked_at IS NULL;

-- The key's text for its parts (common/api_key.h's api_key_format() writes
-- the same); with the first digits of the secret only, the key_prefix that
-- names it in lists.
CREATE FUNCTION ca_api_key_text(tenant_id bigint, id bigint, created_by bigint, secret text)
RETURNS text LANGUAGE plpgsql IMMUTABLE PARALLEL SAFE AS $$
BEGIN
  RETURN 'cak_' || tenant_id || '_' || id || '_' || created_by || '_' || secret;
END $$;

-- docs/openapi.yaml "ApiKey" (sql/025's rules). The create's answer adds
-- `key` to it (handlers/tenants/api_keys.cc): the secret is never sent to
-- the database, so it cannot end up in a statement log.
CREATE FUNCTION ca_api_key_json(tenant_id bigint, id bigint, name text, scopes text[],
                                secret_head text, created_by bigint, created_at timestamptz,
                                last_used_at timestamptz)
RETURNS text LANGUAGE plpgsql IMMUTABLE PARALLEL SAFE AS $$
BEGIN
  RETURN '{"id":' || id
    || ',"name":' || to_json(name)
    || ',"scopes":' || array_to_json(scopes)
    || ',"key_prefix":' || to_json(ca_api_key_text(tenant_id, id, created_by, secret_head))
    || ',"created_by":' || created_by
    || ',"created_at":' || ca_json_timestamp(created_at)
    || ',"last_used_at":' || ca_json_timestamp(last_used_at) || '}';
END $$;

SELECT ca_distribute_all();
