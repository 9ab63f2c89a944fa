-- Foundation: users, tenants, memberships, sessions, the event outbox and
-- webhook subscriptions and deliveries. Tenant-owned tables are keyed
-- (tenant_id, id) and referenced by composite foreign keys, so a row of one
-- tenant can never point at a row of another (docs/design/api-conventions.md, "Tenancy").

-- Timestamps leave the database in one format: UTC, microseconds, 'Z'.
CREATE FUNCTION ca_ts(t timestamptz) RETURNS text
LANGUAGE sql IMMUTABLE PARALLEL SAFE
RETURN to_char(t AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"');

CREATE TABLE tenants (
  id          bigserial PRIMARY KEY,
  name        text NOT NULL CHECK (char_length(name) BETWEEN 1 AND 255),
  settings    jsonb NOT NULL DEFAULT '{}' CHECK (jsonb_typeof(settings) = 'object')
                    CHECK (octet_length(settings::text) <= 16384),
  created_at  timestamptz NOT NULL DEFAULT now(),
  updated_at  timestamptz NOT NULL DEFAULT now()
);

CREATE TABLE users (
  id                 bigserial PRIMARY KEY,
  tenant_id          bigint REFERENCES tenants (id) ON DELETE SET NULL,
  name               text NOT NULL CHECK (char_length(name) BETWEEN 1 AND 255),
  email              text NOT NULL CHECK (char_length(email) BETWEEN 3 AND 254),
  password_hash      text NOT NULL,
  phone              text,
  country_code       text,
  email_verified_at  timestamptz,
  phone_verified_at  timestamptz,
  user_type          text NOT NULL DEFAULT 'CONSUMER',
  photo_url          text,
  theme              text NOT NULL DEFAULT 'system',
  language           text NOT NULL DEFAULT 'en',
  timezone           text,
  email_marketing    boolean NOT NULL DEFAULT false,
  email_system       boolean NOT NULL DEFAULT true,
  push_system        boolean NOT NULL DEFAULT true,
  is_active          boolean NOT NULL DEFAULT true,
  created_at         timestamptz NOT NULL DEFAULT now(),
  updated_at         timestamptz NOT NULL DEFAULT now()
);
-- Emails are unique regardless of case; login looks them up this way.
CREATE UNIQUE INDEX users_email_key ON users (lower(email));

CREATE TABLE memberships (
  tenant_id   bigint NOT NULL REFERENCES tenants (id) ON DELETE CASCADE,
  user_id     bigint NOT NULL REFERENCES users (id) ON DELETE CASCADE,
  role        text NOT NULL CHECK (role IN ('ADMIN', 'MEMBER')),
  created_at  timestamptz NOT NULL DEFAULT now(),
  updated_at  timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (tenant_id, user_id)
);
-- "my tenants" and the members list ordered by join time.
CREATE INDEX memberships_user_idx ON memberships (user_id, tenant_id);
CREATE INDEX memberships_joined_idx ON memberships (tenant_id, created_at, user_id);

-- One row per login; the token's jti. Logout sets revoked_at.
CREATE TABLE sessions (
  id          uuid PRIMARY KEY,
  user_id     bigint NOT NULL REFERENCES users (id) ON DELETE CASCADE,
  created_at  timestamptz NOT NULL DEFAULT now(),
  expires_at  timestamptz NOT NULL,
  revoked_at  timestamptz
);
CREATE INDEX sessions_expiry_idx ON sessions (expires_at);

-- The transactional outbox (docs/design/events.md).
CREATE TABLE events (
  tenant_id   bigint NOT NULL REFERENCES tenants (id) ON DELETE CASCADE,
  id          bigserial,
  type        text NOT NULL,
  payload     jsonb NOT NULL,
  created_at  timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (tenant_id, id)
);

CREATE TABLE webhooks (
  tenant_id    bigint NOT NULL REFERENCES tenants (id) ON DELETE CASCADE,
  id           bigserial,
  url          text NOT NULL,
  events       jsonb NOT NULL CHECK (jsonb_typeof(events) = 'array'),
  secret       text NOT NULL,
  description  text,
  -- Deletion is permanent for the API: the row leaves every read, but stays
  -- so that its delivery records keep their subscription.
  is_active    boolean NOT NULL DEFAULT true,
  deleted_at   timestamptz,
  created_at   timestamptz NOT NULL DEFAULT now(),
  updated_at   timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (tenant_id, id)
);
CREATE INDEX webhooks_active_idx ON webhooks (tenant_id) WHERE is_active;

CREATE TABLE webhook_deliveries (
  tenant_id        bigint NOT NULL,
  id               bigserial,
  webhook_id       bigint NOT NULL,
  event_id         bigint NOT NULL,
  event            text NOT NULL,
  url              text NOT NULL,
  status           text NOT NULL DEFAULT 'pending'
                   CHECK (status IN ('pending', 'delivered', 'failed')),
  attempts         integer NOT NULL DEFAULT 0,
  next_attempt_at  timestamptz NOT NULL DEFAULT now(),
  last_attempt_at  timestamptz,
  lease_until      timestamptz,
  response_status  integer,
  error            text,
  created_at       timestamptz NOT NULL DEFAULT now(),
  delivered_at     timestamptz,
  PRIMARY KEY (tenant_id, id),
  FOREIGN KEY (tenant_id, webhook_id) REFERENCES webhooks (tenant_id, id) ON DELETE CASCADE,
  FOREIGN KEY (tenant_id, event_id) REFERENCES events (tenant_id, id) ON DELETE CASCADE
);
-- The worker's claim query: due pending rows, oldest first.
CREATE INDEX webhook_deliveries_due_idx ON webhook_deliveries (next_attempt_at)
  WHERE status = 'pending';
CREATE INDEX webhook_deliveries_list_idx ON webhook_deliveries (tenant_id, id DESC);
CREATE INDEX webhook_deliveries_webhook_idx ON webhook_deliveries (tenant_id, webhook_id, id DESC);
