// POST /products, POST /products/{id} (partial update), DELETE /products/{id}.
// Each write and its outbox event: one statement, one round trip (common/request_tx.h).
#include <cstdio>

#include "audit.h"
#include "auth.h"
#include "error.h"
#include "events.h"
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

// Each write below is one statement (common/request_tx.h): the category check,
// the write, the tenant's live count (`counted`, product_counts: sql/006, sql/032)
// and its event (events.h). An update never changes deleted_at. `category_ok` false: nothing
// written; `json` NULL with category_ok: no such product.

const Statement kCreate{
    "products_create",
    "WITH category AS (SELECT $6::bigint IS NULL OR EXISTS ("
    "  SELECT 1 FROM categories WHERE tenant_id = $1 AND id = $6::bigint) AS ok), "
    "created AS (INSERT INTO products (tenant_id, name, description, price, stock, category_id, "
    "  published) SELECT $1, $2::text, $3::text, $4::numeric, COALESCE($5::integer, 0), "
    "  $6::bigint, COALESCE($7::boolean, true) FROM category c WHERE c.ok "
    "  RETURNING id, tenant_id, api_json), "
    "counted AS (INSERT INTO product_counts AS k (tenant_id, live) SELECT $1, 1 FROM created p "
    "  ON CONFLICT (tenant_id) DO UPDATE SET live = k.live + 1), "
    CA_AUDIT_CTE("$1", "$8", "SELECT 'product.created', 'product', p.id, NULL FROM created p") ", "
    CA_AUDITED_EVENTS_CTE("$1",
        "SELECT p.tenant_id, 'product.created', p.api_json::jsonb FROM created p") " "
    "SELECT p.api_json AS json, c.ok AS category_ok FROM category c LEFT JOIN created p ON true"};

// Only sent fields change: $n NULL keeps the column for required fields; for
// nullable ones a "sent" flag tells "clear" from "keep". `previous` is the row
// before, locked first (the update joins it, so it cannot run before it):
// the audit entry's `changed` compares the two.
const Statement kUpdate{
    "products_update",
    "WITH category AS (SELECT $9::bigint IS NULL OR EXISTS ("
    "  SELECT 1 FROM categories WHERE tenant_id = $1 AND id = $9::bigint) AS ok), "
    "previous AS (SELECT id, api_json FROM products "
    "  WHERE tenant_id = $1 AND id = $2 AND deleted_at IS NULL FOR UPDATE), "
    "updated AS (UPDATE products p SET name = COALESCE($3, p.name), "
    "  description = CASE WHEN $4::boolean THEN $5 ELSE p.description END, "
    "  price = COALESCE($6::numeric, p.price), stock = COALESCE($7::integer, p.stock), "
    "  category_id = CASE WHEN $8::boolean THEN $9::bigint ELSE p.category_id END, "
    "  published = COALESCE($10::boolean, p.published), updated_at = now() "
    "  FROM category c, previous o WHERE c.ok AND p.tenant_id = $1 AND p.id = o.id AND p.deleted_at IS NULL "
    "  RETURNING p.id, p.tenant_id, p.api_json, o.api_json AS before), "
    CA_AUDIT_CTE("$1", "$11",
        "SELECT 'product.updated', 'product', p.id, ca_changed(p.before::jsonb, p.api_json::jsonb, "
        "  '{name,description,price,stock,category_id,published}') FROM updated p") ", "
    CA_AUDITED_EVENTS_CTE("$1",
        "SELECT p.tenant_id, 'product.updated', p.api_json::jsonb FROM updated p") " "
    "SELECT p.api_json AS json, c.ok AS category_ok FROM category c LEFT JOIN updated p ON true"};

const Statement kDelete{
    "products_delete",
    "WITH deleted AS (UPDATE products p SET deleted_at = now(), updated_at = now() "
    "  WHERE p.tenant_id = $1 AND p.id = $2 AND p.deleted_at IS NULL "
    "  RETURNING p.id, p.tenant_id, p.api_json), "
    "counted AS (UPDATE product_counts SET live = live - 1 "
    "  WHERE tenant_id = $1 AND EXISTS (SELECT 1 FROM deleted p)), "
    CA_AUDIT_CTE("$1", "$3", "SELECT 'product.deleted', 'product', p.id, NULL FROM deleted p") ", "
    CA_AUDITED_EVENTS_CTE("$1",
        "SELECT p.tenant_id, 'product.deleted', p.api_json::jsonb FROM deleted p") " "
    "SELECT p.api_json AS json FROM (SELECT 1) one LEFT JOIN deleted p ON true"};

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
  CA_TRY(
      w, send_once(ctx, Access::tenant_header(), [&](const Principal& who) {
        return Queries{{&kCreate,
                        {who.tenant_id, p.name.value, opt(p.description), p.price.value,
                         opt(p.stock), opt(p.category_id), opt(p.published), audit_who(ctx, who)}}};
      }));
  CA_TRY(product, written_product(w.results[0].rows()));
  return Response::json(201, product);
}

Result<Response> products_update(Ctx& ctx) {
  Result<Json> body = parse_json_object(ctx.req);
  FieldErrors errs;
  ProductInput p;
  if (body.ok()) p = read_product(body->get(), errs, /*creating=*/false);
  if (!body.ok() || !errs.empty()) return refuse(ctx, body, p, errs);
  CA_TRY(w, send_once(ctx, Access::tenant_header(), [&](const Principal& who) {
           return Queries{{&kUpdate,
                           {who.tenant_id, ctx.req.params[0], opt(p.name), p.description.present,
                            opt(p.description), opt(p.price), opt(p.stock), p.category_id.present,
                            opt(p.category_id), opt(p.published), audit_who(ctx, who)}}};
         }));
  CA_TRY(product, written_product(w.results[0].rows()));
  return Response::json(200, product);
}

Result<Response> products_delete(Ctx& ctx) {
  CA_TRY(w, send_once(ctx, Access::tenant_header(), [&](const Principal& who) {
           return Queries{{&kDelete, {who.tenant_id, ctx.req.params[0], audit_who(ctx, who)}}};
         }));
  if (w.results[0].rows().is_null(0, "json")) return Error::not_found("Product not found");
  Json out = json_object();
  json_add_str(out.get(), "message", "Product deleted");
  return Response::json(200, out);
}

}  // namespace ca
