// Team invitations (DESIGN §4 "Team members", issue 26): how anyone becomes a
// member of a tenant they did not create. An ADMIN invites an email with a
// role and gets a one-time token; the invitee accepts with it, and only then
// is the membership added, `users.tenant_id` set and `user.registered`
// emitted. The invite answers the same whether or not the email has an
// account, so it reveals nothing about accounts.
#pragma once

#include "router.h"

namespace ca {

// POST /team-members/{tenantId} (ADMIN): 201 {invitation, token}.
Response invitations_create(Ctx& ctx);
// GET /team-members/{tenantId}/invitations (ADMIN): paginated, newest first.
Response invitations_list(Ctx& ctx);
// DELETE /team-members/{tenantId}/invitations/{id} (ADMIN): 200 {message, invitation}.
Response invitations_revoke(Ctx& ctx);
// POST /invitations/accept: {token} with the invitee's bearer token, or
// {token, name, password} without one to create the invited account.
Response invitations_accept(Ctx& ctx);

}  // namespace ca
