-- A deactivation revokes the sessions its trigger can see (sql/010). In a
-- READ COMMITTED transaction that is every session: a login that held the
-- user row (FOR SHARE) while creating one has committed before the
-- deactivation's UPDATE goes on, and the trigger's statement takes a new
-- snapshot. In REPEATABLE READ or SERIALIZABLE the trigger keeps the
-- transaction's snapshot, older than that login's session, which would then
-- outlive the deactivation (the session check no longer reads is_active).
-- Such a deactivation is refused instead, with the reason.
CREATE OR REPLACE FUNCTION revoke_sessions_of_inactive_user() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
  IF current_setting('transaction_isolation') <> 'read committed' THEN
    RAISE EXCEPTION 'deactivate users in a READ COMMITTED transaction'
      USING DETAIL = 'A session created by a concurrent login would not be revoked.';
  END IF;
  UPDATE sessions SET revoked_at = now() WHERE user_id = NEW.id AND revoked_at IS NULL;
  RETURN NULL;
END
$$;
