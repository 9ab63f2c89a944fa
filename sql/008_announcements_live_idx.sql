-- The active list read every published row of the tenant and dropped the
-- expired ones afterwards; published-and-expired rows only accumulate, so it
-- grew with the tenant's history. This index holds a published row under its
-- expiry (never-expiring rows under 'infinity'), so the active list reads
-- only the rows that have not expired yet, a few however long the history.
CREATE INDEX announcements_live_idx ON announcements
  (tenant_id, (COALESCE(expires_at, 'infinity'::timestamptz))) WHERE status = 'published';
DROP INDEX announcements_active_idx;
