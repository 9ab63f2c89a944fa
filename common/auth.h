// Who is calling: bearer token -> session -> user, and membership of a tenant.
//
// One database round trip answers all of it: the token's signature and
// expiry are checked in the process, then a single prepared statement checks
// the session is live (which implies the user is active: sql/010) and, when
// a tenant is asked for, the user's role in it.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "api_key.h"
#include "db.h"
#include "result.h"
#include "router.h"

namespace ca {

enum class Role { kMember, kAdmin };

const char* role_name(Role role);
std::optional<Role> role_parse(std::string_view text);

struct Principal {
  int64_t user_id = 0;
  std::string session_id;
  int64_t tenant_id = 0;  // the tenant this request acts on, when any
  Role role = Role::kMember;
  // The API key the request came with, 0 for a session. A key acts for its
  // tenant; user_id is then the key's creator (the writer of records that
  // keep a created_by or user_id).
  int64_t api_key_id = 0;
  // The key's name as its check read it (for logs and audit entries);
  // empty for a session, and in the `who` a write's statements are built
  // from (request_tx.h), which precedes the check.
  std::string api_key_name;
};

// Token + live session; 401 otherwise.
// True when the request's bearer token has a valid signature and has not
// expired, or is a well-formed API key: no database, no session or key
// check (that comes with authenticate()).
bool bearer_verifies(const Ctx& ctx);
// The same before a request has a Ctx (serve_request).
bool bearer_verifies(const Request& req, const Config& config);

// True when the request's bearer credential is an API key (common/api_key.h),
// well-formed or not. A route that declares no scope refuses it (403)
// before anything else (route_dispatch.cc).
bool bearer_is_api_key(const Request& req);

// After the handler: stamps last_used_at of the API key the request came
// with, when its check found the stamp over a minute old
// (Ctx::key_to_stamp); nothing otherwise. Outside any transaction: a
// failure is logged, never the request's (docs/decisions/0107).
void stamp_api_key_use(Ctx& ctx);

// API keys. Every function below accepts, beside a session token, an API
// key of the tenant the request is for, on a route that declares a scope
// (Ctx::scope) the key has: its check (common/auth.cc, kAuthenticateKey)
// takes the session check's place in the same statement slot and round
// trip. A live key of another tenant is 403, a key without the scope 403;
// an unknown, revoked or altered key 401. A key passes the role checks as
// an ADMIN would (its scopes are what limits it).

Result<Principal> authenticate(Ctx& ctx);

// Token + membership of the tenant in `X-Tenant-ID`: 401, then 400 when the
// header is missing or not an id, 403 when the tenant does not exist or the
// caller is not a member (or not ADMIN when `min_role` is kAdmin).
Result<Principal> authenticate_tenant_header(Ctx& ctx, Role min_role = Role::kMember);

// For reads: authenticate_tenant_header() and `read` in one round trip. The
// statement gets the X-Tenant-ID tenant as $1 (with kTenantAndUser the
// caller's user id as $2), then `params`; its result is returned only when
// the caller is a member (otherwise it is discarded and the usual 401/400/403
// is the answer). Never use it for writes: the statement runs before the
// membership is known.
enum class ReadArgs { kTenant, kTenantAndUser };
struct TenantRead {
  Principal who;
  DbResult rows;
};
Result<TenantRead> authenticate_tenant_header_read(Ctx& ctx, const Statement& read,
                                                   std::vector<Param> params,
                                                   ReadArgs args = ReadArgs::kTenant);

// For a request refused before a piggybacked read (a bad page or filter):
// the 401/400/403 of authenticate_tenant_header() when there is one, since
// those come first, else `refusal`.
Error refuse_after_tenant_auth(Ctx& ctx, Error refusal);

// Token + membership of a tenant named in the path: 401, then 404 when the
// tenant does not exist, 403 when not a member (or not ADMIN when required).
Result<Principal> authenticate_path_tenant(Ctx& ctx, int64_t tenant_id,
                                           Role min_role = Role::kMember);

// authenticate_path_tenant() without the claim of an Idempotency-Key: the
// caller's 401, 404 or 403 and nothing else, with no transaction opened
// (a keyed request's opens with its write, which claims the key). For a
// write that must know its caller is allowed before slow work it does
// outside any transaction (webhooks_create resolves a host name).
Result<Principal> authenticate_path_tenant_unclaimed(Ctx& ctx, int64_t tenant_id,
                                                     Role min_role = Role::kMember);

// Creates a session for `user_id` and returns its signed token; 401
// "Invalid credentials" when the user is no longer active. The user's
// oldest live sessions beyond MAX_SESSIONS_PER_USER (the new one included)
// are revoked in the same transaction. `also`, when given, runs in that
// transaction and round trip too, after them (it should do nothing unless
// the session exists: the user may have been deactivated meanwhile).
Result<std::string> issue_token(Ctx& ctx, int64_t user_id,
                                std::optional<Db::Query> also = std::nullopt);

// The statement that revokes the session of the presented token (logout,
// through send_once()).
Db::Query revoke_session_query(const Principal& who);

// --- For writes (common/request_tx.h) -------------------------------------------

// Who may make a write: any live session (the caller's own records), or a
// member of the X-Tenant-ID tenant or of the tenant in the path, with at
// least `min_role`; or anyone (kAnyone: no session to check, the write
// statement checks what the request presents, as an invitation's token
// does; send_once() only, on a route that takes no Idempotency-Key).
struct Access {
  enum class Kind { kSession, kTenantHeader, kPathTenant, kAnyone };
  Kind kind = Kind::kSession;
  int64_t tenant_id = 0;  // kPathTenant
  Role min_role = Role::kMember;

  static Access session() { return {}; }
  static Access tenant_header(Role min_role = Role::kMember) {
    return {Kind::kTenantHeader, 0, min_role};
  }
  static Access path_tenant(int64_t tenant_id, Role min_role = Role::kMember) {
    return {Kind::kPathTenant, tenant_id, min_role};
  }
  static Access anyone() { return {Kind::kAnyone, 0, Role::kMember}; }
};

// The session check of a write, as a statement that raises unless the
// caller may write (no live session, not a member, not the role): sent
// first in the write's round trip, it stops everything after it.
// `who` is what the token and the request claim (user, tenant), vouched for
// only once the check has succeeded.
struct WriteCheck {
  Principal who;
  Db::Query query;
  std::optional<ApiKeyParts> key;  // the request's API key, when it came with one
};

// The token verified in the process (401) and, for kTenantHeader, the header
// read; a missing or bad X-Tenant-ID is answered here (401 before 400, with
// a round trip of its own, as authenticate_tenant_header() does).
Result<WriteCheck> write_check(Ctx& ctx, const Access& access);

// The check's result: the caller (logged as the request's user and
// tenant), or the refusal: 401, 403 (not a member; the role), 404 for a
// kPathTenant tenant that does not exist (one more query: call it with no
// transaction open), 500/503.
Result<Principal> write_check_result(Ctx& ctx, const Access& access, const WriteCheck& check,
                                     DbResult& r);

}  // namespace ca
