-- The per-account login limit (handlers/auth/login.cc): the recent failed
-- logins of each email, known account or not (so the limit does not tell
-- which emails have one).
--
-- The key is sha256 of the email's lower-case form (lower(), as
-- users_email_key compares them): a fixed 32 bytes whatever a client sent,
-- and no list of the addresses people tried in clear. `failed_at` keeps the
-- newest LOGIN_MAX_FAILURES failures, oldest first; the email is locked
-- while the oldest of those is younger than the window. A successful login
-- deletes the row. `expires_at` is when the newest failure leaves the
-- window: the worker deletes the row after that (handlers/worker).
--
-- Not tenant data: a plain (on Citus, coordinator-local or reference) table.
CREATE TABLE login_failures (
  email_key   bytea PRIMARY KEY CHECK (octet_length(email_key) = 32),
  failed_at   timestamptz[] NOT NULL,
  expires_at  timestamptz NOT NULL
);
CREATE INDEX login_failures_expiry_idx ON login_failures (expires_at);

