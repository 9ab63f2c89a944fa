// commerce-admin-team-members: list, add, change role, remove.
#include "members.h"
#include "serve.h"

int main(int argc, char** argv) {
  return ca::serve_main(
      argc, argv, "commerce-admin-team-members",
      {
          {"GET", "/api/v2/admin/team-members/{tenantId}", ca::members_list},
          {"POST", "/api/v2/admin/team-members/{tenantId}", ca::members_add, ca::kIdempotent},
          {"POST", "/api/v2/admin/team-members/{tenantId}/{userId}", ca::members_update_role},
          {"DELETE", "/api/v2/admin/team-members/{tenantId}/{userId}", ca::members_remove},
      });
}
