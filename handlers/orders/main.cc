// commerce-admin-orders: orders (create, read, list, status) and the caller's addresses.
#include "order_json.h"
#include "orders.h"
#include "serve.h"

int main(int argc, char** argv) {
  return ca::serve_main(
      argc, argv, "commerce-admin-orders",
      {
          // A person's own addresses, and placing an order (an order belongs
          // to the user who places it): no scope, no API key.
          {"GET", "/api/v2/admin/addresses", ca::addresses_list},
          {"POST", "/api/v2/admin/addresses", ca::addresses_create, ca::kIdempotent},
          {"DELETE", "/api/v2/admin/addresses/{id}", ca::addresses_delete},
          // Every error of an orders operation, from any layer, is rendered
          // in kOrderStyle (docs/openapi.yaml); addresses are plain.
          {"GET", "/api/v2/admin/orders", ca::orders_list, ca::Scope::kOrdersRead, ca::kOrderStyle},
          {"POST", "/api/v2/admin/orders", ca::orders_create, ca::kIdempotent, ca::kOrderStyle},
          {"GET", "/api/v2/admin/orders/{id}", ca::orders_read, ca::Scope::kOrdersRead,
           ca::kOrderStyle},
          {"POST", "/api/v2/admin/orders/{id}/status", ca::orders_update_status,
           ca::Scope::kOrdersWrite, ca::kIdempotent, ca::kOrderStyle},
      });
}
