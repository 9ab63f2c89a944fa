-- Team invitations (docs/design/api-conventions.md "Team members", issue 26): an ADMIN invites an
-- email with a role; the invitee accepts with the one-time token and only
-- then becomes a member. Tenant-owned like the rest (keyed (tenant_id, id));
-- every statement on it names the tenant: the token itself carries the
-- tenant and invitation ids, so even the accept looks up one row by key.
--
-- The token's secret part is never stored, only its SHA-256 (token_hash).
-- status is what happened to the invitation; an invitation that is still
-- 'pending' after expires_at is shown as 'expired' and can no longer be
-- accepted (no job has to flip it).

CREATE TABLE invitations (
  tenant_id    bigint NOT NULL REFERENCES tenants (id) ON DELETE CASCADE,
  id           bigserial,
  email        text NOT NULL CHECK (char_length(email) BETWEEN 3 AND 254),
  role         text NOT NULL CHECK (role IN ('ADMIN', 'MEMBER')),
  token_hash   bytea NOT NULL CHECK (octet_length(token_hash) = 32),
  status       text NOT NULL DEFAULT 'pending'
               CHECK (status IN ('pending', 'accepted', 'revoked')),
  invited_by   bigint NOT NULL REFERENCES users (id),
  expires_at   timestamptz NOT NULL,
  created_at   timestamptz NOT NULL DEFAULT now(),
  accepted_at  timestamptz,
  revoked_at   timestamptz,
  PRIMARY KEY (tenant_id, id),
  CHECK ((status = 'accepted') = (accepted_at IS NOT NULL)),
  CHECK ((status = 'revoked') = (revoked_at IS NOT NULL))
);

-- The list, newest first.
CREATE INDEX invitations_list_idx ON invitations (tenant_id, created_at DESC, id DESC);
-- A new invitation replaces the email's pending one (handlers/team_members/invitations.cc).
CREATE INDEX invitations_pending_email_idx ON invitations (tenant_id, lower(email))
  WHERE status = 'pending';
