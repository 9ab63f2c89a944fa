// Webhook endpoints (docs/openapi.yaml, docs/design/api-conventions.md "Webhooks",
// docs/design/events.md).
//
// Every operation needs the ADMIN role of the path tenant: subscriptions and
// their delivery records reveal integration details (target URLs, receiver
// errors) that members have no need to see. The events feed
// (GET /events/{tenantId}) is served here too: it is the outbox the
// deliveries are made from.
#pragma once

#include <string_view>

#include "db.h"
#include "router.h"

namespace ca {

// A delivery record as JSON (sql/045), in a statement on webhook_deliveries
// (RETURNING or SELECT): `next_attempt_at` only while pending.
#define CA_DELIVERY_JSON                                                          \
  "ca_delivery_json(tenant_id => tenant_id, id => id, webhook_id => webhook_id, " \
  "event_id => event_id, event => event, url => url, status => status, "          \
  "attempts => attempts, "                                                        \
  "next_attempt_at => CASE WHEN status = 'pending' THEN next_attempt_at END, "    \
  "last_attempt_at => last_attempt_at, response_status => response_status, "      \
  "error => error, created_at => created_at, delivered_at => delivered_at, "      \
  "redelivery_of => redelivery_of) AS json"

// Redeliveries and test events of a subscription stop at
// WEBHOOK_RESEND_MAX_PENDING pending deliveries (decision 0103), counted
// after the subscription's row is locked, in a statement of its own, so that
// the count sees every delivery another redelivery or test committed before
// (ca_webhook_test(), ca_webhook_redeliver(): sql/063).
inline constexpr std::string_view kPendingLimitWhat = "pending deliveries per webhook subscription";
inline constexpr std::string_view kPendingLimitSetting = "WEBHOOK_RESEND_MAX_PENDING";

Result<Response> webhooks_list(Ctx& ctx);
Result<Response> webhooks_create(Ctx& ctx);
Result<Response> webhooks_delete(Ctx& ctx);
Result<Response> webhooks_update(Ctx& ctx);
Result<Response> webhooks_rotate_secret(Ctx& ctx);
Result<Response> webhooks_send_test(Ctx& ctx);
Result<Response> deliveries_list(Ctx& ctx);
Result<Response> deliveries_redeliver(Ctx& ctx);
Result<Response> events_feed(Ctx& ctx);

// True for the event types of docs/design/events.md and for "*" (every type).
bool event_type_known(std::string_view type);
// How many names event_type_known() accepts ("*" included).
size_t event_type_count();

}  // namespace ca
