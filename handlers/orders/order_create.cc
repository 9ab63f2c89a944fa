// Order creation (docs/design/api-conventions.md "Orders": one transaction, every item
// checked first, the caller the owner). Every field and every item is
// checked first and all failures are reported together; the address and the
// products are each checked once, whatever the number of items.
//
// A valid request is two round trips (common/request_tx.h, send_check()
// and send_call()): the session check with the order's and event's ids from
// the sequences, then one call of ca_order_create() (sql/060), which checks
// the address and the products and only when both pass writes the order,
// all of its items, its audit entry and the `order.created` event with its
// deliveries. On Citus that call runs whole on the tenant's worker
// (docs/decisions/0137-order-create-is-one-delegated-call.md). A failure
// anywhere leaves nothing behind.
#include <cstdio>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "audit.h"
#include "auth.h"
#include "counter_slot.h"
#include "db.h"
#include "error.h"
#include "events.h"
#include "json_rendered.h"
#include "order_json.h"
#include "orders.h"
#include "request_tx.h"
#include "validate.h"

namespace ca {
namespace {

// More items than any real order has; keeps one request's work bounded.
constexpr size_t kMaxItems = 500;
// NUMERIC(12,2).
constexpr double kMaxMoney = 9999999999.99;
constexpr int64_t kMaxInt32 = 2147483647;

// For a request whose fields already failed: the address and products
// checks, reported with them; the predicates of kCreate's `address` and `live_products`, kept
// in step with them (read-only: decision 0122 says why kCreate does not
// answer here). $1 user, $2 address.
const Statement kAddress{"orders_create_address",
                         "SELECT 1 FROM addresses a "
                         "WHERE a.user_id = $1 AND a.id = $2 AND a.deleted_at IS NULL"};
// $1 tenant, $2 product ids: the live ones.
const Statement kProducts{
    "orders_create_products",
    "SELECT id FROM products "
    "WHERE tenant_id = $1 AND id = ANY ($2::bigint[]) AND deleted_at IS NULL"};

// The ids the order and its event get, from the coordinator's sequences on
// Citus (the call below runs on a worker, whose sequences have ranges of
// their own): ids grow with time for every tenant, as the lists' newest-first
// order needs.
const Statement kIds{"orders_create_ids",
                     "SELECT nextval('orders_id_seq') AS order_id, "
                     "nextval('events_id_seq') AS event_id"};

// The order, written by ca_order_create() (sql/060), which Citus runs on the
// tenant's worker: it checks the address and the products (locked FOR
// SHARE until the order commits) and only when both pass writes the order,
// its items in the order sent, its count, its audit entry and the
// `order.created` event with its deliveries. $1 tenant, $2 order id, $3 event
// id, $4 user, $5 address, $6 payment_type, $7 total_amount, then one array
// per item column, all in item order: $8 product ids, $9 sizes, $10 qtys,
// $11 amounts, $12 notes; $13 audit_who().
//
// One row. Columns: json (the order as created, sql/026; NULL when a check
// failed), address_found, live_product_ids (an array).
const Statement kCreate{
    "orders_create",
    "SELECT json, address_found, live_product_ids FROM ca_order_create("
    "tenant_id => $1, order_id => $2, event_id => $3, user_id => $4, address_id => $5, "
    "payment_type => $6, total_amount => $7::numeric, product_ids => $8::bigint[], "
    "sizes => $9::text[], qtys => $10::integer[], amounts => $11::numeric[], "
    "notes => $12::text[], who => $13::jsonb)"};

struct ItemInput {
  size_t index = 0;                   // position in order_items, for error keys
  std::optional<int64_t> product_id;  // set when it is a valid id
  std::optional<std::string> size;
  int64_t qty = 0;
  std::string amount;  // "4.50"
  std::optional<std::string> notes;
};

struct OrderInput {
  std::optional<int64_t> address_id;  // set when it is a valid id
  int64_t payment_type = 0;
  std::string total_amount;
  std::vector<ItemInput> items;
};

// A money field: a finite number, 0..9999999999.99, at most two decimals.
// The value is its exact decimal text for a NUMERIC(12,2) parameter.
Field<std::string> read_money(BodyReader& in, const char* name) {
  Field<std::string> out;
  Field<double> f = in.number(name, {.required = true, .min = 0, .max = kMaxMoney});
  if (!f.has_value()) return out;
  if (!has_at_most_two_decimals(f.value)) {
    in.fail(name, "The " + in.key(name) + " field must not have more than 2 decimal places.");
    return out;
  }
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.2f", f.value);
  out.present = true;
  out.value = buf;
  return out;
}

std::optional<std::string> opt(const Field<std::string>& f) {
  if (!f.has_value()) return std::nullopt;
  return f.value;
}

ItemInput read_item(const cJSON* object, FieldErrors& errs, const std::string& prefix) {
  BodyReader in(object, errs, prefix);
  ItemInput item;
  auto product_id = in.integer("product_id", {.required = true, .min = 1});
  if (product_id.has_value()) item.product_id = product_id.value;
  item.qty = in.integer("qty", {.required = true, .min = 1, .max = kMaxInt32}).value;
  item.amount = read_money(in, "amount").value;
  item.size = opt(in.str("size", {.nullable = true, .max = 100}));
  item.notes = opt(in.str("notes", {.nullable = true, .max = 1000}));
  return item;
}

OrderInput read_order(const cJSON* body, FieldErrors& errs) {
  BodyReader in(body, errs);
  OrderInput order;
  auto address_id = in.integer("address_id", {.required = true, .min = 1});
  if (address_id.has_value()) order.address_id = address_id.value;
  order.payment_type =
      in.integer("payment_type", {.required = true, .min = 1, .max = kMaxInt32}).value;
  order.total_amount = read_money(in, "total_amount").value;
  auto items = in.array("order_items", {.required = true});
  if (!items.has_value()) return order;
  size_t count = static_cast<size_t>(cJSON_GetArraySize(items.value));
  if (count == 0) {
    in.fail("order_items", "The order_items field must have at least 1 item.");
  } else if (count > kMaxItems) {
    in.fail("order_items", "The order_items field must not have more than " +
                               std::to_string(kMaxItems) + " items.");
  } else {
    size_t index = 0;
    for (const cJSON* item = items.value->child; item != nullptr; item = item->next, ++index) {
      std::string key = "order_items." + std::to_string(index);
      if (!cJSON_IsObject(item)) {
        errs.add(key, "The " + key + " field must be an object.");
        continue;
      }
      order.items.push_back(read_item(item, errs, key + "."));
      order.items.back().index = index;
    }
  }
  return order;
}

// PostgreSQL array literals for the unnest() parameters. Text elements are
// always quoted and escaped; a missing value is an unquoted NULL.
std::string array_literal(const std::vector<std::string>& elements) {
  std::string out = "{";
  for (size_t i = 0; i < elements.size(); ++i) {
    if (i) out += ',';
    out += elements[i];
  }
  return out + "}";
}

std::string quoted(const std::optional<std::string>& v) {
  if (!v) return "NULL";
  std::string out = "\"";
  for (char c : *v) {
    if (c == '"' || c == '\\') out += '\\';
    out += c;
  }
  return out + "\"";
}

// The ids of the items that name one, as a bigint[] literal ("{}": none).
std::string product_ids(const OrderInput& in) {
  std::vector<std::string> ids;
  for (const ItemInput& item : in.items) {
    if (item.product_id) ids.push_back(std::to_string(*item.product_id));
  }
  return array_literal(ids);
}

// Each item naming a product that is not one of `live` fails at
// `order_items.N.product_id`.
void report_products(const OrderInput& in, const std::set<int64_t>& live, FieldErrors& errs) {
  for (const ItemInput& item : in.items) {
    if (item.product_id && !live.count(*item.product_id)) {
      std::string key = "order_items." + std::to_string(item.index) + ".product_id";
      errs.add(key, "The selected " + key + " is invalid.");
    }
  }
}

// A bigint[] as PostgreSQL sends it: "{1,2,3}".
std::set<int64_t> id_set(std::string_view array) {
  std::set<int64_t> out;
  int64_t n = 0;
  bool digits = false;
  for (char c : array) {
    if (c >= '0' && c <= '9') {
      n = n * 10 + (c - '0');
      digits = true;
    } else if (digits) {
      out.insert(n);
      n = 0;
      digits = false;
    }
  }
  return out;
}

constexpr const char* kAddressInvalid = "The selected address_id is invalid.";

// Fields failed already: after the 401/400/403, the address and products
// checks are reported with them (every failure at once), nothing written.
Result<Response> refuse_invalid(Ctx& ctx, const OrderInput& in, FieldErrors& errs) {
  CA_TRY(who, authenticate_tenant_header(ctx));
  Queries checks;
  if (in.address_id) checks.push_back({&kAddress, {who.user_id, *in.address_id}});
  std::string ids = product_ids(in);
  if (ids != "{}") checks.push_back({&kProducts, {who.tenant_id, ids}});
  if (checks.empty()) return Error::invalid(errs);
  std::vector<DbResult> r = ctx.db.pipeline(checks);
  for (DbResult& each : r) {
    if (!each.ok()) return Error::database(each.error());
  }
  size_t next = 0;
  if (in.address_id && r[next++]->empty()) errs.add("address_id", kAddressInvalid);
  if (ids != "{}") {
    std::set<int64_t> live;
    const Rows& rows = r[next].rows();
    if (!rows.empty()) {
      const Col id = rows.col("id");
      for (int i = 0; i < rows.size(); ++i) live.insert(rows.int64(i, id));
    }
    report_products(in, live, errs);
  }
  return Error::invalid(errs);
}

}  // namespace

Result<Response> orders_create(Ctx& ctx) {
  Result<Json> body = parse_json_object(ctx.req);
  if (!body.ok()) return refuse_before_write(ctx, Access::tenant_header(), body);
  FieldErrors errs;
  OrderInput in = read_order(body->get(), errs);
  if (!errs.empty()) return refuse_invalid(ctx, in, errs);

  std::vector<std::string> sizes, qtys, amounts, notes;
  for (const ItemInput& item : in.items) {
    sizes.push_back(quoted(item.size));
    qtys.push_back(std::to_string(item.qty));
    amounts.push_back(item.amount);
    notes.push_back(quoted(item.notes));
  }
  CA_TRY(ids, send_check(ctx, Access::tenant_header(), [](const Principal&) {
           return Queries{{&kIds, {}}};
         }));
  const Rows& id_rows = ids.results[0].rows();
  const Principal& who = ids.who;
  CA_TRY(w, send_call(ctx,
                      {{&kCreate,
                        {who.tenant_id, id_rows.int64(0, "order_id"), id_rows.int64(0, "event_id"),
                         who.user_id, *in.address_id, in.payment_type, in.total_amount,
                         product_ids(in), array_literal(sizes), array_literal(qtys),
                         array_literal(amounts), array_literal(notes), audit_who(ctx, who)}}}));
  const Rows& rows = w[0].rows();
  if (rows.is_null(0, "json")) {  // a check failed: nothing was written
    if (!rows.boolean(0, "address_found")) errs.add("address_id", kAddressInvalid);
    report_products(in, id_set(rows.text(0, "live_product_ids")), errs);
    return Error::invalid(errs);
  }
  return Response::success(201, "Order created successfully", json_rendered(rows, 0));
}

}  // namespace ca
