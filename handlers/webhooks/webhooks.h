// Webhook endpoints (docs/openapi.yaml, docs/design/api-conventions.md "Webhooks",
// docs/design/events.md).
//
// Every operation needs the ADMIN role of the path tenant: subscriptions and
// their delivery records reveal integration details (target URLs, receiver
// errors) that members have no need to see.
#pragma once

#include <string_view>

#include "router.h"

namespace ca {

Result<Response> webhooks_list(Ctx& ctx);
Result<Response> webhooks_create(Ctx& ctx);
Result<Response> webhooks_delete(Ctx& ctx);
Result<Response> deliveries_list(Ctx& ctx);

// True for the event types of docs/design/events.md and for "*" (every type).
bool event_type_known(std::string_view type);
// How many names event_type_known() accepts ("*" included).
size_t event_type_count();

}  // namespace ca
