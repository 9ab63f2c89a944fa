// Order creation (SPEC "Orders", rules 1-3). Every field and every item is
// checked first and all failures are reported together; the address and the
// products are each checked with one query, whatever the number of items.
// The order, all of its items (one multi-row insert from arrays) and the
// `order.created` event are written in one transaction: a failure anywhere
// leaves nothing behind.
#include <cstdio>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "auth.h"
#include "db.h"
#include "error.h"
#include "events.h"
#include "order_json.h"
#include "orders.h"
#include "validate.h"

namespace ca {
namespace {

// More items than any real order has; keeps one request's work bounded.
constexpr size_t kMaxItems = 500;
// NUMERIC(12,2).
constexpr double kMaxMoney = 9999999999.99;
constexpr int64_t kMaxInt32 = 2147483647;

// The caller's address, and the caller's name and email for the response.
const Statement kAddress{"orders_create_address",
                         "SELECT a.street, a.city, u.name, u.email "
                         "FROM addresses a JOIN users u ON u.id = a.user_id "
                         "WHERE a.user_id = $1 AND a.id = $2"};

// The live products of the tenant among the ids. FOR SHARE keeps them from
// being soft-deleted until this order is committed.
const Statement kProducts{"orders_create_products",
                          "SELECT id FROM products "
                          "WHERE tenant_id = $1 AND id = ANY ($2::bigint[]) AND deleted_at IS NULL "
                          "ORDER BY id FOR SHARE"};

// $1 tenant, $2 user, $3 address, $4 payment_type, $5 total_amount, then one
// array per item column, all in item order: $6 product ids, $7 sizes, $8 qtys,
// $9 amounts, $10 notes. Items get their ids in the order they were sent.
// Columns: CA_ORDER_COLUMNS (0-8), item id, product_id, size, qty, amount,
// notes (9-14); one row per item.
const Statement kCreate{
    "orders_create",
    "WITH o AS ("
    "  INSERT INTO orders (tenant_id, user_id, address_id, payment_type, total_amount) "
    "  VALUES ($1, $2, $3, $4, $5::numeric) RETURNING *), "
    "i AS ("
    "  INSERT INTO order_items (tenant_id, order_id, product_id, size, qty, amount, notes) "
    "  SELECT o.tenant_id, o.id, x.product_id, x.size, x.qty, x.amount, x.notes "
    "  FROM o CROSS JOIN unnest($6::bigint[], $7::text[], $8::integer[], $9::numeric[], "
    "                           $10::text[]) WITH ORDINALITY "
    "       AS x (product_id, size, qty, amount, notes, n) "
    "  ORDER BY x.n "
    "  RETURNING id, product_id, size, qty, amount, notes) "
    "SELECT " CA_ORDER_COLUMNS
    ", i.id, i.product_id, i.size, i.qty, i.amount, i.notes "
    "FROM o CROSS JOIN i ORDER BY i.id"};

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

struct Address {
  std::string street;
  std::string city;
  std::string user_name;  // the caller's, who owns the address
  std::string user_email;
};

// The address must be one of the caller's: `address_id` fails otherwise.
Result<Address> check_address(Ctx& ctx, int64_t user_id, const OrderInput& in, FieldErrors& errs) {
  Address out;
  if (!in.address_id) return out;
  DbResult r = ctx.db.exec(kAddress, {user_id, *in.address_id});
  if (!r.ok()) return Error::database(r.error());
  if (r->empty()) {
    errs.add("address_id", "The selected address_id is invalid.");
    return out;
  }
  out.street = r->str(0, 0);
  out.city = r->str(0, 1);
  out.user_name = r->str(0, 2);
  out.user_email = r->str(0, 3);
  return out;
}

// Every product must be a live product of the tenant: one query for all items;
// each item naming another one fails at `order_items.N.product_id`.
Result<bool> check_products(Ctx& ctx, int64_t tenant_id, const OrderInput& in, FieldErrors& errs) {
  std::vector<std::string> ids;
  for (const ItemInput& item : in.items) {
    if (item.product_id) ids.push_back(std::to_string(*item.product_id));
  }
  if (ids.empty()) return true;
  DbResult r = ctx.db.exec(kProducts, {tenant_id, array_literal(ids)});
  if (!r.ok()) return Error::database(r.error());
  std::set<int64_t> live;
  for (int i = 0; i < r->size(); ++i) live.insert(r->int64(i, 0));
  for (const ItemInput& item : in.items) {
    if (item.product_id && !live.count(*item.product_id)) {
      std::string key = "order_items." + std::to_string(item.index) + ".product_id";
      errs.add(key, "The selected " + key + " is invalid.");
    }
  }
  return true;
}

}  // namespace

Result<Response> orders_create(Ctx& ctx) {
  CA_TRY(who, authenticate_tenant_header(ctx));
  CA_TRY(body, parse_json_object(ctx.req));
  FieldErrors errs;
  OrderInput in = read_order(body.get(), errs);

  // The checks run inside the transaction so the products they saw stay live
  // until the order is committed.
  Transaction tx(ctx.db);
  if (!tx.began()) return Error::database(tx.begin_error());
  CA_TRY(address, check_address(ctx, who.user_id, in, errs));
  CA_TRY(products_checked, check_products(ctx, who.tenant_id, in, errs));
  (void)products_checked;
  if (!errs.empty()) return Error::invalid(errs);

  std::vector<std::string> product_ids, sizes, qtys, amounts, notes;
  for (const ItemInput& item : in.items) {
    product_ids.push_back(std::to_string(*item.product_id));
    sizes.push_back(quoted(item.size));
    qtys.push_back(std::to_string(item.qty));
    amounts.push_back(item.amount);
    notes.push_back(quoted(item.notes));
  }
  DbResult r =
      ctx.db.exec(kCreate, {who.tenant_id, who.user_id, *in.address_id, in.payment_type,
                            in.total_amount, array_literal(product_ids), array_literal(sizes),
                            array_literal(qtys), array_literal(amounts), array_literal(notes)});
  if (!r.ok()) return Error::database(r.error());
  const Rows& rows = r.rows();
  int64_t order_id = rows.int64(0, 0);

  Json event = order_event_json(order_id, who.user_id, rows.text(0, 6), rows.text(0, 5),
                                static_cast<int64_t>(rows.size()));
  DbResult emitted = emit_event(ctx.db, who.tenant_id, "order.created", event.get());
  if (!emitted.ok()) return Error::database(emitted.error());
  DbResult committed = tx.commit();
  if (!committed.ok()) return Error::database(committed.error());

  Json order = order_json(rows, 0, 0);
  Json items = json_array();
  for (int i = 0; i < rows.size(); ++i) {
    json_append(items.get(), order_item_json(rows, i, kOrderColumns, order_id));
  }
  json_add(order.get(), "items", std::move(items));
  json_add(order.get(), "user",
           order_user_json(who.user_id, address.user_name, address.user_email));
  Json addr = json_object();
  json_add_int(addr.get(), "id", *in.address_id);
  json_add_str(addr.get(), "street", address.street);
  json_add_str(addr.get(), "city", address.city);
  json_add(order.get(), "address", std::move(addr));
  return Response::success(201, "Order created successfully", std::move(order));
}

}  // namespace ca
