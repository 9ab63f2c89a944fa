#include "member_json.h"

namespace ca {

Json member_json(int64_t tenant_id, int64_t user_id, const std::string& role,
                 const std::string& name, const std::string& email) {
  Json m = json_object();
  json_add_int(m.get(), "tenant_id", tenant_id);
  json_add_int(m.get(), "user_id", user_id);
  json_add_str(m.get(), "role", role);
  json_add_str(m.get(), "name", name);
  json_add_str(m.get(), "email", email);
  return m;
}

Response member_response(int status, const char* message, int64_t tenant_id, int64_t user_id,
                         const std::string& role, const std::string& name,
                         const std::string& email) {
  Json out = json_object();
  json_add_str(out.get(), "message", message);
  json_add(out.get(), "member", member_json(tenant_id, user_id, role, name, email));
  return Response::json(status, out);
}

}  // namespace ca
