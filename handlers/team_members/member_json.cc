#include "member_json.h"

#include "json.h"

namespace ca {

Response member_response(int status, const char* message, std::string_view member) {
  Json out = json_object();
  json_add_str(out.get(), "message", message);
  json_add(out.get(), "member", json_raw(member));
  return Response::json(status, out);
}

}  // namespace ca
