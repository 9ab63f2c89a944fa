#include "members.h"

#include "auth.h"
#include "db.h"
#include "errors.h"
#include "events.h"
#include "member_json.h"
#include "password.h"
#include "validate.h"

namespace ca {
namespace {

// The page and the total in one round trip; a page past the end still has the total.
const Statement kList{
    "members_list",
    "WITH total AS (SELECT count(*) AS n FROM memberships WHERE tenant_id = $1), "
    "page AS (SELECT m.user_id, u.name, u.email, m.role, m.created_at AS joined_at, "
    "                m.created_at "
    "         FROM memberships m JOIN users u ON u.id = m.user_id WHERE m.tenant_id = $1 "
    "         ORDER BY m.created_at, m.user_id LIMIT $2 OFFSET $3) "
    "SELECT total.n, page.user_id, page.name, page.email, page.role, page.joined_at "
    "FROM total LEFT JOIN page ON true ORDER BY page.created_at, page.user_id"};

const Statement kFindUser{"members_find_user",
                          "SELECT id, name, email FROM users WHERE lower(email) = lower($1)"};

const Statement kCreateUser{
    "members_create_user",
    "INSERT INTO users (name, email, password_hash) VALUES ($1, $2, $3) RETURNING id"};

// Adds the membership and makes this tenant the user's current one; no row
// when the user is a member already.
const Statement kAddMember{
    "members_add",
    "WITH m AS (INSERT INTO memberships (tenant_id, user_id, role) VALUES ($1, $2, $3) "
    "           ON CONFLICT DO NOTHING RETURNING user_id) "
    "UPDATE users SET tenant_id = $1, updated_at = now() WHERE id IN (SELECT user_id FROM m) "
    "RETURNING id"};

}  // namespace

Response members_list(Ctx& ctx) {
  int64_t tenant_id = ctx.req.params[0];
  CA_TRY(who, authenticate_path_tenant(ctx, tenant_id));
  (void)who;
  CA_TRY(page, read_page_params(ctx.req, 15, ErrorStyle::kPlain));
  DbResult r = ctx.db.exec(kList, {tenant_id, page.per_page, page.offset()});
  if (!r.ok()) return errors::database(r.error());
  Json data = json_array();
  for (int i = 0; i < r->size(); ++i) {
    if (r->is_null(i, 1)) continue;  // the LEFT JOIN's empty page
    Json m = json_object();
    json_add_int(m.get(), "user_id", r->int64(i, 1));
    json_add_str(m.get(), "name", r->text(i, 2));
    json_add_str(m.get(), "email", r->text(i, 3));
    json_add_str(m.get(), "role", r->text(i, 4));
    json_add_str(m.get(), "joined_at", r->text(i, 5));
    json_append(data.get(), std::move(m));
  }
  return Response::json(200, paginated(std::move(data), page, r->int64(0, 0)));
}

Response members_add(Ctx& ctx) {
  int64_t tenant_id = ctx.req.params[0];
  CA_TRY(who, authenticate_path_tenant(ctx, tenant_id, Role::kAdmin));
  CA_TRY(body, parse_json_object(ctx.req));
  FieldErrors errs;
  BodyReader in(body.get(), errs);
  // 3..254 as the users table's CHECK: a shorter one would reach it as a 500.
  auto email = in.str("email", {.required = true, .trim = true, .min = 3, .max = 254});
  auto role = in.str("role", {.required = true, .one_of = {"ADMIN", "MEMBER"}});
  auto name = in.str("name", {.nullable = true, .trim = true, .min = 1, .max = 255});
  auto password = in.str("password", {.nullable = true, .min = 8, .max = 1024});
  if (email.has_value() && !email_plausible(email.value)) {
    errs.add("email", "The email field must be a valid email address.");
  }
  if (!errs.empty()) return errors::validation(errs);

  DbResult found = ctx.db.exec(kFindUser, {email.value});
  if (!found.ok()) return errors::database(found.error());
  int64_t user_id = 0;
  std::string user_name, user_email;
  std::optional<std::string> hash;
  if (found->empty()) {
    // A new account: name and password are needed to create it.
    if (!name.has_value()) errs.add("name", "The name field is required for a new account.");
    if (!password.has_value()) {
      errs.add("password", "The password field is required for a new account.");
    }
    if (!errs.empty()) return errors::validation(errs);
    hash = password_hash(password.value);
    if (!hash) return errors::internal("password hashing failed");
    user_name = name.value;
    user_email = email.value;
  } else {
    user_id = found->int64(0, 0);
    user_name = found->str(0, 1);
    user_email = found->str(0, 2);
  }

  Transaction tx(ctx.db);
  if (!tx.began()) return errors::database(tx.begin_error());
  // One being demoted at this moment must not add an ADMIN afterwards.
  CA_TRY(still_admin, lock_tenant_as_admin(ctx, tenant_id, who.user_id));
  (void)still_admin;
  if (hash) {
    DbResult created = ctx.db.exec(kCreateUser, {user_name, user_email, *hash});
    if (!created.ok()) {
      if (created.error().kind == DbErrorKind::kUniqueViolation) {
        return errors::conflict("An account with this email was created at the same time; retry");
      }
      return errors::database(created.error());
    }
    user_id = created->int64(0, 0);
  }
  DbResult added = ctx.db.exec(kAddMember, {tenant_id, user_id, role.value});
  if (!added.ok()) return errors::database(added.error());
  if (added->empty()) return errors::conflict("The user is already a member of this tenant");

  Json event = json_object();
  json_add_int(event.get(), "user_id", user_id);
  json_add_str(event.get(), "name", user_name);
  json_add_str(event.get(), "email", user_email);
  json_add_str(event.get(), "role", role.value);
  json_add_int(event.get(), "invited_by", who.user_id);
  DbResult emitted = emit_event(ctx.db, tenant_id, "user.registered", event.get());
  if (!emitted.ok()) return errors::database(emitted.error());
  DbResult committed = tx.commit();
  if (!committed.ok()) return errors::database(committed.error());

  return member_response(201, "Team member added", tenant_id, user_id, role.value, user_name,
                         user_email);
}

}  // namespace ca
