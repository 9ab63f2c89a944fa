-- A mail to each ADMIN of the tenant when the worker disables a failing
-- webhook subscription (issue 41; docs/decisions/0104-automatic-disabling.md):
-- one more kind of mail in the outbox (sql/041).

SET LOCAL lock_timeout = '10s';
SET LOCAL citus.multi_shard_modify_mode = 'sequential';

-- One EXECUTE per command: Citus sends a DDL command's own query text to the
-- workers, and a migration's text holds several commands (sql/032, sql/037).
DO $$
DECLARE
  command text;
BEGIN
  FOREACH command IN ARRAY ARRAY[
    'ALTER TABLE mails DROP CONSTRAINT mails_kind_check',
    'ALTER TABLE mails ADD CONSTRAINT mails_kind_check CHECK (kind IN (''invitation'', '
      '''joined_existing_account'', ''password_reset'', ''password_changed'', '
      '''webhook_disabled''))']
  LOOP
    EXECUTE command;
  END LOOP;
END
$$;
