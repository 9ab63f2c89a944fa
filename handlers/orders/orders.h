// Order and address endpoints (docs/openapi.yaml, docs/design/api-conventions.md "Orders" and
// "Addresses"). Orders are T operations: they need `X-Tenant-ID` and
// membership (any role). Addresses belong to the caller, not to a tenant.
#pragma once

#include <array>
#include <string>
#include <string_view>

#include "router.h"

namespace ca {

// The statuses of an order, in the order it moves through them; the CHECK
// on orders.status (sql/003) allows exactly these, and
// tests/unit/sql_agreement_test.cc compares the two.
inline constexpr std::array<std::string_view, 4> kOrderStatuses = {"pending", "processing",
                                                                   "completed", "cancelled"};

inline bool order_status_known(std::string_view status) {
  for (std::string_view s : kOrderStatuses) {
    if (s == status) return true;
  }
  return false;
}

// "pending, processing, completed or cancelled".
inline std::string order_statuses_text() {
  std::string out;
  for (size_t i = 0; i < kOrderStatuses.size(); ++i) {
    if (i > 0) out += i + 1 == kOrderStatuses.size() ? " or " : ", ";
    out += kOrderStatuses[i];
  }
  return out;
}

Result<Response> addresses_create(Ctx& ctx);
Result<Response> addresses_list(Ctx& ctx);
Result<Response> addresses_delete(Ctx& ctx);

Result<Response> orders_create(Ctx& ctx);
Result<Response> orders_read(Ctx& ctx);
Result<Response> orders_list(Ctx& ctx);
Result<Response> orders_update_status(Ctx& ctx);

}  // namespace ca
