// Team invitations (docs/decisions/0238-team-invitations.md, issue 26): how anyone becomes a
// member of a tenant they did not create. An ADMIN invites an email with a
// role; the one-time token goes to the invitee by mail when mail is
// configured (docs/decisions/0098-invitations-by-mail.md), else to the
// inviting ADMIN in the answer. The invitee accepts with it, and only then
// is the membership added, `users.tenant_id` set and `user.registered`
// emitted. The invite answers the same whether or not the email has an
// account, so it reveals nothing about accounts.
#pragma once

#include "router.h"

namespace ca {

// POST /team-members/{tenantId} (ADMIN): 201 {invitation}, and `token`
// without mail configured.
Result<Response> invitations_create(Ctx& ctx);
// GET /team-members/{tenantId}/invitations (ADMIN): paginated, newest first.
Result<Response> invitations_list(Ctx& ctx);
// DELETE /team-members/{tenantId}/invitations/{id} (ADMIN): 200 {message, invitation}.
Result<Response> invitations_revoke(Ctx& ctx);
// POST /invitations/accept: {token} with the invitee's bearer token, or
// {token, name, password} without one to create the invited account.
Result<Response> invitations_accept(Ctx& ctx);

}  // namespace ca
