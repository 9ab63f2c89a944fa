-- Issue 41: the events feed and webhook operations (update, secret
-- rotation, redelivery, test events, automatic disabling). README "Events"
-- and "Webhook deliveries"; decisions 0100-0104.

SET LOCAL lock_timeout = '10s';
-- Citus: DDL over the shards one connection per worker, so that the
-- statements after it may run in the same transaction.
SET LOCAL citus.multi_shard_modify_mode = 'sequential';

-- One EXECUTE per command: Citus sends a DDL command's own query text to the
-- workers, and a migration's text holds many commands (sql/032, sql/037).
--
-- events_tenant_type_idx: the feed filtered by type
-- (handlers/webhooks/events_feed.cc): per type asked for, the tenant's
-- events of that type after the cursor, in id order, read straight off this
-- index (a LATERAL probe per type). The feed without a filter reads the
-- primary key (tenant_id, id). One more index entry per event written: the
-- outbox insert is on every write, and this is its only added cost
-- (decision 0100).
--
-- previous_secret, previous_secret_until: secret rotation. The secret it
-- replaced signs beside the new one until previous_secret_until (24 h after
-- the rotation), so a receiver can move to the new secret without losing a
-- delivery. NULL outside a rotation.
--
-- disabled_at, disabled_reason: set when the subscription is disabled
-- (is_active false while not deleted), automatically by the worker after a
-- run of failures, or by an ADMIN's update; both NULL while it is enabled.
--
-- webhooks_failing_idx: the worker's disabling pass looks for active
-- subscriptions failing for long (handlers/worker/webhook_tasks.cc,
-- kDisableCandidates); only those that fail are in this index.
--
-- redelivery_of: a redelivery repeats the message of an earlier delivery:
-- the id of the delivery whose webhook-id it sends again (the first one, for
-- a redelivery of a redelivery), so receivers deduplicate it. NULL for a
-- delivery made by an event.
DO $$
DECLARE
  command text;
BEGIN
  FOREACH command IN ARRAY ARRAY[
    'CREATE INDEX events_tenant_type_idx ON events (tenant_id, type, id)',
    'ALTER TABLE webhooks ADD COLUMN previous_secret text',
    'ALTER TABLE webhooks ADD COLUMN previous_secret_until timestamptz',
    'ALTER TABLE webhooks ADD COLUMN disabled_at timestamptz',
    'ALTER TABLE webhooks ADD COLUMN disabled_reason text',
    'CREATE INDEX webhooks_failing_idx ON webhooks (failing_since) '
      'WHERE is_active AND failing_since IS NOT NULL',
    'ALTER TABLE webhook_deliveries ADD COLUMN redelivery_of bigint']
  LOOP
    EXECUTE command;
  END LOOP;
END
$$;

-- The subscription (DESIGN §8 "Webhook operations"), without its secret.
-- An overload of sql/030's six-argument one, which handlers of the previous
-- release still call while a deploy replaces them.
CREATE FUNCTION ca_webhook_json(id bigint, url text, events jsonb, description text,
                                is_active boolean, disabled_at timestamptz,
                                disabled_reason text, created_at timestamptz,
                                updated_at timestamptz)
RETURNS text LANGUAGE plpgsql IMMUTABLE PARALLEL SAFE AS $$
BEGIN
  RETURN '{"id":' || id
    || ',"url":' || to_json(url)
    || ',"events":' || COALESCE(ca_json_compact(events), '[]')
    || ',"description":' || COALESCE(to_json(description)::text, 'null')
    || ',"is_active":' || CASE WHEN is_active THEN 'true' ELSE 'false' END
    || ',"disabled_at":' || ca_json_timestamp(disabled_at)
    || ',"disabled_reason":' || COALESCE(to_json(disabled_reason)::text, 'null')
    || ',"created_at":' || ca_json_timestamp(created_at)
    || ',"updated_at":' || ca_json_timestamp(updated_at) || '}';
END $$;

-- A delivery record (DESIGN §5) with `redelivery_of`. `message_id` is the
-- webhook-id header the worker sends (common/webhook_signature.h): a
-- redelivery sends the message id of the delivery it repeats. An overload
-- of sql/030's, as above.
CREATE FUNCTION ca_delivery_json(
  tenant_id bigint, id bigint, webhook_id bigint, event_id bigint, event text, url text,
  status text, attempts integer, next_attempt_at timestamptz, last_attempt_at timestamptz,
  response_status integer, error text, created_at timestamptz, delivered_at timestamptz,
  redelivery_of bigint)
RETURNS text LANGUAGE plpgsql IMMUTABLE PARALLEL SAFE AS $$
BEGIN
  RETURN '{"id":' || id
    || ',"webhook_id":' || webhook_id
    || ',"event_id":' || event_id
    || ',"message_id":"msg_' || tenant_id || '_' || COALESCE(redelivery_of, id)
    || '","redelivery_of":' || COALESCE(redelivery_of::text, 'null')
    || ',"event":' || to_json(event)
    || ',"url":' || to_json(url)
    || ',"status":' || to_json(status)
    || ',"attempts":' || attempts
    || ',"next_attempt_at":' || ca_json_timestamp(next_attempt_at)
    || ',"last_attempt_at":' || ca_json_timestamp(last_attempt_at)
    || ',"response_status":' || COALESCE(response_status::text, 'null')
    || ',"error":' || COALESCE(to_json(error)::text, 'null')
    || ',"created_at":' || ca_json_timestamp(created_at)
    || ',"delivered_at":' || ca_json_timestamp(delivered_at) || '}';
END $$;

-- An event of the feed: the same `data` as the webhook body's (the payload
-- printed compact, as the worker prints it).
CREATE FUNCTION ca_event_json(id bigint, type text, created_at timestamptz, payload jsonb)
RETURNS text LANGUAGE plpgsql IMMUTABLE PARALLEL SAFE AS $$
BEGIN
  RETURN '{"id":' || id
    || ',"type":' || to_json(type)
    || ',"created_at":' || ca_json_timestamp(created_at)
    || ',"data":' || COALESCE(ca_json_compact(payload), 'null') || '}';
END $$;

SELECT ca_distribute_all();
