-- More writes as functions Citus delegates to the tenant's worker, as
-- sql/061's (docs/decisions/0138-writes-are-delegated-calls.md): the
-- announcement writes, a webhook's secret rotation and delete, an API key's
-- revocation, an invitation's revocation.
--
-- The announcement writes (handlers/announcement_write.cc): what the statements
-- announcements_create, announcements_update and announcements_archive did,
-- as plain statements. Each moves the tenant's active list version
-- (announcement_list_versions, sql/019 and 032) and writes its audit entry
-- and, when the write publishes the announcement, the
-- `announcement.published` event with its deliveries (ca_write_recorded(),
-- sql/061). A create's id and an event's id are the caller's (the
-- coordinator's sequences).
--
-- ca_announcement_rendered(): the record as the API shows it
-- (ca_announcement_json, sql/025), its creator's name and email read in a
-- statement of their own (users is a reference table: a delegated body never
-- reads one with a distributed table).

SET LOCAL lock_timeout = '10s';
SET LOCAL citus.multi_shard_modify_mode = 'sequential';

CREATE FUNCTION ca_announcement_rendered(a announcements) RETURNS text
LANGUAGE plpgsql AS $$
DECLARE
  u record;
BEGIN
  SELECT x.name, x.email INTO u FROM users x WHERE x.id = a.created_by;
  RETURN ca_announcement_json(
    all_fields => true, id => a.id, tenant_id => a.tenant_id, title => a.title,
    summary => a.summary, content => a.content, type => a.type, priority => a.priority,
    status => a.status, is_push_enabled => a.is_push_enabled, is_public => a.is_public,
    scheduled_at => a.scheduled_at, expires_at => a.expires_at, topic => a.topic,
    push_title => a.push_title, push_body => a.push_body, push_data => a.push_data,
    target_type => a.target_type, target_value => a.target_value,
    push_status => a.push_status, push_error => a.push_error, sent_at => a.sent_at,
    attachment_type => a.attachment_type, attachment_url => a.attachment_url,
    attachment_metadata => a.attachment_metadata, created_by => a.created_by,
    creator_name => u.name, creator_email => u.email, created_at => a.created_at,
    updated_at => a.updated_at);
END $$;

CREATE FUNCTION ca_announcement_create(
  tenant_id bigint, announcement_id bigint, event_id bigint, title text, summary text,
  content text, type text, priority smallint, status text, is_push_enabled boolean,
  is_public boolean, scheduled_at timestamptz, expires_at timestamptz, topic text,
  push_title text, push_body text, push_data jsonb, target_type text, target_value text,
  push_status text, attachment_type text, attachment_url text, attachment_metadata jsonb,
  created_by bigint, who jsonb, OUT json text)
LANGUAGE plpgsql AS $$
#variable_conflict use_column
DECLARE
  a announcements;
BEGIN
  INSERT INTO announcements (tenant_id, id, title, summary, content, type, priority, status,
    is_push_enabled, is_public, scheduled_at, expires_at, topic, push_title, push_body,
    push_data, target_type, target_value, push_status, attachment_type, attachment_url,
    attachment_metadata, created_by, published_at)
  VALUES (ca_announcement_create.tenant_id, ca_announcement_create.announcement_id,
    ca_announcement_create.title, ca_announcement_create.summary, ca_announcement_create.content,
    ca_announcement_create.type, ca_announcement_create.priority,
    ca_announcement_create.status, ca_announcement_create.is_push_enabled,
    ca_announcement_create.is_public, ca_announcement_create.scheduled_at,
    ca_announcement_create.expires_at, ca_announcement_create.topic,
    ca_announcement_create.push_title, ca_announcement_create.push_body,
    ca_announcement_create.push_data, ca_announcement_create.target_type,
    ca_announcement_create.target_value, ca_announcement_create.push_status,
    ca_announcement_create.attachment_type, ca_announcement_create.attachment_url,
    ca_announcement_create.attachment_metadata, ca_announcement_create.created_by,
    CASE WHEN ca_announcement_create.status = 'published' THEN now() END)
  RETURNING * INTO a;
  INSERT INTO announcement_list_versions AS v (tenant_id,
    version) VALUES (ca_announcement_create.tenant_id, 1)
  ON CONFLICT (tenant_id) DO UPDATE SET version = v.version + 1;
  json := ca_announcement_rendered(a);
  PERFORM ca_write_recorded(
    ca_announcement_create.tenant_id, ca_announcement_create.event_id, 'announcement.created',
      'announcement', a.id, NULL, ca_announcement_create.who,
    CASE WHEN a.status = 'published' THEN 'announcement.published' END, json::jsonb);
END $$;

-- `was_unpublished`: the record was not published before (read with the
-- record's lock in the request's first send); a published result then
-- writes the event. The record before is rendered for the audit entry's
-- `changed`.
CREATE FUNCTION ca_announcement_update(
  tenant_id bigint, announcement_id bigint, event_id bigint, title text, summary text,
  content text, type text, priority smallint, status text, is_push_enabled boolean,
  is_public boolean, scheduled_at timestamptz, expires_at timestamptz, topic text,
  push_title text, push_body text, push_data jsonb, target_type text, target_value text,
  push_status text, attachment_type text, attachment_url text, attachment_metadata jsonb,
  was_unpublished boolean, who jsonb, OUT json text)
LANGUAGE plpgsql AS $$
#variable_conflict use_column
DECLARE
  o announcements;
  a announcements;
BEGIN
  SELECT * INTO o FROM announcements x
  WHERE x.tenant_id = ca_announcement_update.tenant_id
    AND x.id = ca_announcement_update.announcement_id
  FOR UPDATE;
  IF NOT FOUND THEN
    RETURN;
  END IF;
  UPDATE announcements x SET title = ca_announcement_update.title,
    summary = ca_announcement_update.summary, content = ca_announcement_update.content,
    type = ca_announcement_update.type, priority = ca_announcement_update.priority,
      status = ca_announcement_update.status,
    is_push_enabled = ca_announcement_update.is_push_enabled,
      is_public = ca_announcement_update.is_public,
    scheduled_at = ca_announcement_update.scheduled_at,
      expires_at = ca_announcement_update.expires_at, topic = ca_announcement_update.topic,
    push_title = ca_announcement_update.push_title, push_body = ca_announcement_update.push_body,
      push_data = ca_announcement_update.push_data,
    target_type = ca_announcement_update.target_type,
      target_value = ca_announcement_update.target_value,
    push_status = ca_announcement_update.push_status,
      attachment_type = ca_announcement_update.attachment_type,
    attachment_url = ca_announcement_update.attachment_url,
      attachment_metadata = ca_announcement_update.attachment_metadata,
    published_at = ca_pick(ca_announcement_update.status = 'published' AND x.status <> 'published',
      now(),
                           x.published_at),
    updated_at = now()
  WHERE x.tenant_id = ca_announcement_update.tenant_id
    AND x.id = ca_announcement_update.announcement_id
  RETURNING * INTO a;
  INSERT INTO announcement_list_versions AS v (tenant_id,
    version) VALUES (ca_announcement_update.tenant_id, 1)
  ON CONFLICT (tenant_id) DO UPDATE SET version = v.version + 1;
  json := ca_announcement_rendered(a);
  PERFORM ca_write_recorded(
    ca_announcement_update.tenant_id, ca_announcement_update.event_id, 'announcement.updated',
      'announcement', a.id,
    ca_changed(ca_announcement_rendered(o)::jsonb, json::jsonb,
               '{title,summary,content,type,priority,status,is_push_enabled,is_public,'
               'scheduled_at,expires_at,topic,push_title,push_body,push_data,target_type,'
               'target_value,push_status,attachment_type,attachment_url,attachment_metadata}'),
    ca_announcement_update.who,
    CASE WHEN ca_announcement_update.was_unpublished AND a.status = 'published'
         THEN 'announcement.published' END,
    json::jsonb);
END $$;

-- Every status may move to archived; archiving again changes nothing
-- (updated_at kept). A push that has not gone out yet never will.
CREATE FUNCTION ca_announcement_archive(
  tenant_id bigint, announcement_id bigint, who jsonb, OUT archived boolean)
LANGUAGE plpgsql AS $$
#variable_conflict use_column
DECLARE
  o record;
  a record;
BEGIN
  SELECT x.status, x.push_status INTO o FROM announcements x
  WHERE x.tenant_id = ca_announcement_archive.tenant_id
    AND x.id = ca_announcement_archive.announcement_id
  FOR UPDATE;
  archived := FOUND;
  IF NOT archived THEN
    RETURN;
  END IF;
  UPDATE announcements x SET status = 'archived',
    push_status = CASE WHEN x.push_status = 'pending' THEN 'skipped' ELSE x.push_status END,
    updated_at = ca_pick(x.status = 'archived', x.updated_at, now())
  WHERE x.tenant_id = ca_announcement_archive.tenant_id
    AND x.id = ca_announcement_archive.announcement_id
  RETURNING x.id, x.status, x.push_status INTO a;
  PERFORM ca_write_recorded(
    ca_announcement_archive.tenant_id, NULL, 'announcement.archived', 'announcement', a.id,
    ca_changed(jsonb_build_object('status', o.status, 'push_status', o.push_status),
               jsonb_build_object('status', a.status, 'push_status', a.push_status),
               '{status,push_status}'),
    ca_announcement_archive.who, NULL, NULL);
  INSERT INTO announcement_list_versions AS v (tenant_id,
    version) VALUES (ca_announcement_archive.tenant_id, 1)
  ON CONFLICT (tenant_id) DO UPDATE SET version = v.version + 1;
END $$;

-- POST /webhooks/{tenantId}/{id}/rotate-secret (handlers/webhooks/
-- subscriptions.cc): the statement webhooks_rotate_secret. The secret it
-- replaces signs beside the new one for `previous_hours`. `rotated`
-- false: no such live subscription.
CREATE FUNCTION ca_webhook_rotate_secret(
  tenant_id bigint, webhook_id bigint, secret text, previous_hours integer, who jsonb,
  OUT rotated boolean)
LANGUAGE plpgsql AS $$
#variable_conflict use_column
BEGIN
  UPDATE webhooks x SET previous_secret = x.secret,
    previous_secret_until = now() + make_interval(hours => ca_webhook_rotate_secret.previous_hours),
    secret = ca_webhook_rotate_secret.secret, updated_at = now()
  WHERE x.tenant_id = ca_webhook_rotate_secret.tenant_id
    AND x.id = ca_webhook_rotate_secret.webhook_id AND x.deleted_at IS NULL;
  rotated := FOUND;
  IF rotated THEN
    PERFORM ca_write_recorded(ca_webhook_rotate_secret.tenant_id, NULL, 'webhook.secret_rotated',
                              'webhook', ca_webhook_rotate_secret.webhook_id, '{secret}',
                              ca_webhook_rotate_secret.who, NULL, NULL);
  END IF;
END $$;

-- DELETE /api-keys/{tenantId}/{id} (handlers/tenants/api_keys.cc): the
-- statement api_keys_revoke. Revokes the key unless it is revoked already
-- (its first revocation's time stays); `key_found`: the tenant has such a key.
CREATE FUNCTION ca_api_key_revoke(
  tenant_id bigint, api_key_id bigint, who jsonb, OUT key_found boolean)
LANGUAGE plpgsql AS $$
#variable_conflict use_column
DECLARE
  revoked boolean;
BEGIN
  UPDATE api_keys k SET revoked_at = now()
  WHERE k.tenant_id = ca_api_key_revoke.tenant_id AND k.id = ca_api_key_revoke.api_key_id
    AND k.revoked_at IS NULL;
  revoked := FOUND;
  IF revoked THEN
    PERFORM ca_write_recorded(ca_api_key_revoke.tenant_id, NULL, 'api_key.revoked', 'api_key',
                              ca_api_key_revoke.api_key_id, NULL, ca_api_key_revoke.who, NULL,
                              NULL);
  END IF;
  key_found := revoked OR EXISTS (
    SELECT 1 FROM api_keys k
    WHERE k.tenant_id = ca_api_key_revoke.tenant_id AND k.id = ca_api_key_revoke.api_key_id);
END $$;

-- DELETE /webhooks/{tenantId}?id= (handlers/webhooks/subscriptions.cc): the
-- statement webhooks_delete. Deactivates the subscription and ends its
-- pending deliveries that no worker holds (a delivery a worker holds is in
-- flight and may finish; the worker fails it instead of retrying it).
-- `deleted` false: no such live subscription.
CREATE FUNCTION ca_webhook_delete(
  tenant_id bigint, webhook_id bigint, who jsonb, OUT deleted boolean)
LANGUAGE plpgsql AS $$
#variable_conflict use_column
BEGIN
  UPDATE webhooks x SET is_active = false, deleted_at = now(), updated_at = now()
  WHERE x.tenant_id = ca_webhook_delete.tenant_id AND x.id = ca_webhook_delete.webhook_id
    AND x.deleted_at IS NULL;
  deleted := FOUND;
  IF NOT deleted THEN
    RETURN;
  END IF;
  PERFORM ca_write_recorded(ca_webhook_delete.tenant_id, NULL, 'webhook.deleted', 'webhook',
                            ca_webhook_delete.webhook_id, NULL, ca_webhook_delete.who, NULL,
                            NULL);
  UPDATE webhook_deliveries d SET status = 'failed', error = 'webhook deleted'
  WHERE d.tenant_id = ca_webhook_delete.tenant_id AND d.webhook_id = ca_webhook_delete.webhook_id
    AND d.status = 'pending' AND (d.lease_until IS NULL OR d.lease_until < now());
END $$;

-- DELETE /team-members/{tenantId}/invitations/{id}
-- (handlers/team_members/invitations.cc): the statement invitations_revoke.
-- Revokes a pending (or expired) invitation of the tenant, with its audit
-- entry; `revoked`: whether this call revoked it. An accepted or revoked
-- one comes back as it is (`status` and `json` as shown, an expired
-- pending one as `expired`); another tenant's id or an unknown one gives
-- `json` NULL.
CREATE FUNCTION ca_invitation_revoke(
  tenant_id bigint, invitation_id bigint, who jsonb,
  OUT revoked boolean, OUT status text, OUT json text)
LANGUAGE plpgsql AS $$
#variable_conflict use_column
DECLARE
  r invitations;
BEGIN
  UPDATE invitations i SET status = 'revoked', revoked_at = now()
  WHERE i.tenant_id = ca_invitation_revoke.tenant_id AND i.id = ca_invitation_revoke.invitation_id
    AND i.status = 'pending'
  RETURNING * INTO r;
  revoked := FOUND;
  IF revoked THEN
    PERFORM ca_write_recorded(ca_invitation_revoke.tenant_id, NULL, 'invitation.revoked',
                              'invitation', r.id, NULL, ca_invitation_revoke.who, NULL, NULL);
    ca_invitation_revoke.status := r.status;
  ELSE
    SELECT * INTO r FROM invitations i
    WHERE i.tenant_id = ca_invitation_revoke.tenant_id
      AND i.id = ca_invitation_revoke.invitation_id;
    IF NOT FOUND THEN
      RETURN;
    END IF;
    ca_invitation_revoke.status := CASE WHEN r.status = 'pending' AND r.expires_at <= now()
                                        THEN 'expired' ELSE r.status END;
  END IF;
  json := ca_invitation_json(id => r.id, email => r.email, role => r.role,
                             status => ca_invitation_revoke.status, expires_at => r.expires_at,
                             created_at => r.created_at);
END $$;

DO $$
BEGIN
  IF ca_citus() THEN
    PERFORM create_distributed_function('ca_announcement_rendered(announcements)');
    PERFORM create_distributed_function(
      'ca_announcement_create(bigint, bigint, bigint, text, text, text, text, smallint, text, '
      'boolean, boolean, timestamptz, timestamptz, text, text, text, jsonb, text, text, text, '
      'text, text, jsonb, bigint, jsonb)',
      distribution_arg_name := 'tenant_id', colocate_with := 'announcements',
      force_delegation := true);
    PERFORM create_distributed_function(
      'ca_announcement_update(bigint, bigint, bigint, text, text, text, text, smallint, text, '
      'boolean, boolean, timestamptz, timestamptz, text, text, text, jsonb, text, text, text, '
      'text, text, jsonb, boolean, jsonb)',
      distribution_arg_name := 'tenant_id', colocate_with := 'announcements',
      force_delegation := true);
    PERFORM create_distributed_function(
      'ca_announcement_archive(bigint, bigint, jsonb)',
      distribution_arg_name := 'tenant_id', colocate_with := 'announcements',
      force_delegation := true);
    PERFORM create_distributed_function(
      'ca_webhook_rotate_secret(bigint, bigint, text, integer, jsonb)',
      distribution_arg_name := 'tenant_id', colocate_with := 'webhooks',
      force_delegation := true);
    PERFORM create_distributed_function(
      'ca_api_key_revoke(bigint, bigint, jsonb)',
      distribution_arg_name := 'tenant_id', colocate_with := 'api_keys',
      force_delegation := true);
    PERFORM create_distributed_function(
      'ca_webhook_delete(bigint, bigint, jsonb)',
      distribution_arg_name := 'tenant_id', colocate_with := 'webhooks',
      force_delegation := true);
    PERFORM create_distributed_function(
      'ca_invitation_revoke(bigint, bigint, jsonb)',
      distribution_arg_name := 'tenant_id', colocate_with := 'invitations',
      force_delegation := true);
  END IF;
END $$;
