-- More writes as functions Citus delegates to the tenant's worker, as
-- sql/061's and sql/062's (issue 39;
-- docs/decisions/0140-member-and-key-writes-are-delegated-calls.md): an API
-- key's create, an invitation's create, a member's role change. Each writes
-- its audit entry (and a role change its event and deliveries) through
-- ca_write_recorded() (sql/061). A created row's id and an event's id are
-- the caller's (the coordinator's sequences).
--
-- Turns: what the handlers took before the write, in the same transaction,
-- is taken here, on the tenant's shard (cap_locks, sql/039: an upsert that
-- changes nothing), so that the turn is released by the commit that makes
-- the write visible where the next one counts:
--   - 'api keys': creates of a tenant's keys (API_KEYS_MAX_PER_TENANT),
--     instead of the coordinator's advisory lock (tenant_turn(),
--     common/user_turn.h), which a delegated body cannot take;
--   - 'members': a tenant's member changes (a role change, a removal, an
--     invitation's create), which locked the tenant's row (a reference
--     table on Citus: every node), so that two admins demoting or removing
--     each other at once cannot leave the tenant without an ADMIN, and one
--     being demoted cannot invite afterwards. The removal
--     (handlers/team_members/member_write.cc) takes the same turn.
--
-- Every statement filters by the `tenant_id` argument, and none mixes a
-- reference table (users, tenants) with a distributed one
-- (docs/design/citus.md, "Functions the coordinator delegates").

SET LOCAL lock_timeout = '10s';
SET LOCAL citus.multi_shard_modify_mode = 'sequential';

-- ca_write_recorded_ids(): ca_write_recorded() (sql/061) with the
-- deliveries' ids too from the caller (the coordinator's sequence,
-- `delivery_ids`, one per live subscription the tenant may have, the
-- spare ones unused): a delivery id taken on a worker is of the worker's
-- range (2^48 and up), above every id the coordinator gives, so a
-- redelivery or a test delivery made later would list as older
-- (deliveries are listed newest first, by id). A subscription beyond the
-- ids (the cap lowered since) gets one of its node's.
CREATE FUNCTION ca_write_recorded_ids(
  tenant_id bigint, event_id bigint, delivery_ids bigint[], action text, target_type text,
  target_id bigint, changed text[], who jsonb, event_type text, payload jsonb)
RETURNS void
LANGUAGE plpgsql AS $$
#variable_conflict use_column
DECLARE
  actor record;
  hook record;
  n integer := 0;
BEGIN
  IF (who ->> 'api_key_id')::bigint = 0 THEN
    SELECT 'user' AS type, u.id, u.name INTO actor FROM users u
    WHERE u.id = (who ->> 'user_id')::bigint;
  ELSE
    SELECT 'api_key' AS type, k.id, k.name INTO actor FROM api_keys k
    WHERE k.tenant_id = ca_write_recorded_ids.tenant_id
      AND k.id = (who ->> 'api_key_id')::bigint;
  END IF;
  INSERT INTO audit_log (tenant_id, action, actor_type, actor_id, actor_name, target_type,
                         target_id, changed, request_id)
  VALUES (ca_write_recorded_ids.tenant_id, ca_write_recorded_ids.action, actor.type, actor.id,
          actor.name, ca_write_recorded_ids.target_type, ca_write_recorded_ids.target_id,
          ca_write_recorded_ids.changed, who ->> 'request_id');
  IF ca_write_recorded_ids.event_type IS NULL THEN
    RETURN;
  END IF;
  INSERT INTO events (tenant_id, id, type, payload, actor)
  VALUES (ca_write_recorded_ids.tenant_id, ca_write_recorded_ids.event_id,
          ca_write_recorded_ids.event_type, ca_write_recorded_ids.payload,
          CASE WHEN actor.type = 'api_key'
               THEN jsonb_build_object('type', actor.type, 'id', actor.id, 'name', actor.name)
          END);
  FOR hook IN
    SELECT h.id, h.url FROM webhooks h
    WHERE h.tenant_id = ca_write_recorded_ids.tenant_id AND h.is_active
      AND (h.events @> jsonb_build_array(ca_write_recorded_ids.event_type)
           OR h.events @> '["*"]')
    ORDER BY h.id
  LOOP
    n := n + 1;
    IF n <= coalesce(cardinality(ca_write_recorded_ids.delivery_ids), 0) THEN
      INSERT INTO webhook_deliveries (tenant_id, id, webhook_id, event_id, event, url)
      VALUES (ca_write_recorded_ids.tenant_id, ca_write_recorded_ids.delivery_ids[n], hook.id,
              ca_write_recorded_ids.event_id, ca_write_recorded_ids.event_type, hook.url);
    ELSE
      INSERT INTO webhook_deliveries (tenant_id, webhook_id, event_id, event, url)
      VALUES (ca_write_recorded_ids.tenant_id, hook.id, ca_write_recorded_ids.event_id,
              ca_write_recorded_ids.event_type, hook.url);
    END IF;
  END LOOP;
END $$;

-- POST /api-keys/{tenantId} (handlers/tenants/api_keys.cc): what the
-- statements api_keys_under_cap and api_keys_create did after the
-- tenant's turn. At `max` live keys it raises CA422 with `refusal` (a 422
-- under "limit"). Only the hash of the secret reaches the database.
CREATE FUNCTION ca_api_key_create(
  tenant_id bigint, api_key_id bigint, name text, scopes text[], key_hash bytea,
  secret_head text, created_by bigint, max bigint, refusal text, who jsonb, OUT json text)
LANGUAGE plpgsql AS $$
#variable_conflict use_column
DECLARE
  k api_keys;
BEGIN
  INSERT INTO cap_locks AS l (tenant_id, collection)
  VALUES (ca_api_key_create.tenant_id, 'api keys')
  ON CONFLICT (tenant_id, collection) DO UPDATE SET collection = l.collection;
  IF (SELECT count(*) FROM api_keys x
      WHERE x.tenant_id = ca_api_key_create.tenant_id AND x.revoked_at IS NULL)
     >= ca_api_key_create.max THEN
    PERFORM ca_refuse('CA422', ca_api_key_create.refusal);
  END IF;
  INSERT INTO api_keys (tenant_id, id, name, scopes, key_hash, secret_head, created_by)
  VALUES (ca_api_key_create.tenant_id, ca_api_key_create.api_key_id, ca_api_key_create.name,
          ca_api_key_create.scopes, ca_api_key_create.key_hash, ca_api_key_create.secret_head,
          ca_api_key_create.created_by)
  RETURNING * INTO k;
  PERFORM ca_write_recorded(ca_api_key_create.tenant_id, NULL, 'api_key.created', 'api_key',
                            k.id, NULL, ca_api_key_create.who, NULL, NULL);
  json := ca_api_key_json(tenant_id => k.tenant_id, id => k.id, name => k.name,
                          scopes => k.scopes, secret_head => k.secret_head,
                          created_by => k.created_by, created_at => k.created_at,
                          last_used_at => k.last_used_at);
END $$;

-- The tenant's member turn, then whether `caller_id` is (still) one of its
-- ADMINs.
CREATE FUNCTION ca_member_turn_as_admin(tenant_id bigint, caller_id bigint) RETURNS boolean
LANGUAGE plpgsql AS $$
#variable_conflict use_column
BEGIN
  INSERT INTO cap_locks AS l (tenant_id, collection)
  VALUES (ca_member_turn_as_admin.tenant_id, 'members')
  ON CONFLICT (tenant_id, collection) DO UPDATE SET collection = l.collection;
  RETURN EXISTS (
    SELECT 1 FROM memberships c
    WHERE c.tenant_id = ca_member_turn_as_admin.tenant_id
      AND c.user_id = ca_member_turn_as_admin.caller_id AND c.role = 'ADMIN');
END $$;

-- POST /team-members/{tenantId} (handlers/team_members/invitations.cc):
-- what invitations_take_turn, members_lock_tenant, members_caller_is_admin,
-- invitations_pending_others and invitations_create(_mailed) did. The
-- outcome, in the order the handler judged them: `not_admin` (the caller
-- was demoted before their turn: 403), `limit` (`pending_max` live pending
-- invitations besides the email's: 422), `member` (the email is a member:
-- 409), else `created` with `json` the invitation. A live pending
-- invitation of the same email is revoked: the new one replaces it. With
-- `mail_secret` (mail configured) the invitee's mail goes to the outbox
-- (sql/041) holding the token (inv_<tenant>_<id>_<secret>,
-- invitation_token.h). The audit entry member.invited targets the
-- invitation (decision 0112).
CREATE FUNCTION ca_invitation_create(
  tenant_id bigint, invitation_id bigint, email text, role text, token_hash bytea,
  invited_by bigint, ttl_seconds bigint, pending_max bigint, mail_secret text, who jsonb,
  OUT outcome text, OUT json text)
LANGUAGE plpgsql AS $$
#variable_conflict use_column
DECLARE
  users_of_email bigint[];
  i invitations;
  tenant_name text;
  inviter_name text;
BEGIN
  INSERT INTO cap_locks AS l (tenant_id, collection)
  VALUES (ca_invitation_create.tenant_id, 'pending invitations')
  ON CONFLICT (tenant_id, collection) DO UPDATE SET collection = l.collection;
  IF NOT ca_member_turn_as_admin(ca_invitation_create.tenant_id, ca_invitation_create.invited_by)
  THEN
    outcome := 'not_admin';
    RETURN;
  END IF;
  IF (SELECT count(*) FROM invitations x
      WHERE x.tenant_id = ca_invitation_create.tenant_id AND x.status = 'pending'
        AND x.expires_at > now() AND lower(x.email) <> lower(ca_invitation_create.email))
     >= ca_invitation_create.pending_max THEN
    outcome := 'limit';
    RETURN;
  END IF;
  SELECT array_agg(u.id) INTO users_of_email FROM users u
  WHERE lower(u.email) = lower(ca_invitation_create.email);
  IF EXISTS (SELECT 1 FROM memberships m
             WHERE m.tenant_id = ca_invitation_create.tenant_id
               AND m.user_id = ANY (users_of_email)) THEN
    outcome := 'member';
    RETURN;
  END IF;
  UPDATE invitations x SET status = 'revoked', revoked_at = now()
  WHERE x.tenant_id = ca_invitation_create.tenant_id
    AND lower(x.email) = lower(ca_invitation_create.email) AND x.status = 'pending'
    AND x.expires_at > now();
  INSERT INTO invitations (tenant_id, id, email, role, token_hash, invited_by, expires_at)
  VALUES (ca_invitation_create.tenant_id, ca_invitation_create.invitation_id,
          ca_invitation_create.email, ca_invitation_create.role, ca_invitation_create.token_hash,
          ca_invitation_create.invited_by,
          now() + make_interval(secs => ca_invitation_create.ttl_seconds))
  RETURNING * INTO i;
  IF ca_invitation_create.mail_secret IS NOT NULL THEN
    SELECT t.name INTO tenant_name FROM tenants t WHERE t.id = ca_invitation_create.tenant_id;
    SELECT u.name INTO inviter_name FROM users u WHERE u.id = ca_invitation_create.invited_by;
    INSERT INTO mails (tenant_id, kind, recipient, data)
    VALUES (ca_invitation_create.tenant_id, 'invitation', i.email, jsonb_build_object(
      'token', 'inv_' || ca_invitation_create.tenant_id || '_' || i.id || '_'
               || ca_invitation_create.mail_secret,
      'tenant_name', tenant_name, 'inviter_name', inviter_name, 'role', i.role,
      'expires_at', ca_ts(i.expires_at)));
  END IF;
  PERFORM ca_write_recorded(ca_invitation_create.tenant_id, NULL, 'member.invited', 'invitation',
                            i.id, NULL, ca_invitation_create.who, NULL, NULL);
  outcome := 'created';
  json := ca_invitation_json(id => i.id, email => i.email, role => i.role, status => i.status,
                             expires_at => i.expires_at, created_at => i.created_at);
END $$;

-- POST /team-members/{tenantId}/{userId} (handlers/team_members/
-- member_write.cc): what members_lock_tenant, members_target,
-- members_set_role and the event and audit statements did. The outcome,
-- in the order the handler judged them: `no_user` (404), `not_admin` (the
-- caller was demoted before their turn: 403), `not_member` (400),
-- `unchanged` (the role it has: a 200 that writes nothing, `json` the
-- record), `last_admin` (the only ADMIN demoted: 400), else `updated` with
-- `json` the record with its new role, the event member.role_updated (the
-- record and its `previous_role`) with its deliveries (their ids
-- `delivery_ids`, ca_write_recorded_ids()) and the audit entry (changed:
-- role).
CREATE FUNCTION ca_member_role_update(
  tenant_id bigint, user_id bigint, event_id bigint, delivery_ids bigint[], role text,
  caller_id bigint, who jsonb, OUT outcome text, OUT json text)
LANGUAGE plpgsql AS $$
#variable_conflict use_column
DECLARE
  u record;
  previous text;
BEGIN
  -- The turn first, as the tenant's lock came first.
  IF NOT ca_member_turn_as_admin(ca_member_role_update.tenant_id, ca_member_role_update.caller_id)
  THEN
    outcome := 'not_admin';
  END IF;
  SELECT x.name, x.email INTO u FROM users x WHERE x.id = ca_member_role_update.user_id;
  IF NOT FOUND THEN
    outcome := 'no_user';
    RETURN;
  ELSIF outcome IS NOT NULL THEN
    RETURN;
  END IF;
  SELECT m.role INTO previous FROM memberships m
  WHERE m.tenant_id = ca_member_role_update.tenant_id
    AND m.user_id = ca_member_role_update.user_id;
  IF NOT FOUND THEN
    outcome := 'not_member';
    RETURN;
  END IF;
  IF previous = ca_member_role_update.role THEN
    outcome := 'unchanged';
    json := ca_member_json(tenant_id => ca_member_role_update.tenant_id,
                           user_id => ca_member_role_update.user_id, role => previous,
                           name => u.name, email => u.email);
    RETURN;
  END IF;
  IF previous = 'ADMIN' AND ca_member_role_update.role = 'MEMBER'
     AND (SELECT count(*) FROM memberships a
          WHERE a.tenant_id = ca_member_role_update.tenant_id AND a.role = 'ADMIN') <= 1 THEN
    outcome := 'last_admin';
    RETURN;
  END IF;
  UPDATE memberships m SET role = ca_member_role_update.role, updated_at = now()
  WHERE m.tenant_id = ca_member_role_update.tenant_id
    AND m.user_id = ca_member_role_update.user_id;
  json := ca_member_json(tenant_id => ca_member_role_update.tenant_id,
                         user_id => ca_member_role_update.user_id,
                         role => ca_member_role_update.role, name => u.name, email => u.email);
  PERFORM ca_write_recorded_ids(
    ca_member_role_update.tenant_id, ca_member_role_update.event_id,
    ca_member_role_update.delivery_ids, 'member.role_updated',
    'member', ca_member_role_update.user_id, '{role}', ca_member_role_update.who,
    'member.role_updated', json::jsonb || jsonb_build_object('previous_role', previous));
  outcome := 'updated';
END $$;

-- POST /tenants/{id} (handlers/tenants/tenants.cc): what the statement
-- tenants_update did, as plain statements: the row before locked, the
-- update (NULL `name` keeps it; `settings_set` merged in shallowly, then
-- `settings_remove`'s keys removed), the audit entry tenant.updated through
-- ca_write_recorded(), whose `changed` names `name` and each settings key
-- as `settings.<key>` whose value differs between before and after. `json`
-- NULL: no such tenant. Not distributed: `tenants` is a reference table,
-- so the update goes to every node in a two-phase commit whatever its
-- shape; run on the coordinator, the function adds to that only the audit
-- entry's INSERT ... VALUES on the tenant's worker (an INSERT CTE was
-- steps of their own: decision 0140).
CREATE FUNCTION ca_tenant_update(
  tenant_id bigint, name text, settings_set jsonb, settings_remove text[], who jsonb,
  OUT json text)
LANGUAGE plpgsql AS $$
#variable_conflict use_column
DECLARE
  o record;
  t tenants;
BEGIN
  SELECT x.name, x.settings INTO o FROM tenants x WHERE x.id = ca_tenant_update.tenant_id
  FOR UPDATE;
  IF NOT FOUND THEN
    RETURN;
  END IF;
  UPDATE tenants x SET name = COALESCE(ca_tenant_update.name, x.name),
    settings = (x.settings || ca_tenant_update.settings_set) - ca_tenant_update.settings_remove,
    updated_at = now()
  WHERE x.id = ca_tenant_update.tenant_id
  RETURNING * INTO t;
  PERFORM ca_write_recorded(
    ca_tenant_update.tenant_id, NULL, 'tenant.updated', 'tenant', t.id,
    ARRAY(SELECT 'name' WHERE o.name IS DISTINCT FROM t.name
          UNION ALL (SELECT 'settings.' || k.key FROM (
            SELECT jsonb_object_keys(o.settings) UNION SELECT jsonb_object_keys(t.settings))
            AS k (key)
          WHERE o.settings -> k.key IS DISTINCT FROM t.settings -> k.key
          ORDER BY k.key)),
    ca_tenant_update.who, NULL, NULL);
  json := ca_tenant_json(id => t.id, name => t.name, settings => t.settings,
                         created_at => t.created_at, updated_at => t.updated_at, role => NULL);
END $$;

DO $$
BEGIN
  IF ca_citus() THEN
    PERFORM create_distributed_function(
      'ca_api_key_create(bigint, bigint, text, text[], bytea, text, bigint, bigint, text, jsonb)',
      distribution_arg_name := 'tenant_id', colocate_with := 'api_keys',
      force_delegation := true);
    -- Called from the bodies below: a plain function on every worker.
    PERFORM create_distributed_function('ca_member_turn_as_admin(bigint, bigint)');
    PERFORM create_distributed_function(
      'ca_invitation_create(bigint, bigint, text, text, bytea, bigint, bigint, bigint, text, '
      'jsonb)',
      distribution_arg_name := 'tenant_id', colocate_with := 'invitations',
      force_delegation := true);
    PERFORM create_distributed_function(
      'ca_write_recorded_ids(bigint, bigint, bigint[], text, text, bigint, text[], jsonb, text, '
      'jsonb)');
    PERFORM create_distributed_function(
      'ca_member_role_update(bigint, bigint, bigint, bigint[], text, bigint, jsonb)',
      distribution_arg_name := 'tenant_id', colocate_with := 'memberships',
      force_delegation := true);
  END IF;
END $$;
