-- The session check every request runs (common/auth.cc) read three tables:
-- the session, the user (for is_active) and the membership. It now reads
-- two, and the membership from its index alone.
--
-- A deactivated user's sessions are revoked in the same transaction as the
-- deactivation, so a live session implies an active user and the check no
-- longer joins users. Login creates its session only for an active user and
-- holds the user row while it does (FOR SHARE), so a login racing a
-- deactivation either waits for it and creates nothing, or commits first
-- and has its session revoked here.
CREATE FUNCTION revoke_sessions_of_inactive_user() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
  UPDATE sessions SET revoked_at = now() WHERE user_id = NEW.id AND revoked_at IS NULL;
  RETURN NULL;
END
$$;

CREATE TRIGGER users_deactivated_revoke_sessions
  AFTER UPDATE OF is_active ON users
  FOR EACH ROW WHEN (OLD.is_active AND NOT NEW.is_active)
  EXECUTE FUNCTION revoke_sessions_of_inactive_user();

-- The trigger's lookup (and ON DELETE CASCADE from users).
CREATE INDEX sessions_user_idx ON sessions (user_id);

UPDATE sessions s SET revoked_at = now()
FROM users u
WHERE u.id = s.user_id AND NOT u.is_active AND s.revoked_at IS NULL;

-- The role travels in the primary key's index: the membership lookup is an
-- index-only scan, not an index probe plus a heap fetch (or, while the table
-- fits one page, a sequential scan of every membership).
ALTER TABLE memberships DROP CONSTRAINT memberships_pkey,
  ADD PRIMARY KEY (tenant_id, user_id) INCLUDE (role);
