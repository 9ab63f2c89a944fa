// The event types a subscription may name (docs/design/events.md).
// docs/reference/events.md says which operation emits each one.
#include <string_view>

#include "webhooks.h"

namespace ca {
namespace {

constexpr std::string_view kEventTypes[] = {
    "*",
    "user.registered",
    "member.role_updated",
    "member.removed",
    "order.created",
    "order.status_changed",
    "order.completed",
    "order.cancelled",
    "product.created",
    "product.updated",
    "product.deleted",
    "category.created",
    "announcement.published",
};

}  // namespace

size_t event_type_count() { return std::size(kEventTypes); }

bool event_type_known(std::string_view type) {
  for (std::string_view known : kEventTypes) {
    if (type == known) return true;
  }
  return false;
}

}  // namespace ca
