#include "categories.h"

#include "audit.h"
#include "auth.h"
#include "db.h"
#include "error.h"
#include "events.h"
#include "json_rendered.h"
#include "page_rows.h"
#include "request_tx.h"
#include "validate.h"

namespace ca {
namespace {

constexpr size_t kMaxDescription = 10000;

// The category as JSON (docs/openapi.yaml "Category", sql/025).
#define CA_CATEGORY_JSON                                                    \
  "ca_category_json(id => c.id, tenant_id => c.tenant_id, name => c.name, " \
  "description => c.description, is_published => c.is_published, "          \
  "created_at => c.created_at, updated_at => c.updated_at) AS json"

// The page and the total in one round trip (a page past the end keeps the total).
const Statement kList{
    "categories_list",
    "WITH total AS (SELECT count(*) AS n FROM categories WHERE tenant_id = $1) "
    "SELECT " CA_CATEGORY_JSON
    ", total.n AS total FROM total "
    "LEFT JOIN categories c ON c.tenant_id = $1 AND c.id = ANY (ARRAY("
    "  SELECT id FROM categories WHERE tenant_id = $1 ORDER BY id DESC LIMIT $2 OFFSET $3)) "
    "ORDER BY c.id DESC"};

// The writes but the delete: one call each of a function of sql/061 (the
// write and its audit entry, event and deliveries: ca_write_recorded()),
// which Citus runs whole on the tenant's worker
// (docs/decisions/0138-writes-are-delegated-calls.md). A create's ids come
// from the coordinator's sequences in the first send, with the session check
// (send_check(), send_call()); an update or toggle writes no id of the
// coordinator's, so its call goes with the check (send_once()). `json` NULL:
// no such category. The caller is audit_who().
const Statement kCreateIds{"categories_create_ids",
                           "SELECT nextval('categories_id_seq') AS category_id, "
                           "nextval('events_id_seq') AS event_id"};
const Statement kCreate{"categories_create",
                        "SELECT json FROM ca_category_create(tenant_id => $1, category_id => $2, "
                        "event_id => $3, name => $4::text, description => $5::text, "
                        "who => $6::jsonb)"};

// Atomic: concurrent toggles each flip the stored value once.
const Statement kToggle{"categories_toggle",
                        "SELECT json, is_published FROM ca_category_toggle(tenant_id => $1, "
                        "category_id => $2::bigint, who => $3::jsonb)"};

// $3 name or NULL (keep); $4 true when description was sent, $5 its value.
const Statement kUpdate{
    "categories_update",
    "SELECT json FROM ca_category_update(tenant_id => $1, "
    "category_id => $2::bigint, name => $3::text, description_sent => $4::boolean, "
    "description => $5::text, who => $6::jsonb)"};

// Deleting a category detaches its products (docs/design/api-conventions.md), and a detached
// product has changed: its category_id becomes null, its updated_at moves
// and a product.updated event carries it, as if each had been updated
// through the API. The first send takes the events' ids from the
// coordinator's sequence with the session check (send_check()), one per
// live product of the category then (ca_category_delete_event_ids(),
// sql/063). The second is one call of ca_category_delete() (sql/063), which
// Citus runs whole on the tenant's worker
// (docs/decisions/0139-webhook-order-status-and-category-delete-are-calls.md):
// the locks (the category, then its live products in id order), the
// detaching, the delete, its audit entry ($4 the caller, audit_who()) and
// the events with their deliveries. `deleted` NULL: no such category, or,
// with `ids_needed`, products joined it between the two sends: the handler
// takes that many ids (kMoreEventIds) and calls again.
const Statement kDeleteIds{
    "categories_delete_ids",
    "SELECT ca_category_delete_event_ids(tenant_id => $1, category_id => $2::bigint)::text "
    "AS event_ids"};
const Statement kMoreEventIds{
    "categories_delete_more_ids",
    "SELECT ARRAY(SELECT nextval('events_id_seq') FROM generate_series(1, $1::integer) "
    "ORDER BY 1)::text AS event_ids"};
const Statement kDelete{"categories_delete",
                        "SELECT deleted, ids_needed FROM ca_category_delete(tenant_id => $1, "
                        "category_id => $2::bigint, event_ids => $3::bigint[], who => $4::jsonb)"};
// Calls at most: products joining a category while it is deleted, again and
// again, get a 503 (try again) rather than a request that never ends.
constexpr int kDeleteCalls = 3;

Error not_found() { return Error::not_found("Category not found"); }

template <class T>
Param opt(const Field<T>& f) {
  return f.has_value() ? Param(f.value) : Param();
}

}  // namespace

Result<Response> categories_list(Ctx& ctx) {
  return tenant_header_page(ctx, kList, kDefaultPerPage);
}

Result<Response> categories_create(Ctx& ctx) {
  Result<Json> body = parse_json_object(ctx.req);
  FieldErrors errs;
  Field<std::string> name, description;
  if (body.ok()) {
    BodyReader in(body->get(), errs);
    name = in.str("name", {.required = true, .trim = true, .max = 255});
    description = in.str("description", {.nullable = true, .max = kMaxDescription});
  }
  if (!body.ok() || !errs.empty())
    return refuse_before_write(ctx, Access::tenant_header(), body, errs);
  // A taken name: 422 (common/error.cc).
  CA_TRY(ids, send_check(ctx, Access::tenant_header(), [](const Principal&) {
           return Queries{{&kCreateIds, {}}};
         }));
  const Rows& id_rows = ids.results[0].rows();
  CA_TRY(w, send_call(ctx, {{&kCreate,
                             {ids.who.tenant_id, id_rows.int64(0, "category_id"),
                              id_rows.int64(0, "event_id"), name.value, opt(description),
                              audit_who(ctx, ids.who)}}}));
  return Response::success(201, "Category created", json_rendered(w[0].rows(), 0));
}

Result<Response> categories_toggle(Ctx& ctx) {
  CA_TRY(w, send_once(ctx, Access::tenant_header(), [&](const Principal& who) {
           return Queries{{&kToggle, {who.tenant_id, ctx.req.params[0], audit_who(ctx, who)}}};
         }));
  const Rows& rows = w.results[0].rows();
  if (rows.is_null(0, "json")) return not_found();
  bool published = rows.boolean(0, "is_published");
  return Response::success(200, published ? "Category published" : "Category hidden",
                           json_rendered(rows, 0));
}

Result<Response> categories_update(Ctx& ctx) {
  Result<Json> body = parse_json_object(ctx.req);
  FieldErrors errs;
  Field<std::string> name, description;
  if (body.ok()) {
    BodyReader in(body->get(), errs);
    name = in.str("name", {.trim = true, .min = 1, .max = 255});
    description = in.str("description", {.nullable = true, .max = kMaxDescription});
    if (!in.present("name") && !in.present("description")) {
      errs.add("name", "The name field is required when description is not present.");
    }
  }
  if (!body.ok() || !errs.empty())
    return refuse_before_write(ctx, Access::tenant_header(), body, errs);
  // A taken name: 422 (common/error.cc).
  CA_TRY(w, send_once(ctx, Access::tenant_header(), [&](const Principal& who) {
           return Queries{{&kUpdate,
                           {who.tenant_id, ctx.req.params[0], opt(name), description.present,
                            opt(description), audit_who(ctx, who)}}};
         }));
  const Rows& rows = w.results[0].rows();
  if (rows.is_null(0, "json")) return not_found();
  return Response::success(200, "Category updated", json_rendered(rows, 0));
}

Result<Response> categories_delete(Ctx& ctx) {
  CA_TRY(ids, send_check(ctx, Access::tenant_header(), [&](const Principal& who) {
           return Queries{{&kDeleteIds, {who.tenant_id, ctx.req.params[0]}}};
         }));
  const int64_t tenant_id = ids.who.tenant_id;
  const std::string who = audit_who(ctx, ids.who);
  std::string event_ids = ids.results[0].rows().str(0, "event_ids");
  for (int call = 0; call < kDeleteCalls; ++call) {
    CA_TRY(done, send_call(ctx, {{&kDelete, {tenant_id, ctx.req.params[0], event_ids, who}}}));
    const Rows& rows = done[0].rows();
    if (!rows.is_null(0, "deleted")) return Response::success(200, "Category deleted");
    if (rows.is_null(0, "ids_needed")) return not_found();
    CA_TRY(more, send_call(ctx, {{&kMoreEventIds, {rows.int64(0, "ids_needed")}}}));
    event_ids = more[0].rows().str(0, "event_ids");
  }
  return Error::unavailable("Service temporarily unavailable", 1);
}

}  // namespace ca
