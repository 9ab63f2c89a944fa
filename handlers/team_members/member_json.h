// `{message, member}`: the answer of a role update and of an accepted
// invitation. The member record is rendered by PostgreSQL (ca_member_json,
// sql/030): `{tenant_id, user_id, role, name, email}`.
#pragma once

#include <string_view>

#include "http.h"

namespace ca {

// `member`: the rendered member record.
Response member_response(int status, const char* message, std::string_view member);

}  // namespace ca
