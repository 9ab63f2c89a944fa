#include "events.h"

namespace ca {
namespace {

const Statement kEmit{"events_emit",
                      "WITH new_events AS ("
                      "  INSERT INTO events (tenant_id, type, payload) VALUES ($1, $2, $3::jsonb)"
                      "  RETURNING tenant_id, id, type) " CA_DELIVERIES_FOR_NEW_EVENTS("$1")};

}  // namespace

Db::Query event_query(int64_t tenant_id, std::string_view type, const cJSON* data) {
  return {&kEmit, {tenant_id, type, json_dump(data)}};
}

}  // namespace ca
