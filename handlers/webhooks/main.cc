// commerce-admin-webhooks: webhook subscriptions of a tenant and their
// delivery records. Deliveries themselves are made by commerce-admin-worker.
#include "serve.h"
#include "webhooks.h"

int main(int argc, char** argv) {
  return ca::serve_main(
      argc, argv, "commerce-admin-webhooks",
      {
          {"GET", "/api/v2/admin/webhooks/{tenantId}", ca::webhooks_list},
          {"POST", "/api/v2/admin/webhooks/{tenantId}", ca::webhooks_create, ca::kIdempotent},
          {"DELETE", "/api/v2/admin/webhooks/{tenantId}", ca::webhooks_delete},
          {"GET", "/api/v2/admin/webhooks/{tenantId}/deliveries", ca::deliveries_list},
      });
}
