// The audit log (sql/056): one entry per successful write through the API,
// written by the write's own statement or pipeline, so it commits or rolls
// back with the write and costs no round trip of its own.
//
// A write statement records its entry with CA_AUDIT_CTE; a write sent as a
// pipeline of statements (send_last(), common/request_tx.h) adds audit_query(). Both take
// the caller as audit_who(ctx, who): the user or API key that writes (the
// actor's name is read in the statement and stored as it is then) and the
// request id the response carries as X-Request-Id.
//
//   WITH p AS (UPDATE ... RETURNING ...), CA_AUDIT_CTE("$1", "$9",
//     "SELECT 'product.updated', 'product', p.id, ca_changed(...) FROM p") SELECT ...
//
// `changed` is the list of the API's field names an update changed, found
// by ca_changed(before, after, fields) over the record's JSON before and
// after (sql/056); NULL for actions that are not updates. Stateless.
#pragma once

#include <cstdint>
#include <initializer_list>
#include <string>
#include <string_view>

#include "auth.h"
#include "db.h"
#include "router.h"

// The actor of an entry, as rows (type, id, name): the API key when WHO (a
// parameter made by audit_who()) names one, else its user. Read when the
// entry is written: a later rename does not change the entry.
#define CA_AUDIT_ACTOR(TENANT, WHO)                   \
  "SELECT 'user' AS type, u.id, u.name FROM users u " \
  "WHERE u.id = (" WHO                                \
  "::jsonb ->> 'user_id')::bigint "                   \
  "  AND (" WHO                                       \
  "::jsonb ->> 'api_key_id')::bigint = 0 "            \
  "UNION ALL "                                        \
  "SELECT 'api_key', k.id, k.name FROM api_keys k "   \
  "WHERE k.tenant_id = " TENANT " AND k.id = (" WHO "::jsonb ->> 'api_key_id')::bigint"

// A CTE `audit_entries` of a write statement: the audit entries of tenant TENANT (a
// parameter, "$1") that SELECT yields, a query with the columns action,
// target_type, target_id, changed (text[] or NULL), one row per entry
// (none when the write wrote nothing), by the actor ACTOR yields (a query
// of one row: type, id, name), with WHO's request id. The columns
// actor_type, actor_id and actor_name of `audit_entries` are its entries' actor
// (events.h, CA_AUDITED_EVENTS_CTE). An actor not found leaves its name
// NULL, which the table refuses: a write is never left without its entry.
#define CA_AUDIT_CTE_AS(TENANT, WHO, ACTOR, SELECT)                                                \
  "audit_entries AS (INSERT INTO audit_log (tenant_id, action, actor_type, actor_id, actor_name, " \
  "  target_type, target_id, changed, request_id) "                                                \
  "SELECT " TENANT                                                                                 \
  ", x.action, a.type, a.id, a.name, x.target_type, x.target_id, "                                 \
  "  x.changed::text[], " WHO                                                                      \
  "::jsonb ->> 'request_id' "                                                                      \
  "FROM (" SELECT                                                                                  \
  ") AS x (action, target_type, target_id, changed) "                                              \
  "LEFT JOIN LATERAL (" ACTOR                                                                      \
  ") AS a (type, id, name) ON true "                                                               \
  "RETURNING actor_type, actor_id, actor_name)"

// The same, by the caller of the request (`who` of the write).
#define CA_AUDIT_CTE(TENANT, WHO, SELECT) \
  CA_AUDIT_CTE_AS(TENANT, WHO, CA_AUDIT_ACTOR(TENANT, WHO), SELECT)

namespace ca {

// The caller and the request, as the one parameter the macros above and
// audit_query() read: {"user_id", "api_key_id", "request_id"}.
std::string audit_who(const Ctx& ctx, const Principal& who);
// The same for a request id (1..64 of [A-Za-z0-9._-], request_id.h).
std::string audit_who(const Principal& who, std::string_view request_id);

// `changed` as a text[] parameter: "{role}".
std::string audit_fields(std::initializer_list<std::string_view> fields);

// The entry as a statement of a pipeline (send_last(), common/request_tx.h): `changed` a
// parameter made by audit_fields(), or null for an action that is not an
// update.
Db::Query audit_query(const Ctx& ctx, const Principal& who, std::string_view action,
                      std::string_view target_type, int64_t target_id, Param changed = Param());

}  // namespace ca
