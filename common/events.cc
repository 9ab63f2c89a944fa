#include "events.h"

namespace ca {
namespace {

const Statement kEmit{
    "events_emit",
    "WITH e AS ("
    "  INSERT INTO events (tenant_id, type, payload) VALUES ($1, $2, $3::jsonb)"
    "  RETURNING tenant_id, id, type) "
    "INSERT INTO webhook_deliveries (tenant_id, webhook_id, event_id, event, url) "
    "SELECT e.tenant_id, w.id, e.id, e.type, w.url FROM e "
    "JOIN webhooks w ON w.tenant_id = e.tenant_id AND w.is_active "
    " AND (w.events @> jsonb_build_array(e.type) OR w.events @> '[\"*\"]')"};

}  // namespace

DbResult emit_event(Db& db, int64_t tenant_id, std::string_view type, const cJSON* data) {
  return db.exec(kEmit, {tenant_id, type, json_dump(data)});
}

}  // namespace ca
