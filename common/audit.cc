#include "audit.h"

namespace ca {
namespace {

const Statement kAudit{"audit_insert",
                       "WITH " CA_AUDIT_CTE("$1", "$2",
                                            "SELECT $3::text, $4::text, $5::bigint, $6::text[]") " "
                       "SELECT count(*) AS written FROM audit_entries"};

}  // namespace

std::string audit_who(const Ctx& ctx, const Principal& who) {
  return audit_who(who, ctx.req.request_id);
}

std::string audit_who(const Principal& who, std::string_view request_id) {
  // The request id is 1..64 of [A-Za-z0-9._-] (request_id.h): nothing to
  // escape.
  std::string out = "{\"user_id\":";
  out += std::to_string(who.user_id);
  out += ",\"api_key_id\":";
  out += std::to_string(who.api_key_id);
  out += ",\"request_id\":\"";
  out += request_id;
  out += "\"}";
  return out;
}

std::string audit_fields(std::initializer_list<std::string_view> fields) {
  // Field names are the API's: letters and underscores, nothing to quote.
  std::string out = "{";
  for (std::string_view f : fields) {
    if (out.size() > 1) out += ',';
    out += f;
  }
  out += '}';
  return out;
}

Db::Query audit_query(const Ctx& ctx, const Principal& who, std::string_view action,
                      std::string_view target_type, int64_t target_id, Param changed) {
  return {&kAudit,
          {who.tenant_id, audit_who(ctx, who), action, target_type, target_id, std::move(changed)}};
}

}  // namespace ca
