#include "user_json.h"

namespace ca {

Json user_json(const Rows& r, int row, int c) {
  Json u = json_object();
  cJSON* o = u.get();
  auto flag = [&](JsonKey key, int col) { json_add_str(o, key, r.boolean(row, col) ? "1" : "0"); };
  json_add_int(o, "id", r.int64(row, c + 0));
  json_add_opt_int(o, "tenant_id", r.opt_int64(row, c + 1));
  json_add_str(o, "name", r.text(row, c + 2));
  json_add_str(o, "email", r.text(row, c + 3));
  json_add_opt_str(o, "phone", r.opt_text(row, c + 4));
  json_add_opt_str(o, "country_code", r.opt_text(row, c + 5));
  json_add_opt_str(o, "email_verified_at", r.opt_text(row, c + 6));
  json_add_opt_str(o, "phone_verified_at", r.opt_text(row, c + 7));
  json_add_str(o, "user_type", r.text(row, c + 8));
  json_add_opt_str(o, "photo_url", r.opt_text(row, c + 9));
  json_add_str(o, "theme", r.text(row, c + 10));
  json_add_str(o, "language", r.text(row, c + 11));
  json_add_opt_str(o, "timezone", r.opt_text(row, c + 12));
  flag("email_marketing", c + 13);
  flag("email_system", c + 14);
  flag("push_system", c + 15);
  flag("is_active", c + 16);
  json_add_str(o, "created_at", r.text(row, c + 17));
  json_add_str(o, "updated_at", r.text(row, c + 18));
  return u;
}

}  // namespace ca
