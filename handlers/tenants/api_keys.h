// API keys of a tenant (issue 40; docs/openapi.yaml "API keys",
// common/api_key.h): create (the key shown once), list, revoke. ADMIN with a
// session only: no route here declares a scope, so no key reaches them.
#pragma once

#include "router.h"

namespace ca {

Result<Response> api_keys_create(Ctx& ctx);
Result<Response> api_keys_list(Ctx& ctx);
Result<Response> api_keys_revoke(Ctx& ctx);

}  // namespace ca
