-- Outgoing mail (issue 37; docs/decisions/0097-mail-outbox.md): invitations
-- by mail, password reset.
--
-- `mails` is an outbox like `events`: a row is written in the same
-- transaction as the change that causes it, and commerce-admin-worker sends
-- it over SMTP (handlers/worker/mail_tasks.cc), at least once, claiming rows
-- tenant by tenant with FOR UPDATE SKIP LOCKED and a lease, as it claims
-- webhook deliveries. Tenant data, distributed by tenant_id on Citus; mails
-- that belong to no tenant (password reset, password changed) have
-- tenant_id 0, so they take their turn as one more tenant (there is no
-- tenant 0, hence no foreign key to tenants).
--
-- `data` holds what the worker renders the message from (the tenant's
-- name, the inviter, the role, the token). The token is there in clear only
-- while the mail is pending: the worker removes it from `data` when it
-- records the mail sent, failed or skipped. The invitation and the reset
-- keep only SHA-256 of it.
--
-- Statuses: pending (to send, or being sent while lease_until is in the
-- future), sent, failed (MAIL_MAX_ATTEMPTS attempts failed), skipped (not
-- sent on purpose: a password reset for an email without an active
-- account, or a recipient over MAIL_MAX_PER_ADDRESS_PER_HOUR).

SET LOCAL lock_timeout = '10s';
-- Citus: the table's shards created one connection per worker, so that the
-- statements after it may run in the same transaction.
SET LOCAL citus.multi_shard_modify_mode = 'sequential';

CREATE TABLE mails (
  tenant_id        bigint NOT NULL,
  id               bigserial,
  kind             text NOT NULL CHECK (kind IN ('invitation', 'joined_existing_account',
                                                 'password_reset', 'password_changed')),
  recipient        text NOT NULL CHECK (char_length(recipient) BETWEEN 3 AND 254),
  data             jsonb NOT NULL DEFAULT '{}',
  status           text NOT NULL DEFAULT 'pending'
                   CHECK (status IN ('pending', 'sent', 'failed', 'skipped')),
  attempts         integer NOT NULL DEFAULT 0,
  next_attempt_at  timestamptz NOT NULL DEFAULT now(),
  lease_until      timestamptz,
  last_attempt_at  timestamptz,
  error            text,
  created_at       timestamptz NOT NULL DEFAULT now(),
  sent_at          timestamptz,
  PRIMARY KEY (tenant_id, id)
);

-- The claim: a tenant's due rows, oldest first (and the tenants that have one).
CREATE INDEX mails_due_idx ON mails (tenant_id, next_attempt_at, id) WHERE status = 'pending';
-- Attempts whose worker stopped: the leased rows are few.
CREATE INDEX mails_leased_idx ON mails (lease_until) WHERE status = 'pending' AND lease_until IS NOT NULL;
-- The per-recipient bound (MAIL_MAX_PER_ADDRESS_PER_HOUR): mails sent to an
-- address in the last hour.
CREATE INDEX mails_recipient_idx ON mails (lower(recipient), sent_at) WHERE status = 'sent';
-- Retention: finished rows by age.
CREATE INDEX mails_finished_idx ON mails (created_at) WHERE status <> 'pending';

-- Password reset (POST /password/forgot, /password/reset): a single-use
-- token, of which only SHA-256 is stored, for an email (not an account: a
-- request for an email without one writes the same rows, so the answer and
-- its timing say nothing about accounts; such a token can never reset
-- anything, and its mail is skipped). `used_at` set by the reset that used
-- it. The worker deletes expired rows. Not tenant data: coordinator-local
-- on Citus, as login_failures.
CREATE TABLE password_resets (
  token_hash  bytea PRIMARY KEY CHECK (octet_length(token_hash) = 32),
  email       text NOT NULL CHECK (char_length(email) BETWEEN 3 AND 254),
  expires_at  timestamptz NOT NULL,
  created_at  timestamptz NOT NULL DEFAULT now(),
  used_at     timestamptz
);
CREATE INDEX password_resets_email_idx ON password_resets (lower(email));
CREATE INDEX password_resets_expiry_idx ON password_resets (expires_at);

-- The per-email limit of POST /password/forgot, the way login_failures
-- limits logins: the newest requests of each email (sha256 of its
-- lower-case form), known account or not. Past PASSWORD_FORGOT_MAX_PER_EMAIL
-- within PASSWORD_FORGOT_WINDOW_SECONDS a request writes no token and no
-- mail (the answer is still the same 202).
CREATE TABLE password_forgot_requests (
  email_key     bytea PRIMARY KEY CHECK (octet_length(email_key) = 32),
  requested_at  timestamptz[] NOT NULL,
  expires_at    timestamptz NOT NULL
);
CREATE INDEX password_forgot_requests_expiry_idx ON password_forgot_requests (expires_at);

-- The two tables above stay on the coordinator (Citus refuses now() in ON
-- CONFLICT DO UPDATE on its tables, and nothing joins them with tenant
-- data): the placement of sql/027 plus these.
CREATE OR REPLACE FUNCTION ca_distribution_kind(t regclass) RETURNS text
LANGUAGE sql STABLE
RETURN CASE
  WHEN t::text IN ('tenants', 'users', 'sessions', 'addresses', 'worker_status') THEN 'reference'
  WHEN t::text IN ('schema_migrations', 'login_failures', 'password_resets',
                   'password_forgot_requests') THEN 'local'
  WHEN EXISTS (SELECT FROM pg_attribute
               WHERE attrelid = t AND attname = 'tenant_id' AND attnotnull AND NOT attisdropped)
    THEN 'tenant'
END;

SELECT ca_distribute_all();
