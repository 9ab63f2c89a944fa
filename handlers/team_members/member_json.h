// `{message, member: {tenant_id, user_id, role, name, email}}`.
#pragma once

#include <string>

#include "http.h"

namespace ca {

Response member_response(int status, const char* message, int64_t tenant_id, int64_t user_id,
                         const std::string& role, const std::string& name,
                         const std::string& email);

// The member record as events carry it.
Json member_json(int64_t tenant_id, int64_t user_id, const std::string& role,
                 const std::string& name, const std::string& email);

}  // namespace ca
