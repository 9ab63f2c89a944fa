// The caller's addresses. They carry no tenant: a user's address serves their
// orders in every tenant, and only its owner ever sees or uses it.
#include <string>

#include "auth.h"
#include "config.h"
#include "db.h"
#include "error.h"
#include "json_rendered.h"
#include "orders.h"
#include "page_rows.h"
#include "request_tx.h"
#include "user_turn.h"
#include "validate.h"

namespace ca {
namespace {

// Column: json (sql/026's ca_address_json).
#define CA_ADDRESS_JSON                                                            \
  "ca_address_json(id => id, street => street, city => city, country => country, " \
  "postal_code => postal_code, created_at => created_at) AS json"

// $1 user, $2 the cap, $3 the refusal's message. Raises CA422
// (Error::database(): 422 `limit`) when the user has $2 addresses already,
// which rolls back the insert sent after it (ADDRESSES_MAX_PER_USER;
// docs/decisions/0030-caps-on-what-users-and-tenants-grow.md). A statement
// of its own after the user's turn (user_turn.h): its snapshot sees every
// address of the user committed before. By the (user_id, id) unique index.
const Statement kUnderCap{
    "addresses_under_cap",
    "SELECT CASE WHEN count(*) >= $2::bigint THEN ca_refuse('CA422', $3) "
    "END AS refused FROM addresses WHERE user_id = $1 AND deleted_at IS NULL"};

// A plain insert, not one conditional on a count: on Citus an insert whose
// subquery reads a reference table takes Citus's exclusive lock of the
// tables after its own weaker one, and two such inserts at once deadlock.
const Statement kCreate{"addresses_create",
                        "INSERT INTO addresses (user_id, street, city, country, postal_code) "
                        "VALUES ($1, $2, $3, $4, $5) RETURNING " CA_ADDRESS_JSON};

// Served by the (user_id, id) unique index.
const Statement kList{"addresses_list",
                      "SELECT " CA_ADDRESS_JSON
                      " FROM addresses WHERE user_id = $1 AND deleted_at IS NULL ORDER BY id"};

// $1 user, $2 address. Column: deleted (false: no such live address of the
// caller). An address that orders name is kept for them, marked deleted
// (sql/050's ca_address_delete).
const Statement kDelete{"addresses_delete", "SELECT ca_address_delete($1, $2) AS deleted"};

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
  // The session check, the user's turn, the count and the insert: one
  // round trip (common/request_tx.h).
  CA_TRY(w, send_once(ctx, Access::session(), [&](const Principal& who) {
           Queries q = turn_under_cap(user_turn(who.user_id), kUnderCap, who.user_id,
                                      ctx.config.addresses_max_per_user, "addresses per user",
                                      "ADDRESSES_MAX_PER_USER");
           q.push_back({&kCreate,
                        {who.user_id, street.value, city.value, country.value, postal_code.value}});
           return q;
         }));
  const Rows& created = w.results[2].rows();
  return Response::json(201, json_rendered(created, 0));
}

Result<Response> addresses_list(Ctx& ctx) { return own_list(ctx, kList, "data"); }

Result<Response> addresses_delete(Ctx& ctx) {
  CA_TRY(w, send_once(ctx, Access::session(), [&](const Principal& who) {
           return Queries{{&kDelete, {who.user_id, ctx.req.params[0]}}};
         }));
  if (!w.results[0].rows().boolean(0, "deleted")) return Error::not_found("Address not found");
  Json out = json_object();
  json_add_str(out.get(), "message", "Address deleted");
  return Response::json(200, out);
}

}  // namespace ca
