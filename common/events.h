// The transactional outbox: record a domain event in the caller's transaction.
//
// emit_event() inserts the event and, in the same statement, one pending
// delivery row per active webhook subscription of the tenant whose event
// list names the type (or "*"). Called inside the transaction that makes the
// change, an event is therefore never lost and never fanned out twice; the
// worker only delivers rows that already exist.
#pragma once

#include <cstdint>
#include <string_view>

#include "db.h"
#include "json.h"

namespace ca {

DbResult emit_event(Db& db, int64_t tenant_id, std::string_view type, const cJSON* data);

}  // namespace ca
