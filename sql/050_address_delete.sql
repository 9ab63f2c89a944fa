-- Deleting an address (DELETE /api/v2/admin/addresses/{id}): an address
-- no order names is deleted; one that orders name stays for them, marked
-- deleted_at, and is no longer listed, counted against
-- ADDRESSES_MAX_PER_USER or accepted for a new order
-- (docs/decisions/0051-address-delete.md). Without it a user at the cap
-- could never add another.

SET LOCAL lock_timeout = '10s';
SET LOCAL citus.multi_shard_modify_mode = 'sequential';

ALTER TABLE addresses ADD COLUMN deleted_at timestamptz;

-- True when the caller's live address `p_id` was deleted or marked; false
-- when the caller has no such live address. The orders' foreign key
-- decides which: the plain delete fails on an address an order names, and
-- the block's savepoint takes that back before the mark.
CREATE FUNCTION ca_address_delete(p_user bigint, p_id bigint) RETURNS boolean
LANGUAGE plpgsql AS $$
BEGIN
  BEGIN
    DELETE FROM addresses WHERE user_id = p_user AND id = p_id AND deleted_at IS NULL;
    RETURN FOUND;
  EXCEPTION WHEN foreign_key_violation THEN
    UPDATE addresses SET deleted_at = now()
    WHERE user_id = p_user AND id = p_id AND deleted_at IS NULL;
    RETURN FOUND;
  END;
END
$$;
