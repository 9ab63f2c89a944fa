// The caller's addresses. They carry no tenant: a user's address serves their
// orders in every tenant, and only its owner ever sees or uses it.
#include "auth.h"
#include "db.h"
#include "errors.h"
#include "orders.h"
#include "validate.h"
#include "write.h"

namespace ca {
namespace {

#define CA_ADDRESS_COLUMNS "id, street, city, country, postal_code, created_at"

const Statement kCreate{"addresses_create",
                        "INSERT INTO addresses (user_id, street, city, country, postal_code) "
                        "VALUES ($1, $2, $3, $4, $5) RETURNING " CA_ADDRESS_COLUMNS};

// Served by the (user_id, id) unique index.
const Statement kList{"addresses_list", "SELECT " CA_ADDRESS_COLUMNS
                                        " FROM addresses WHERE user_id = $1 ORDER BY id"};

Json address_json(const Rows& r, int row) {
  Json a = json_object();
  json_add_int(a.get(), "id", r.int64(row, 0));
  json_add_str(a.get(), "street", r.text(row, 1));
  json_add_str(a.get(), "city", r.text(row, 2));
  json_add_str(a.get(), "country", r.text(row, 3));
  json_add_str(a.get(), "postal_code", r.text(row, 4));
  json_add_str(a.get(), "created_at", r.text(row, 5));
  return a;
}

}  // namespace

Response addresses_create(Ctx& ctx) {
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
  if (!body.ok() || !errs.empty()) {
    // A token refused comes before a bad body.
    CA_TRY(who, authenticate(ctx));
    (void)who;
    if (!body.ok()) return std::move(body.error());
    return errors::validation(errs);
  }
  // The session check and the insert: one round trip (common/write.h).
  CA_TRY(
      w, write_once(ctx, Access::session(), [&](const Principal& who) {
        return Queries{
            {&kCreate, {who.user_id, street.value, city.value, country.value, postal_code.value}}};
      }));
  return Response::json(201, address_json(w.results[0].rows(), 0));
}

Response addresses_list(Ctx& ctx) {
  CA_TRY(who, authenticate(ctx));
  DbResult r = ctx.db.exec(kList, {who.user_id});
  if (!r.ok()) return errors::database(r.error());
  Json data = json_array();
  for (int i = 0; i < r->size(); ++i) json_append(data.get(), address_json(r.rows(), i));
  Json out = json_object();
  json_add(out.get(), "data", std::move(data));
  return Response::json(200, out);
}

}  // namespace ca
