// commerce-admin-webhooks: webhook subscriptions of a tenant, their
// delivery records and the tenant's events feed. Deliveries themselves are
// made by commerce-admin-worker.
#include "serve.h"
#include "webhooks.h"

int main(int argc, char** argv) {
  return ca::serve_main(
      argc, argv, "commerce-admin-webhooks",
      {
          {"GET", "/api/v2/admin/webhooks/{tenantId}", ca::webhooks_list, ca::Scope::kWebhooksRead},
          {"POST", "/api/v2/admin/webhooks/{tenantId}", ca::webhooks_create,
           ca::Scope::kWebhooksWrite, ca::kIdempotent},
          {"DELETE", "/api/v2/admin/webhooks/{tenantId}", ca::webhooks_delete,
           ca::Scope::kWebhooksWrite},
          {"POST", "/api/v2/admin/webhooks/{tenantId}/{id}", ca::webhooks_update,
           ca::Scope::kWebhooksWrite},
          {"POST", "/api/v2/admin/webhooks/{tenantId}/{id}/rotate-secret",
           ca::webhooks_rotate_secret, ca::Scope::kWebhooksWrite},
          {"POST", "/api/v2/admin/webhooks/{tenantId}/{id}/test", ca::webhooks_send_test,
           ca::Scope::kWebhooksWrite, ca::kIdempotent},
          {"GET", "/api/v2/admin/webhooks/{tenantId}/deliveries", ca::deliveries_list,
           ca::Scope::kWebhooksRead},
          {"POST", "/api/v2/admin/webhooks/{tenantId}/deliveries/{id}/redeliver",
           ca::deliveries_redeliver, ca::Scope::kWebhooksWrite, ca::kIdempotent},
          {"GET", "/api/v2/admin/events/{tenantId}", ca::events_feed, ca::Scope::kEventsRead},
      });
}
