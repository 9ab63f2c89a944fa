#include "auth.h"

#include <algorithm>
#include <ctime>

#include "api_key.h"
#include "config.h"
#include "db.h"
#include "error.h"
#include "jwt.h"
#include "log.h"
#include "metrics.h"
#include "request_tx.h"

namespace ca {
namespace {

// The one rule of a live session (sessions s): the token's session ($1) of
// the token's subject ($2), not revoked, not expired. Every session check
// below uses it.
#define CA_SESSION_LIVE \
  "s.id = $1::uuid AND s.user_id = $2 AND s.revoked_at IS NULL AND s.expires_at > now()"

// $1 session id, $2 user id from the token, $3 tenant id or NULL.
// Columns: user id, name, email, role (NULL when not a member). A
// membership implies the tenant (foreign key), so whether a tenant exists is
// asked only when the caller is not a member and the answer matters (below).
// A live session implies an active user: deactivating a user revokes its
// sessions (sql/010), so the check reads the session and the membership
// (an index-only scan), not the user.
const Statement kAuthenticate{
    "auth_session",
    "SELECT s.user_id, "
    "       (SELECT m.role FROM memberships m WHERE m.tenant_id = $3::bigint AND m.user_id = $2) "
    "         AS role "
    "FROM sessions s "
    "WHERE " CA_SESSION_LIVE};

// The same check sent with a read of the tenant's data
// (authenticate_tenant_header_read), as one value: the caller's role. When
// there is no live session (SQLSTATE CA401) or the caller is not a member
// (CA403) it raises instead (sql/014), and the error stops the pipeline
// before the read is parsed or run: a logged-out token or a stranger to the
// tenant never makes the database read its rows. The session first, so
// that a dead session is a 401 whatever the tenant. ca_refuse() runs only on
// those paths; a row here always has a role. $3, the tenant, is written into
// its text on the tenant's Citus node (Statement::tenant_param, decision 0134).
constexpr const char* kNoSessionState = "CA401";
constexpr const char* kNotMemberState = "CA403";
const Statement kAuthenticateForRead{
    "auth_session_for_read",
    "SELECT CASE WHEN (SELECT s.user_id FROM sessions s WHERE " CA_SESSION_LIVE
    ") IS NULL "
    "            THEN ca_refuse('CA401', 'no live session') "
    "            ELSE COALESCE((SELECT m.role FROM memberships m "
    "                           WHERE m.tenant_id = $3::bigint AND m.user_id = $2), "
    "                          ca_refuse('CA403', 'not a member of the tenant')) END AS role",
    3};

// For writes: the session check of kAuthenticateForRead, and with $3 NULL
// (no tenant) the session alone; $4 'ADMIN' asks for that role, refused with
// CA4AD (sql/014's ca_refuse, on the refusal path only). Its value is the
// caller's role, or 'NONE' without a tenant.
constexpr const char* kNotAdminState = "CA4AD";
const Statement kAuthenticateForWrite{
    "auth_session_for_write",
    "SELECT CASE WHEN (SELECT s.user_id FROM sessions s WHERE " CA_SESSION_LIVE
    ") IS NULL "
    "            THEN ca_refuse('CA401', 'no live session') "
    "            WHEN $3::bigint IS NULL THEN 'NONE' "
    "            ELSE COALESCE((SELECT m.role FROM memberships m "
    "                           WHERE m.tenant_id = $3::bigint AND m.user_id = $2 "
    "                             AND ($4::text IS NULL OR m.role = $4::text)), "
    "                          CASE WHEN $4::text IS NOT NULL AND EXISTS ("
    "                                 SELECT 1 FROM memberships m "
    "                                 WHERE m.tenant_id = $3::bigint AND m.user_id = $2) "
    "                               THEN ca_refuse('CA4AD', 'not an admin of the tenant') "
    "                               ELSE ca_refuse('CA403', 'not a member of the tenant') END) "
    "       END AS role"};

// An API key's check (common/api_key.h), in the session check's place:
// one statement on the key's tenant's shard, whatever the request. $1 the
// key's tenant, $2 its id, $3 its creator, $4 the hash of its secret, all
// from the key; $5 the tenant the request is for (NULL: none named); $6 the
// scopes of which the route needs one (scopes_granting_literal()). It
// raises CA401 unless that very key is live, then CA4KT when the request
// is for another tenant, then CA4SC when the key has none of $6; otherwise
// its value is the role a key acts with (ADMIN), the key's name, and
// whether its last_used_at is over a minute old (kStampKey). A refusal
// stops the pipeline it leads, as the session checks' do. A read: the stamp
// is not in it (decision 0107). $1 is written into its text on the tenant's
// Citus node (Statement::tenant_param, decision 0134).
constexpr const char* kNoKeyState = "CA401";
constexpr const char* kKeyOtherTenantState = "CA4KT";
constexpr const char* kKeyScopeState = "CA4SC";
const Statement kAuthenticateKey{
    "auth_api_key",
    "WITH live_key AS (SELECT name, scopes, last_used_at FROM api_keys "
    "           WHERE tenant_id = $1 AND id = $2 AND created_by = $3 AND key_hash = $4::bytea "
    "             AND revoked_at IS NULL) "
    "SELECT CASE WHEN k.name IS NULL THEN ca_refuse('CA401', 'no live API key') "
    "            WHEN $5::bigint IS NOT NULL AND $5::bigint <> $1 "
    "              THEN ca_refuse('CA4KT', 'an API key of another tenant') "
    "            WHEN NOT (k.scopes && $6::text[]) "
    "              THEN ca_refuse('CA4SC', 'outside the API key''s scopes') "
    "            ELSE 'ADMIN' END AS role, k.name AS api_key_name, "
    "       k.last_used_at IS NULL OR k.last_used_at < now() - interval '1 minute' AS stamp_due "
    "FROM (SELECT 1) AS one (x) LEFT JOIN live_key k ON true",
    1};

// $1 tenant, $2 key id: last_used_at := now() unless another request has
// stamped it within the minute meanwhile. Sent by stamp_api_key_use() after
// the handler, outside the request's transaction, only when the check said
// the stamp is due: a key in steady use costs one row version and one
// statement a minute per handler process at most, not one per request.
const Statement kStampKey{
    "auth_stamp_api_key",
    "UPDATE api_keys SET last_used_at = now() "
    "WHERE tenant_id = $1 AND id = $2 AND revoked_at IS NULL "
    "  AND (last_used_at IS NULL OR last_used_at < now() - interval '1 minute')"};

const Statement kTenantExists{"auth_tenant_exists",
                              "SELECT EXISTS (SELECT 1 FROM tenants WHERE id = $1) AS found"};

// Only for an active user, whose row is held until the session is committed:
// a deactivation running meanwhile waits, then revokes it (sql/010). The
// lock is FOR NO KEY UPDATE, not FOR SHARE, so that two logins of one user
// take turns too: the second one's kCapSessions then sees the first one's
// session (a new snapshot per statement, READ COMMITTED), and the cap holds
// under concurrent logins. It does not conflict with the FOR KEY SHARE that
// foreign keys to users take (orders, memberships).
const Statement kCreateSession{"auth_create_session",
                               "INSERT INTO sessions (id, user_id, expires_at) "
                               "SELECT $1, u.id, to_timestamp($3) FROM users u "
                               "WHERE u.id = $2 AND u.is_active FOR NO KEY UPDATE OF u"};

// $1 user id, $2 the new session, $3 MAX_SESSIONS_PER_USER. Revokes the
// user's live sessions beyond the newest $3 - 1 others, in the same
// transaction as kCreateSession, and only when it created $2. The new one
// is never among them, though two logins' created_at (transaction start)
// may come in either order. A revoked session's token is refused by the
// next request's session check, in every process.
const Statement kCapSessions{
    "auth_cap_sessions",
    "UPDATE sessions SET revoked_at = now() "
    "WHERE id = ANY (ARRAY(SELECT s.id FROM sessions s "
    "                      WHERE s.user_id = $1 AND s.id <> $2::uuid AND s.revoked_at IS NULL "
    "                        AND s.expires_at > now() "
    "                      ORDER BY s.created_at DESC, s.id DESC OFFSET $3::int - 1)) "
    "  AND EXISTS (SELECT 1 FROM sessions n WHERE n.id = $2::uuid)"};

const Statement kRevokeSession{
    "auth_revoke_session",
    "UPDATE sessions SET revoked_at = now() WHERE id = $1 AND revoked_at IS NULL"};

bool looks_like_uuid(std::string_view s) {
  if (s.size() != 36) return false;
  for (size_t i = 0; i < s.size(); ++i) {
    char c = s[i];
    bool dash = i == 8 || i == 13 || i == 18 || i == 23;
    if (dash ? c != '-' : !((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'))) return false;
  }
  return true;
}

struct Lookup {
  Principal who;
  bool member = false;
  std::optional<DbResult> read;  // the piggybacked read, when one was asked for
};

// The credential after "Bearer " in the Authorization header; nullopt
// without one.
std::optional<std::string_view> bearer_credential(const Request& req) {
  std::string_view header = req.authorization;
  constexpr std::string_view kBearer = "bearer ";
  // The scheme name is case-insensitive (RFC 7235 §2.1): "bearer x" is "Bearer x".
  auto lower = [](char c) { return (c >= 'A' && c <= 'Z') ? static_cast<char>(c + 32) : c; };
  if (header.size() <= kBearer.size() ||
      !std::equal(kBearer.begin(), kBearer.end(), header.begin(),
                  [&](char a, char b) { return a == lower(b); })) {
    return std::nullopt;
  }
  return header.substr(kBearer.size());
}

void note_key_outcome(ApiKeyOutcome outcome) {
  log_request_context().api_key_outcome = static_cast<int>(outcome);
}

// What the bearer credential claims, checked in the process: a session
// token's claims (signature and expiry), or an API key's parts (its form
// only; the database checks the rest). 401 otherwise.
struct Bearer {
  TokenClaims token;               // when !key
  std::optional<ApiKeyParts> key;  // an API key
  int64_t user_id() const { return key ? key->creator_id : token.sub; }
};
Result<Bearer> verify_bearer(const Request& req, const Config& config) {
  std::optional<std::string_view> credential = bearer_credential(req);
  if (!credential) return Error::unauthenticated();
  Bearer out;
  if (api_key_like(*credential)) {
    out.key = api_key_parse(*credential);
    if (!out.key) {
      note_key_outcome(ApiKeyOutcome::kUnauthenticated);
      return Error::unauthenticated();
    }
    return out;
  }
  auto claims = jwt_verify(*credential, config.token_secret, std::time(nullptr));
  if (!claims || !looks_like_uuid(claims->jti)) return Error::unauthenticated();
  out.token = std::move(*claims);
  return out;
}
Result<Bearer> verify_bearer(const Ctx& ctx) { return verify_bearer(ctx.req, ctx.config); }

// The key's check for a request to `tenant_id` (nullopt: none named) on
// this route.
Db::Query key_check_query(const Ctx& ctx, const ApiKeyParts& key,
                          std::optional<int64_t> tenant_id) {
  return {&kAuthenticateKey,
          {key.tenant_id, key.key_id, key.creator_id, api_key_secret_hash(key.secret), tenant_id,
           scopes_granting_literal(ctx.scope)}};
}

// The caller a key's check vouched for, or its refusal (401, 403); either
// way counted in /metrics.
Result<Principal> key_check_result(Ctx& ctx, const ApiKeyParts& key,
                                   std::optional<int64_t> tenant_id, DbResult& r) {
  if (!r.ok()) {
    const std::string& state = r.error().sqlstate;
    if (state == kNoKeyState) {
      note_key_outcome(ApiKeyOutcome::kUnauthenticated);
      return Error::unauthenticated();
    }
    if (state == kKeyOtherTenantState) {
      note_key_outcome(ApiKeyOutcome::kOtherTenant);
      return Error::forbidden("This API key belongs to another tenant");
    }
    if (state == kKeyScopeState) {
      note_key_outcome(ApiKeyOutcome::kOutsideScope);
      std::string message = "This API key does not have the ";
      message += scope_name(ctx.scope);
      message += " scope";
      return Error::forbidden(std::move(message));
    }
    return Error::database(r.error());
  }
  note_key_outcome(ApiKeyOutcome::kAccepted);
  if (r->boolean(0, "stamp_due")) ctx.key_to_stamp = {key.tenant_id, key.key_id};
  Principal who;
  who.user_id = key.creator_id;
  who.tenant_id = tenant_id.value_or(0);
  who.api_key_id = key.key_id;
  who.api_key_name = r->str(0, "api_key_name");
  who.role = Role::kAdmin;
  LogRequestContext& log = log_request_context();
  log.user_id = who.user_id;
  log.api_key_id = who.api_key_id;
  if (tenant_id) log.tenant_id = who.tenant_id;
  return who;
}

// lookup() for an API key: its check in the session check's place (the
// same round trip, with the read or the key's claim). A key that passes is
// a member of the tenant it was asked for.
Result<Lookup> lookup_key(Ctx& ctx, const ApiKeyParts& key, std::optional<int64_t> tenant_id,
                          const Db::Query* read, bool claim) {
  Db::Query check = key_check_query(ctx, key, tenant_id);
  Lookup out;
  std::vector<DbResult> results;
  if (read != nullptr) {
    results = ctx.db.pipeline({check, *read});
  } else if (claim) {
    results.push_back(ctx.tx->check_caller(check, key.creator_id, tenant_id.value_or(0)));
  } else {
    results.push_back(ctx.db.exec(*check.stmt, check.params));
  }
  CA_TRY(who, key_check_result(ctx, key, tenant_id, results[0]));
  out.who = std::move(who);
  out.member = tenant_id.has_value();
  if (read != nullptr) out.read.emplace(std::move(results[1]));
  return out;
}

// Given verified claims, checks in one round trip the session, the
// membership and, when `read` is given, runs that statement too (libpq
// pipeline), but only for a member of the tenant. On a keyed request
// (common/idempotency.h) with `claim`, the check goes out with BEGIN and the
// claim of the key, in the same round trip.
Result<Lookup> lookup(Ctx& ctx, const Bearer& bearer, std::optional<int64_t> tenant_id,
                      const Db::Query* read = nullptr, bool claim = false) {
  if (bearer.key) return lookup_key(ctx, *bearer.key, tenant_id, read, claim);
  const TokenClaims& claims = bearer.token;
  Lookup out;
  out.who.session_id = claims.jti;
  if (tenant_id) out.who.tenant_id = *tenant_id;
  if (read != nullptr) {
    std::vector<DbResult> results =
        ctx.db.pipeline({{&kAuthenticateForRead, {claims.jti, claims.sub, tenant_id}}, *read});
    DbResult& r = results[0];
    if (!r.ok()) {
      // The read was not run.
      if (r.error().sqlstate == kNoSessionState) return Error::unauthenticated();
      if (r.error().sqlstate != kNotMemberState) return Error::database(r.error());
      return out;  // not a member: 403
    }
    // The session matched the token's subject.
    out.who.user_id = claims.sub;
    out.member = true;
    log_request_context().user_id = out.who.user_id;
    log_request_context().tenant_id = out.who.tenant_id;
    out.who.role = role_parse(r->text(0, "role")).value_or(Role::kMember);
    out.read.emplace(std::move(results[1]));
    return out;
  }
  Db::Query check{&kAuthenticate, {claims.jti, claims.sub, tenant_id}};
  // The key is claimed for the token's subject before the session says the
  // token is live: nothing of it commits unless the request is allowed.
  DbResult r = claim ? ctx.tx->check_caller(check, claims.sub, tenant_id.value_or(0))
                     : ctx.db.exec(kAuthenticate, check.params);
  if (!r.ok()) return Error::database(r.error());
  if (r->empty()) return Error::unauthenticated();
  out.who.user_id = r->int64(0, "user_id");
  log_request_context().user_id = out.who.user_id;
  if (!r->is_null(0, "role")) {
    out.member = true;
    log_request_context().tenant_id = out.who.tenant_id;
    out.who.role = role_parse(r->text(0, "role")).value_or(Role::kMember);
  }
  return out;
}

Result<Lookup> lookup(Ctx& ctx, std::optional<int64_t> tenant_id, bool claim = false) {
  CA_TRY(bearer, verify_bearer(ctx));
  return lookup(ctx, bearer, tenant_id, nullptr, claim);
}

// The caller is allowed: on a keyed request, the idempotency key has the
// last word (a stored answer, 422, 400).
Result<Principal> allowed(Ctx& ctx, Principal who) {
  Result<bool> go_on = ctx.tx->after_auth();
  if (!go_on.ok()) return std::move(go_on.error());
  return who;
}

// 403 unless the caller is a member with `min_role`; no key's last word.
Result<Principal> member_with_role(Lookup& l, Role min_role) {
  if (!l.member) return Error::forbidden("You are not a member of this tenant");
  if (min_role == Role::kAdmin && l.who.role != Role::kAdmin) {
    return Error::forbidden("This action requires the ADMIN role");
  }
  return std::move(l.who);
}

Result<Principal> check_role(Ctx& ctx, Lookup& l, Role min_role) {
  CA_TRY(who, member_with_role(l, min_role));
  return allowed(ctx, std::move(who));
}

// With the tenant in the path, no such tenant is a 404, not a 403: one
// more round trip, on the refusal path only.
Result<bool> path_tenant_exists_unless_member(Ctx& ctx, const Lookup& l, int64_t tenant_id) {
  if (l.member) return true;
  DbResult exists = ctx.db.exec(kTenantExists, {tenant_id});
  if (!exists.ok()) return Error::database(exists.error());
  if (!exists->boolean(0, "found")) return Error::not_found("Tenant not found");
  return true;
}

}  // namespace

bool bearer_verifies(const Ctx& ctx) { return verify_bearer(ctx).ok(); }
bool bearer_verifies(const Request& req, const Config& config) {
  return verify_bearer(req, config).ok();
}

void stamp_api_key_use(Ctx& ctx) {
  const ApiKeyRef key = ctx.key_to_stamp;
  if (key.key_id == 0) return;
  ctx.key_to_stamp = {};
  // Never inside a transaction a handler left open: its rollback would take
  // the stamp with it, or the stamp's row lock would outlive the request.
  if (ctx.db.in_transaction()) return;
  DbResult r = ctx.db.exec(kStampKey, {key.tenant_id, key.key_id});
  if (!r.ok()) {
    log_warn("api key %lld: last_used_at not stamped: %s", static_cast<long long>(key.key_id),
             r.error().message.c_str());
  }
}

bool bearer_is_api_key(const Request& req) {
  std::optional<std::string_view> credential = bearer_credential(req);
  return credential && api_key_like(*credential);
}

const char* role_name(Role role) { return role == Role::kAdmin ? "ADMIN" : "MEMBER"; }

std::optional<Role> role_parse(std::string_view text) {
  if (text == "ADMIN") return Role::kAdmin;
  if (text == "MEMBER") return Role::kMember;
  return std::nullopt;
}

Result<Principal> authenticate(Ctx& ctx) {
  CA_TRY(l, lookup(ctx, std::nullopt, /*claim=*/true));
  return allowed(ctx, std::move(l.who));
}

Result<Principal> authenticate_tenant_header(Ctx& ctx, Role min_role) {
  // The token is checked first (401 before 400), without a tenant.
  int64_t tenant_id = parse_id(ctx.req.tenant_header);
  if (!ctx.req.has_tenant_header || tenant_id == 0) {
    CA_TRY(l, lookup(ctx, std::nullopt));
    (void)l;
    return Error::bad_request(ctx.req.has_tenant_header
                                  ? "X-Tenant-ID must be a positive integer tenant id"
                                  : "The X-Tenant-ID header is required");
  }
  // A tenant that does not exist and one the caller is not a member of
  // are the same 403 here.
  CA_TRY(l, lookup(ctx, tenant_id, /*claim=*/true));
  return check_role(ctx, l, min_role);
}

Result<TenantRead> authenticate_tenant_header_read(Ctx& ctx, const Statement& read,
                                                   std::vector<Param> params, ReadArgs args) {
  int64_t tenant_id = parse_id(ctx.req.tenant_header);
  if (!ctx.req.has_tenant_header || tenant_id == 0) {
    CA_TRY(who, authenticate_tenant_header(ctx));  // answers 401 or 400
    (void)who;
  }
  CA_TRY(bearer, verify_bearer(ctx));
  // The token's subject (a key's creator) is only vouched for by its
  // signature until the session (key) check has run: the read's rows are
  // discarded unless that check finds this very user's live session.
  if (args == ReadArgs::kTenantAndUser) params.insert(params.begin(), bearer.user_id());
  params.insert(params.begin(), tenant_id);
  Db::Query query{&read, std::move(params)};
  CA_TRY(l, lookup(ctx, bearer, tenant_id, &query));
  CA_TRY(who, check_role(ctx, l, Role::kMember));
  return TenantRead{std::move(who), std::move(*l.read)};
}

Error refuse_after_tenant_auth(Ctx& ctx, Error refusal) {
  Result<Principal> who = authenticate_tenant_header(ctx);
  return who.ok() ? std::move(refusal) : std::move(who.error());
}

Result<Principal> authenticate_path_tenant(Ctx& ctx, int64_t tenant_id, Role min_role) {
  CA_TRY(l, lookup(ctx, tenant_id, /*claim=*/true));
  CA_TRY(exists, path_tenant_exists_unless_member(ctx, l, tenant_id));
  (void)exists;
  return check_role(ctx, l, min_role);
}

Result<Principal> authenticate_path_tenant_unclaimed(Ctx& ctx, int64_t tenant_id, Role min_role) {
  CA_TRY(l, lookup(ctx, tenant_id));
  CA_TRY(exists, path_tenant_exists_unless_member(ctx, l, tenant_id));
  (void)exists;
  return member_with_role(l, min_role);
}

Result<std::string> issue_token(Ctx& ctx, int64_t user_id, std::optional<Db::Query> also) {
  TokenClaims c;
  c.sub = user_id;
  c.jti = random_uuid();
  c.iat = std::time(nullptr);
  c.exp = c.iat + ctx.config.token_ttl_seconds;
  std::vector<Db::Query> queries{
      {&kCreateSession, {c.jti, user_id, c.exp}},
      {&kCapSessions, {user_id, c.jti, ctx.config.max_sessions_per_user}}};
  if (also) queries.push_back(std::move(*also));
  std::vector<DbResult> r = ctx.db.pipeline(queries);
  for (DbResult& each : r) {
    if (!each.ok()) return Error::database(each.error());
  }
  // Deactivated since its password was checked: no session, as for a wrong password.
  if (r[0]->affected() == 0) return Error::bad_credentials("Invalid credentials");
  return jwt_sign(c, ctx.config.token_secret);
}

Result<WriteCheck> write_check(Ctx& ctx, const Access& access) {
  if (access.kind == Access::Kind::kAnyone)
    return Error::internal("write_check: no session to check");
  std::optional<int64_t> tenant_id;
  if (access.kind == Access::Kind::kTenantHeader) {
    int64_t id = parse_id(ctx.req.tenant_header);
    if (!ctx.req.has_tenant_header || id == 0) {
      CA_TRY(who, authenticate_tenant_header(ctx));  // answers 401 or 400
      (void)who;
    }
    tenant_id = id;
  } else if (access.kind == Access::Kind::kPathTenant) {
    tenant_id = access.tenant_id;
  }
  CA_TRY(bearer, verify_bearer(ctx));
  WriteCheck out;
  if (bearer.key) {
    // What the key claims, vouched for once its check has run (as a
    // token's subject is); a key acts as an ADMIN within its scopes.
    out.who.user_id = bearer.key->creator_id;
    out.who.tenant_id = tenant_id.value_or(0);
    out.who.api_key_id = bearer.key->key_id;
    out.who.role = Role::kAdmin;
    out.query = key_check_query(ctx, *bearer.key, tenant_id);
    out.key = std::move(bearer.key);
    return out;
  }
  const TokenClaims& claims = bearer.token;
  out.who.user_id = claims.sub;
  out.who.session_id = claims.jti;
  out.who.tenant_id = tenant_id.value_or(0);
  std::optional<std::string> role;
  if (tenant_id && access.min_role == Role::kAdmin) role = role_name(Role::kAdmin);
  out.query = {&kAuthenticateForWrite, {claims.jti, claims.sub, tenant_id, role}};
  return out;
}

Result<Principal> write_check_result(Ctx& ctx, const Access& access, const WriteCheck& check,
                                     DbResult& r) {
  if (check.key) {
    std::optional<int64_t> tenant_id;
    if (access.kind != Access::Kind::kSession) tenant_id = check.who.tenant_id;
    return key_check_result(ctx, *check.key, tenant_id, r);
  }
  if (!r.ok()) {
    const std::string& state = r.error().sqlstate;
    if (state == kNoSessionState) return Error::unauthenticated();
    if (state == kNotAdminState) return Error::forbidden("This action requires the ADMIN role");
    if (state != kNotMemberState) return Error::database(r.error());
    if (access.kind == Access::Kind::kPathTenant) {
      // With the tenant in the path, no such tenant is a 404, not a 403.
      DbResult exists = ctx.db.exec(kTenantExists, {access.tenant_id});
      if (!exists.ok()) return Error::database(exists.error());
      if (!exists->boolean(0, "found")) return Error::not_found("Tenant not found");
    }
    return Error::forbidden("You are not a member of this tenant");
  }
  Principal who = check.who;
  log_request_context().user_id = who.user_id;
  if (access.kind != Access::Kind::kSession) {
    log_request_context().tenant_id = who.tenant_id;
    who.role = role_parse(r->text(0, "role")).value_or(Role::kMember);
  }
  return who;
}

Db::Query revoke_session_query(const Principal& who) { return {&kRevokeSession, {who.session_id}}; }

}  // namespace ca
