// commerce-admin-tenants: the caller's tenants; create, read, update.
#include "serve.h"
#include "tenants.h"

int main(int argc, char** argv) {
  return ca::serve_main(argc, argv, "commerce-admin-tenants",
                        {
                            {"GET", "/api/v2/admin/tenants", ca::tenants_list},
                            {"POST", "/api/v2/admin/tenants", ca::tenants_create, ca::kIdempotent},
                            {"GET", "/api/v2/admin/tenants/{tenantId}", ca::tenants_read},
                            {"POST", "/api/v2/admin/tenants/{tenantId}", ca::tenants_update},
                        });
}
