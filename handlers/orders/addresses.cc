// The caller's addresses. They carry no tenant: a user's address serves their
// orders in every tenant, and only its owner ever sees or uses it.
#include "auth.h"
#include "db.h"
#include "error.h"
#include "orders.h"
#include "validate.h"

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

Result<Response> addresses_create(Ctx& ctx) {
  CA_TRY(who, authenticate(ctx));
  CA_TRY(body, parse_json_object(ctx.req));
  FieldErrors errs;
  BodyReader in(body.get(), errs);
  auto street = in.str("street", {.required = true, .trim = true, .max = 255});
  auto city = in.str("city", {.required = true, .trim = true, .max = 255});
  auto country = in.str("country", {.required = true, .trim = true, .min = 2, .max = 100});
  auto postal_code = in.str("postal_code", {.required = true, .trim = true, .max = 20});
  if (!errs.empty()) return Error::invalid(errs);
  DbResult r = ctx.db.exec(
      kCreate, {who.user_id, street.value, city.value, country.value, postal_code.value});
  if (!r.ok()) return Error::database(r.error());
  return Response::json(201, address_json(r.rows(), 0));
}

Result<Response> addresses_list(Ctx& ctx) {
  CA_TRY(who, authenticate(ctx));
  DbResult r = ctx.db.exec(kList, {who.user_id});
  if (!r.ok()) return Error::database(r.error());
  Json data = json_array();
  for (int i = 0; i < r->size(); ++i) json_append(data.get(), address_json(r.rows(), i));
  Json out = json_object();
  json_add(out.get(), "data", std::move(data));
  return Response::json(200, out);
}

}  // namespace ca
