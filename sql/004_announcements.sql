-- Announcements (docs/openapi.yaml "Announcement", docs/design/api-conventions.md
-- "Announcements") and the
-- per-user read records. Both are tenant-owned and keyed by tenant first; a
-- read record can only point at an announcement of its own tenant because the
-- reference is a composite foreign key.

CREATE TABLE announcements (
  tenant_id            bigint NOT NULL REFERENCES tenants (id) ON DELETE CASCADE,
  id                   bigserial,
  title                text NOT NULL CHECK (char_length(title) BETWEEN 1 AND 255),
  summary              text NOT NULL DEFAULT '' CHECK (char_length(summary) <= 500),
  content              text NOT NULL DEFAULT '',
  type                 text NOT NULL CHECK (type IN ('info', 'warning', 'success', 'alert')),
  priority             smallint NOT NULL DEFAULT 0 CHECK (priority IN (0, 1)),
  status               text NOT NULL
                       CHECK (status IN ('draft', 'scheduled', 'published', 'archived')),
  is_push_enabled      boolean NOT NULL DEFAULT false,
  is_public            boolean NOT NULL DEFAULT false,
  scheduled_at         timestamptz,
  expires_at           timestamptz,
  topic                text CHECK (char_length(topic) <= 100),
  push_title           text CHECK (char_length(push_title) <= 100),
  push_body            text CHECK (char_length(push_body) <= 200),
  push_data            jsonb CHECK (jsonb_typeof(push_data) = 'object'),
  target_type          text NOT NULL DEFAULT 'all' CHECK (target_type IN ('topic', 'all', 'users')),
  target_value         text,
  -- pending -> sending -> success | failed; skipped when push is off
  -- (docs/decisions/0280-push-status.md).
  push_status          text NOT NULL DEFAULT 'pending'
                       CHECK (push_status IN ('pending', 'sending', 'success', 'failed', 'skipped')),
  push_error           text,
  -- The worker's claim on a push being sent: who holds it and until when.
  -- A claim past its lease (a killed worker) is taken over by the next pass.
  push_claim           uuid,
  push_lease_until     timestamptz,
  sent_at              timestamptz,
  attachment_type      text CHECK (attachment_type IN ('image', 'link', 'button')),
  attachment_url       text,
  attachment_metadata  jsonb CHECK (jsonb_typeof(attachment_metadata) = 'object'),
  created_by           bigint NOT NULL REFERENCES users (id),
  published_at         timestamptz,
  created_at           timestamptz NOT NULL DEFAULT now(),
  updated_at           timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (tenant_id, id),
  CHECK (status <> 'scheduled' OR scheduled_at IS NOT NULL),
  CHECK (attachment_type IS NULL OR attachment_url IS NOT NULL)
);

-- The paginated list, newest first.
CREATE INDEX announcements_list_idx ON announcements (tenant_id, created_at DESC, id DESC);
-- The active list: published rows of a tenant in display order; the time
-- conditions are checked on these few rows.
CREATE INDEX announcements_active_idx ON announcements
  (tenant_id, priority DESC, created_at DESC, id DESC) WHERE status = 'published';
-- The worker: scheduled rows that fall due, and pushes to send or reclaim.
CREATE INDEX announcements_due_idx ON announcements (scheduled_at) WHERE status = 'scheduled';
CREATE INDEX announcements_push_idx ON announcements (push_lease_until)
  WHERE status = 'published' AND is_push_enabled AND push_status IN ('pending', 'sending');
CREATE INDEX announcements_created_by_idx ON announcements (created_by);

-- One row per (announcement, user) once the user read or dismissed it.
CREATE TABLE announcement_reads (
  tenant_id        bigint NOT NULL,
  announcement_id  bigint NOT NULL,
  user_id          bigint NOT NULL REFERENCES users (id) ON DELETE CASCADE,
  read_at          timestamptz NOT NULL DEFAULT now(),
  dismissed        boolean NOT NULL DEFAULT false,
  dismissed_at     timestamptz,
  created_at       timestamptz NOT NULL DEFAULT now(),
  updated_at       timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (tenant_id, announcement_id, user_id),
  FOREIGN KEY (tenant_id, announcement_id) REFERENCES announcements (tenant_id, id)
    ON DELETE CASCADE,
  CHECK (dismissed = (dismissed_at IS NOT NULL))
);
CREATE INDEX announcement_reads_user_idx ON announcement_reads (user_id);
