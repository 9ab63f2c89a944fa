// The transactional outbox: record a domain event in the caller's transaction.
//
// event_query() inserts the event and, in the same statement, one pending
// delivery row per active webhook subscription of the tenant whose event
// list names the type (or "*"). Called inside the transaction that makes the
// change, an event is therefore never lost and never fanned out twice; the
// worker only delivers rows that already exist.
#pragma once

#include <cstdint>
#include <string_view>

#include "db.h"
#include "json.h"

// The fan-out as SQL, for a statement that writes its own events: given a
// CTE `new_events (tenant_id, id, type)` of inserted events, all of the tenant
// `TENANT` (a parameter, "$1"), one pending delivery per matching active
// subscription. event_query() uses it too. `w.tenant_id = TENANT` is what
// makes Citus send the whole statement to the tenant's shard (a router
// query); joined on `e.tenant_id` alone it ran on every shard.
#define CA_DELIVERIES_FOR_NEW_EVENTS(TENANT)                                      \
  "INSERT INTO webhook_deliveries (tenant_id, webhook_id, event_id, event, url) " \
  "SELECT e.tenant_id, w.id, e.id, e.type, w.url FROM new_events e "              \
  "JOIN webhooks w ON w.tenant_id = " TENANT                                      \
  " AND w.tenant_id = e.tenant_id "                                               \
  " AND w.is_active "                                                             \
  " AND (w.events @> jsonb_build_array(e.type) OR w.events @> '[\"*\"]')"

// A write statement that records its own events (one round trip: see
// common/request_tx.h): the CTEs `new_events`, the events of tenant `TENANT` (a
// parameter) that `SELECT` (a query with the columns tenant_id, type,
// payload as jsonb) yields, and `new_deliveries`, their deliveries. For
// `WITH ..., " CA_EVENTS_CTE("$1", "SELECT ... FROM o") " SELECT ...`.
#define CA_EVENTS_CTE(TENANT, SELECT)                                    \
  "new_events AS (INSERT INTO events (tenant_id, type, payload) " SELECT \
  " RETURNING tenant_id, id, type), new_deliveries AS (" CA_DELIVERIES_FOR_NEW_EVENTS(TENANT) ")"

// CA_EVENTS_CTE for a write that records its audit entry in the same
// statement (common/audit.h, CA_AUDIT_CTE, which must come first): each
// event also gets the entry's actor when that is an API key, `{type, id,
// name}` as the audit log shows it; a write made with a session leaves it
// NULL (docs/design/events.md "Actor").
#define CA_AUDITED_EVENTS_CTE(TENANT, SELECT)                            \
  "new_events AS (INSERT INTO events (tenant_id, type, payload, actor) " \
  "SELECT ev.*, " CA_EVENT_ACTOR_OF_AUDIT_ENTRIES                        \
  " "                                                                    \
  "FROM (" SELECT                                                        \
  ") AS ev (tenant_id, type, payload) "                                  \
  "RETURNING tenant_id, id, type), new_deliveries AS (" CA_DELIVERIES_FOR_NEW_EVENTS(TENANT) ")"

// The events' `actor` of a statement with an audit CTE `audit_entries`: its actor when
// that is an API key, else NULL.
#define CA_EVENT_ACTOR_OF_AUDIT_ENTRIES                                         \
  "(SELECT jsonb_build_object('type', a.actor_type, 'id', a.actor_id, 'name', " \
  "  a.actor_name) FROM audit_entries a WHERE a.actor_type = 'api_key' LIMIT 1)"

namespace ca {

// The event as a query to send with others (a pipeline, send_last(), common/request_tx.h).
Db::Query event_query(int64_t tenant_id, std::string_view type, const cJSON* data);

}  // namespace ca
