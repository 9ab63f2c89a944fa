-- A push whose worker died while sending is taken over once its lease runs
-- out, but only while the announcement is published with push on
-- (announcements_push_idx). Archived, or with push turned off, in the
-- meantime, it was left 'sending' for ever; the worker now fails it
-- (handlers/worker/announcements_tasks.cc, kPushAbandoned). Only rows being
-- sent are in this index, so the check costs nothing per pass.
CREATE INDEX announcements_sending_idx ON announcements (push_lease_until)
  WHERE push_status = 'sending';
