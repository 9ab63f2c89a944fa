// The caller's addresses. They carry no tenant: a user's address serves their
// orders in every tenant, and only its owner ever sees or uses it.
#include "auth.h"
#include "db.h"
#include "error.h"
#include "json_rendered.h"
#include "orders.h"
#include "page_rows.h"
#include "validate.h"
#include "write.h"

namespace ca {
namespace {

// Column: json (sql/026's ca_address_json).
#define CA_ADDRESS_JSON \
  "ca_address_json(id, street, city, country, postal_code, created_at) AS json"

const Statement kCreate{"addresses_create",
                        "INSERT INTO addresses (user_id, street, city, country, postal_code) "
                        "VALUES ($1, $2, $3, $4, $5) RETURNING " CA_ADDRESS_JSON};

// Served by the (user_id, id) unique index.
const Statement kList{"addresses_list",
                      "SELECT " CA_ADDRESS_JSON " FROM addresses WHERE user_id = $1 ORDER BY id"};

}  // namespace

Result<Response> addresses_create(Ctx& ctx) {
  Result<Json> body = parse_json_object(ctx.req);
  FieldErrors errs;
  Field<std::string> street, city, country, postal_code;
  if (body.ok()) {
    BodyReader in(body->get(), errs);
    street = in.str("street", {.required = true, .trim = true, .max = 255});
    city = in.str("city", {.required = true, .trim = true, .max = 255});
    country = in.str("country", {.required = true, .trim = true, .min = 2, .max = 100});
    postal_code = in.str("postal_code", {.required = true, .trim = true, .max = 20});
  }
  if (!body.ok() || !errs.empty()) return refuse_before_write(ctx, Access::session(), body, errs);
  // The session check and the insert: one round trip (common/write.h).
  CA_TRY(
      w, write_once(ctx, Access::session(), [&](const Principal& who) {
        return Queries{
            {&kCreate, {who.user_id, street.value, city.value, country.value, postal_code.value}}};
      }));
  return Response::json(201, json_rendered(w.results[0].rows(), 0));
}

Result<Response> addresses_list(Ctx& ctx) { return own_list(ctx, kList, "data"); }

}  // namespace ca
