// POST /products, POST /products/{id} (partial update), DELETE /products/{id}.
// Each write and its outbox event commit together.
#include <cstdio>

#include "auth.h"
#include "error.h"
#include "events.h"
#include "json_rendered.h"
#include "product_json.h"
#include "products.h"
#include "validate.h"

namespace ca {
namespace {

constexpr double kMaxPrice = 9999999999.99;  // NUMERIC(12,2)
constexpr int64_t kMaxStock = 2147483647;    // integer column
constexpr size_t kMaxDescription = 10000;

const Statement kCategoryExists{
    "products_category_exists",
    "SELECT EXISTS (SELECT 1 FROM categories WHERE tenant_id = $1 AND id = $2) AS found"};

const Statement kCreate{
    "products_create",
    "INSERT INTO products AS p (tenant_id, name, description, price, stock, category_id, "
    "published) VALUES ($1, $2, $3, $4, COALESCE($5, 0), $6, COALESCE($7, true)) "
    "RETURNING " CA_PRODUCT_JSON};

// Only sent fields change: $n NULL keeps the column for required fields; for
// nullable ones a "sent" flag tells "clear" from "keep".
const Statement kUpdate{
    "products_update",
    "UPDATE products p SET name = COALESCE($3, p.name), "
    "  description = CASE WHEN $4::boolean THEN $5 ELSE p.description END, "
    "  price = COALESCE($6::numeric, p.price), stock = COALESCE($7::integer, p.stock), "
    "  category_id = CASE WHEN $8::boolean THEN $9::bigint ELSE p.category_id END, "
    "  published = COALESCE($10::boolean, p.published), updated_at = now() "
    "WHERE p.tenant_id = $1 AND p.id = $2 AND p.deleted_at IS NULL "
    "RETURNING " CA_PRODUCT_JSON};

const Statement kDelete{"products_delete",
                        "UPDATE products p SET deleted_at = now(), updated_at = now() "
                        "WHERE p.tenant_id = $1 AND p.id = $2 AND p.deleted_at IS NULL "
                        "RETURNING " CA_PRODUCT_JSON};

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

// Runs `stmt`, emits `event` with the product, commits; the product or an error.
Result<Json> write_with_event(Ctx& ctx, int64_t tenant_id, const Statement& stmt,
                              const std::vector<Param>& params, const char* event) {
  Transaction tx(ctx.db);
  if (!tx.began()) return Error::database(tx.begin_error());
  DbResult r = ctx.db.exec(stmt, params);
  // The category deleted between the check and the write is a 422 (common/error.cc).
  if (!r.ok()) return Error::database(r.error());
  if (r->empty()) return Error::not_found("Product not found");
  Json product = json_rendered(r.rows(), 0);
  DbResult emitted = emit_event(ctx.db, tenant_id, event, product.get());
  if (!emitted.ok()) return Error::database(emitted.error());
  DbResult committed = tx.commit();
  if (!committed.ok()) return Error::database(committed.error());
  return product;
}

}  // namespace

Result<Response> products_create(Ctx& ctx) {
  CA_TRY(who, authenticate_tenant_header(ctx));
  CA_TRY(body, parse_json_object(ctx.req));
  FieldErrors errs;
  ProductInput p = read_product(body.get(), errs, /*creating=*/true);
  CA_TRY(checked, check_category(ctx, who.tenant_id, p, errs));
  (void)checked;
  if (!errs.empty()) return Error::invalid(errs);
  CA_TRY(product, write_with_event(ctx, who.tenant_id, kCreate,
                                   {who.tenant_id, p.name.value, opt(p.description), p.price.value,
                                    opt(p.stock), opt(p.category_id), opt(p.published)},
                                   "product.created"));
  return Response::json(201, product);
}

Result<Response> products_update(Ctx& ctx) {
  CA_TRY(who, authenticate_tenant_header(ctx));
  CA_TRY(body, parse_json_object(ctx.req));
  FieldErrors errs;
  ProductInput p = read_product(body.get(), errs, /*creating=*/false);
  CA_TRY(checked, check_category(ctx, who.tenant_id, p, errs));
  (void)checked;
  if (!errs.empty()) return Error::invalid(errs);
  CA_TRY(product,
         write_with_event(ctx, who.tenant_id, kUpdate,
                          {who.tenant_id, ctx.req.params[0], opt(p.name), p.description.present,
                           opt(p.description), opt(p.price), opt(p.stock), p.category_id.present,
                           opt(p.category_id), opt(p.published)},
                          "product.updated"));
  return Response::json(200, product);
}

Result<Response> products_delete(Ctx& ctx) {
  CA_TRY(who, authenticate_tenant_header(ctx));
  CA_TRY(product, write_with_event(ctx, who.tenant_id, kDelete, {who.tenant_id, ctx.req.params[0]},
                                   "product.deleted"));
  (void)product;
  Json out = json_object();
  json_add_str(out.get(), "message", "Product deleted");
  return Response::json(200, out);
}

}  // namespace ca
