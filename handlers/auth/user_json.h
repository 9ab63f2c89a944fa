// The User object of SPEC.md as login returns it.
#pragma once

#include "db.h"
#include "json.h"

namespace ca {

// The column list that user_json() reads, in order, for `FROM users u`.
#define CA_USER_COLUMNS                                                                \
  "u.id, u.tenant_id, u.name, u.email, u.phone, u.country_code, u.email_verified_at, " \
  "u.phone_verified_at, u.user_type, u.photo_url, u.theme, u.language, u.timezone, "   \
  "u.email_marketing, u.email_system, u.push_system, u.is_active, u.created_at, "      \
  "u.updated_at"
inline constexpr int kUserColumns = 19;

// Builds the User from row `row`, starting at column `first`.
Json user_json(const Rows& rows, int row, int first);

}  // namespace ca
