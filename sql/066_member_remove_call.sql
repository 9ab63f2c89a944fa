-- DELETE /team-members/{tenantId}/{userId} (handlers/team_members/
-- member_write.cc) as one function Citus delegates to the tenant's worker
-- (issue 39; docs/decisions/0142-a-users-current-tenant-is-answered-at-login.md).
--
-- The removal no longer writes `users` (a reference table on Citus: every
-- node, two-phase): the user's current tenant is answered at login from
-- their memberships (handlers/auth/login.cc), so nothing needs to fall back
-- when the removed tenant was the current one, and the removal needs no
-- turn of the user's. What the statements members_turn_as_admin,
-- members_target, members_remove and members_removed_recorded did, in the
-- order the handler judged them: `no_user` (404), `not_admin` (the caller
-- was demoted before their turn: 403), `not_member` (400), `last_admin`
-- (400), else `removed`, with the audit entry member.removed and the event
-- of the same name (the record removed) with its deliveries through
-- ca_write_recorded() (sql/061). `event_id` is the caller's (the
-- coordinator's sequence).
--
-- Every statement filters by the `tenant_id` argument, and none mixes a
-- reference table (users) with a distributed one (docs/design/citus.md,
-- "Functions the coordinator delegates").

SET LOCAL lock_timeout = '10s';
SET LOCAL citus.multi_shard_modify_mode = 'sequential';

CREATE FUNCTION ca_member_remove(
  tenant_id bigint, user_id bigint, event_id bigint, caller_id bigint, who jsonb,
  OUT outcome text)
LANGUAGE plpgsql AS $$
#variable_conflict use_column
DECLARE
  u record;
  removed text;
BEGIN
  -- The turn first, as in ca_member_role_update() (sql/064).
  IF NOT ca_member_turn_as_admin(ca_member_remove.tenant_id, ca_member_remove.caller_id) THEN
    outcome := 'not_admin';
  END IF;
  SELECT x.name, x.email INTO u FROM users x WHERE x.id = ca_member_remove.user_id;
  IF NOT FOUND THEN
    outcome := 'no_user';
    RETURN;
  ELSIF outcome IS NOT NULL THEN
    RETURN;
  END IF;
  SELECT m.role INTO removed FROM memberships m
  WHERE m.tenant_id = ca_member_remove.tenant_id AND m.user_id = ca_member_remove.user_id;
  IF NOT FOUND THEN
    outcome := 'not_member';
    RETURN;
  END IF;
  IF removed = 'ADMIN'
     AND (SELECT count(*) FROM memberships a
          WHERE a.tenant_id = ca_member_remove.tenant_id AND a.role = 'ADMIN') <= 1 THEN
    outcome := 'last_admin';
    RETURN;
  END IF;
  DELETE FROM memberships m
  WHERE m.tenant_id = ca_member_remove.tenant_id AND m.user_id = ca_member_remove.user_id;
  PERFORM ca_write_recorded(
    ca_member_remove.tenant_id, ca_member_remove.event_id, 'member.removed', 'member',
    ca_member_remove.user_id, NULL, ca_member_remove.who, 'member.removed',
    ca_member_json(tenant_id => ca_member_remove.tenant_id, user_id => ca_member_remove.user_id,
                   role => removed, name => u.name, email => u.email)::jsonb);
  outcome := 'removed';
END $$;

DO $$
BEGIN
  IF ca_citus() THEN
    PERFORM create_distributed_function(
      'ca_member_remove(bigint, bigint, bigint, bigint, jsonb)',
      distribution_arg_name := 'tenant_id', colocate_with := 'memberships',
      force_delegation := true);
  END IF;
END $$;
