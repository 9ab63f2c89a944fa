// commerce-admin-tenants: the caller's tenants; create, read, update; a
// tenant's audit log; a tenant's API keys.
#include "api_keys.h"
#include "audit_log.h"
#include "serve.h"
#include "tenants.h"

int main(int argc, char** argv) {
  return ca::serve_main(
      argc, argv, "commerce-admin-tenants",
      {
          {"GET", "/api/v2/admin/tenants", ca::tenants_list},
          {"POST", "/api/v2/admin/tenants", ca::tenants_create, ca::kIdempotent},
          {"GET", "/api/v2/admin/tenants/{tenantId}", ca::tenants_read},
          {"POST", "/api/v2/admin/tenants/{tenantId}", ca::tenants_update},
          {"GET", "/api/v2/admin/audit-log/{tenantId}", ca::audit_log_list, ca::Scope::kAuditRead},
          // ADMIN with a session: no scope, so no API key.
          {"POST", "/api/v2/admin/api-keys/{tenantId}", ca::api_keys_create},
          {"GET", "/api/v2/admin/api-keys/{tenantId}", ca::api_keys_list},
          {"DELETE", "/api/v2/admin/api-keys/{tenantId}/{id}", ca::api_keys_revoke},
      });
}
