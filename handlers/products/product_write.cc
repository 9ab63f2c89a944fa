// POST /products, POST /products/{id} (partial update), DELETE /products/{id}.
// Each write, its audit entry and its outbox event: one call of a function
// (sql/061) after the session check with the ids (two round trips,
// common/request_tx.h).
#include <cstdio>

#include "audit.h"
#include "auth.h"
#include "error.h"
#include "json_rendered.h"
#include "product_json.h"
#include "products.h"
#include "request_tx.h"
#include "validate.h"

namespace ca {
namespace {

constexpr double kMaxPrice = 9999999999.99;  // NUMERIC(12,2)
constexpr int64_t kMaxStock = 2147483647;    // integer column
constexpr size_t kMaxDescription = 10000;

const Statement kCategoryExists{
    "products_category_exists",
    "SELECT EXISTS (SELECT 1 FROM categories WHERE tenant_id = $1 AND id = $2) AS found"};

// Each write is one call of a function of sql/061 (the category check, the
// write, the tenant's live count and its audit entry, event and deliveries:
// ca_write_recorded()), which Citus runs whole on the tenant's worker
// (docs/decisions/0138-writes-are-delegated-calls.md); the ids it writes come
// from the coordinator's sequences in the first send, with the session
// check (send_check(), send_call(): common/request_tx.h). An update never
// changes deleted_at. `category_ok` false: nothing written; `json` NULL with
// category_ok: no such product.

const Statement kCreateIds{"products_create_ids",
                           "SELECT nextval('products_id_seq') AS product_id, "
                           "nextval('events_id_seq') AS event_id"};
const Statement kEventId{"products_event_id", "SELECT nextval('events_id_seq') AS event_id"};

// $1 tenant, $2 product id, $3 event id, $4.. the fields, $10 audit_who().
const Statement kCreate{
    "products_create",
    "SELECT json, category_ok FROM ca_product_create(tenant_id => $1, product_id => $2, "
    "event_id => $3, name => $4::text, description => $5::text, price => $6::numeric, "
    "stock => $7::integer, category_id => $8::bigint, published => $9::boolean, who => "
    "$10::jsonb)"};

// Only sent fields change: NULL keeps a required field; for nullable ones a
// "sent" flag tells "clear" from "keep". $1 tenant, $2 product, $3 event id,
// the fields as named, $12 audit_who().
const Statement kUpdate{
    "products_update",
    "SELECT json, category_ok FROM ca_product_update(tenant_id => $1, product_id => $2::bigint, "
    "event_id => $3, name => $4::text, description_sent => $5::boolean, description => $6::text, "
    "price => $7::numeric, stock => $8::integer, category_sent => $9::boolean, "
    "category_id => $10::bigint, published => $11::boolean, who => $12::jsonb)"};

const Statement kDelete{
    "products_delete",
    "SELECT json FROM ca_product_delete(tenant_id => $1, product_id => $2::bigint, "
    "event_id => $3, who => $4::jsonb)"};

struct ProductInput {
  Field<std::string> name;
  Field<std::string> description;
  Field<double> price;
  Field<int64_t> stock;
  Field<int64_t> category_id;
  Field<bool> published;
};

// Reads and checks the product fields; `creating` makes name and price required.
ProductInput read_product(const cJSON* body, FieldErrors& errs, bool creating) {
  BodyReader in(body, errs);
  ProductInput p;
  p.name = in.str("name", {.required = creating, .trim = true, .min = 1, .max = 255});
  p.description = in.str("description", {.nullable = true, .max = kMaxDescription});
  p.price = in.number("price", {.required = creating, .min = 0, .max = kMaxPrice});
  if (p.price.has_value() && !has_at_most_two_decimals(p.price.value)) {
    in.fail("price", "The price field must have at most 2 decimal places.");
    p.price.present = false;
  }
  p.stock = in.integer("stock", {.min = 0, .max = kMaxStock});
  p.category_id = in.integer("category_id", {.nullable = true, .min = 1});
  p.published = in.boolean("published", {});
  return p;
}

// A category_id that is not one of the tenant's categories is a field error.
Result<bool> check_category(Ctx& ctx, int64_t tenant_id, const ProductInput& p, FieldErrors& errs) {
  if (!p.category_id.has_value()) return true;
  DbResult r = ctx.db.exec(kCategoryExists, {tenant_id, p.category_id.value});
  if (!r.ok()) return Error::database(r.error());
  if (!r->boolean(0, "found")) errs.add("category_id", "The selected category_id is invalid.");
  return true;
}

template <class T>
Param opt(const Field<T>& f) {
  return f.has_value() ? Param(f.value) : Param();
}

// A body that is not JSON or fields that fail: the caller's 401/403 first,
// then 400, or 422 with the category's check as before.
Error refuse(Ctx& ctx, Result<Json>& body, const ProductInput& p, FieldErrors& errs) {
  CA_TRY(who, authenticate_tenant_header(ctx));
  if (!body.ok()) return std::move(body.error());
  CA_TRY(checked, check_category(ctx, who.tenant_id, p, errs));
  (void)checked;
  return Error::invalid(errs);
}

// The row of a create or update: the product, or the error to answer.
Result<Json> written_product(const Rows& rows) {
  if (!rows.boolean(0, "category_ok")) {
    FieldErrors errs;
    errs.add("category_id", "The selected category_id is invalid.");
    return Error::invalid(errs);
  }
  if (rows.is_null(0, "json")) return Error::not_found("Product not found");
  return json_rendered(rows, 0);
}

}  // namespace

Result<Response> products_create(Ctx& ctx) {
  Result<Json> body = parse_json_object(ctx.req);
  FieldErrors errs;
  ProductInput p;
  if (body.ok()) p = read_product(body->get(), errs, /*creating=*/true);
  if (!body.ok() || !errs.empty()) return refuse(ctx, body, p, errs);
  CA_TRY(ids, send_check(ctx, Access::tenant_header(), [](const Principal&) {
           return Queries{{&kCreateIds, {}}};
         }));
  const Rows& id_rows = ids.results[0].rows();
  CA_TRY(w, send_call(ctx, {{&kCreate,
                             {ids.who.tenant_id, id_rows.int64(0, "product_id"),
                              id_rows.int64(0, "event_id"), p.name.value, opt(p.description),
                              p.price.value, opt(p.stock), opt(p.category_id), opt(p.published),
                              audit_who(ctx, ids.who)}}}));
  CA_TRY(product, written_product(w[0].rows()));
  return Response::json(201, product);
}

Result<Response> products_update(Ctx& ctx) {
  Result<Json> body = parse_json_object(ctx.req);
  FieldErrors errs;
  ProductInput p;
  if (body.ok()) p = read_product(body->get(), errs, /*creating=*/false);
  if (!body.ok() || !errs.empty()) return refuse(ctx, body, p, errs);
  CA_TRY(ids, send_check(ctx, Access::tenant_header(), [](const Principal&) {
           return Queries{{&kEventId, {}}};
         }));
  CA_TRY(w, send_call(ctx, {{&kUpdate,
                             {ids.who.tenant_id, ctx.req.params[0],
                              ids.results[0].rows().int64(0, "event_id"), opt(p.name),
                              p.description.present, opt(p.description), opt(p.price), opt(p.stock),
                              p.category_id.present, opt(p.category_id), opt(p.published),
                              audit_who(ctx, ids.who)}}}));
  CA_TRY(product, written_product(w[0].rows()));
  return Response::json(200, product);
}

Result<Response> products_delete(Ctx& ctx) {
  CA_TRY(ids, send_check(ctx, Access::tenant_header(), [](const Principal&) {
           return Queries{{&kEventId, {}}};
         }));
  CA_TRY(w,
         send_call(ctx, {{&kDelete,
                          {ids.who.tenant_id, ctx.req.params[0],
                           ids.results[0].rows().int64(0, "event_id"), audit_who(ctx, ids.who)}}}));
  if (w[0].rows().is_null(0, "json")) return Error::not_found("Product not found");
  Json out = json_object();
  json_add_str(out.get(), "message", "Product deleted");
  return Response::json(200, out);
}

}  // namespace ca
