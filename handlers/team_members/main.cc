// commerce-admin-team-members: list, change role, remove; invitations (the
// only way to add a member) and their acceptance.
#include "invitations.h"
#include "members.h"
#include "serve.h"

int main(int argc, char** argv) {
  return ca::serve_main(
      argc, argv, "commerce-admin-team-members",
      {
          {"GET", "/api/v2/admin/team-members/{tenantId}", ca::members_list},
          {"POST", "/api/v2/admin/team-members/{tenantId}", ca::invitations_create,
           ca::kIdempotent},
          {"GET", "/api/v2/admin/team-members/{tenantId}/invitations", ca::invitations_list},
          {"DELETE", "/api/v2/admin/team-members/{tenantId}/invitations/{id}",
           ca::invitations_revoke},
          {"POST", "/api/v2/admin/team-members/{tenantId}/{userId}", ca::members_update_role},
          {"DELETE", "/api/v2/admin/team-members/{tenantId}/{userId}", ca::members_remove},
          {"POST", "/api/v2/admin/invitations/accept", ca::invitations_accept},
      });
}
