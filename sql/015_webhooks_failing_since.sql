-- When the subscription's last finished attempt failed (NULL while it
-- succeeds). The worker sends a failing subscription one row at a time
-- instead of four (handlers/worker/webhook_tasks.cc), so receivers that hang
-- hold one slot each once their first attempts have timed out. Written only
-- when the state changes.
ALTER TABLE webhooks ADD COLUMN failing_since timestamptz;
