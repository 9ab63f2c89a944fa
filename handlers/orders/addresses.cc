// The caller's addresses. They carry no tenant: a user's address serves their
// orders in every tenant, and only its owner ever sees or uses it.
#include "auth.h"
#include "config.h"
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

// The owner's row locked first, so that two creates of one user take turns
// at kCreate's count (ADDRESSES_MAX_PER_USER; docs/decisions/0030-caps-on-
// what-users-and-tenants-grow.md).
const Statement kLockOwner{"addresses_lock_owner",
                           "SELECT 1 FROM users WHERE id = $1 FOR NO KEY UPDATE"};

// $6: the cap. No row, and nothing written, when the user has $6 addresses
// already; run after kLockOwner, its snapshot sees every address of the
// user committed before it.
const Statement kCreate{
    "addresses_create",
    "INSERT INTO addresses (user_id, street, city, country, postal_code) "
    "SELECT $1::bigint, $2::text, $3::text, $4::text, $5::text "
    "WHERE (SELECT count(*) FROM addresses WHERE user_id = $1::bigint) < $6::bigint "
    "RETURNING " CA_ADDRESS_JSON};

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
  // The session check, the lock and the insert: one round trip (common/write.h).
  const int64_t max = ctx.config.addresses_max_per_user;
  CA_TRY(w, write_once(ctx, Access::session(), [&](const Principal& who) {
           return Queries{
               {&kLockOwner, {who.user_id}},
               {&kCreate,
                {who.user_id, street.value, city.value, country.value, postal_code.value, max}}};
         }));
  const Rows& created = w.results[1].rows();
  if (created.empty())
    return Error::limit_reached("addresses per user", max, "ADDRESSES_MAX_PER_USER");
  return Response::json(201, json_rendered(created, 0));
}

Result<Response> addresses_list(Ctx& ctx) { return own_list(ctx, kList, "data"); }

}  // namespace ca
