#include "api_keys.h"

#include <string>

#include "api_key.h"
#include "audit.h"
#include "auth.h"
#include "config.h"
#include "db.h"
#include "error.h"
#include "json_rendered.h"
#include "page_rows.h"
#include "request_tx.h"
#include "validate.h"

namespace ca {
namespace {

// The key as JSON (sql/053), without the key itself.
#define CA_API_KEY_JSON                                                                \
  "ca_api_key_json(tenant_id => tenant_id, id => id, name => name, scopes => scopes, " \
  "secret_head => secret_head, created_by => created_by, created_at => created_at, "   \
  "last_used_at => last_used_at) AS json"

// A create: the key's id from the coordinator's sequence with the session
// check (send_check(), send_call(): common/request_tx.h), then one call of
// ca_api_key_create() (sql/064), which Citus runs whole on the tenant's
// worker (docs/decisions/0140-member-and-key-writes-are-delegated-calls.md):
// the tenant's turn at its keys (cap_locks), the count of its live keys (at
// $8 API_KEYS_MAX_PER_TENANT it raises CA422 with $9, a 422 under "limit",
// which writes nothing), the key and its audit entry api_key.created. $3
// the scopes (text[]), $4 the secret's hash (bytea), $5 its first digits,
// $6 the creator, $10 the caller (audit_who()). Only the hash of the
// secret reaches the database.
const Statement kCreateId{"api_keys_create_id", "SELECT nextval('api_keys_id_seq') AS id"};
const Statement kCreate{
    "api_keys_create",
    "SELECT json FROM ca_api_key_create(tenant_id => $1, api_key_id => $2, name => $3::text, "
    "scopes => $4::text[], key_hash => $5::bytea, secret_head => $6::text, "
    "created_by => $7::bigint, max => $8::bigint, refusal => $9::text, who => $10::jsonb)"};

// A tenant's live keys, oldest first: the page and the total in one statement.
const Statement kList{"api_keys_list",
                      "WITH total AS (SELECT count(*) AS n FROM api_keys "
                      "               WHERE tenant_id = $1 AND revoked_at IS NULL), "
                      "page AS (SELECT id, " CA_API_KEY_JSON
                      " FROM api_keys WHERE tenant_id = $1 AND revoked_at IS NULL "
                      "         ORDER BY id LIMIT $2 OFFSET $3) "
                      "SELECT total.n AS total, page.json FROM total LEFT JOIN page ON true "
                      "ORDER BY page.id"};

// Revokes the key unless it is revoked already (its first revocation's
// time stays); `found` says whether the tenant has such a key at all. The
// very next request with it fails its check (common/auth.cc), in every
// process: nothing caches a key. The audit entry api_key.revoked, when
// this call revoked it: one call of ca_api_key_revoke() (sql/062), which
// Citus runs whole on the tenant's worker
// (docs/decisions/0138-writes-are-delegated-calls.md). $3 audit_who().
const Statement kRevoke{"api_keys_revoke",
                        "SELECT key_found AS found FROM ca_api_key_revoke(tenant_id => $1, "
                        "api_key_id => $2::bigint, who => $3::jsonb)"};

constexpr size_t kMaxName = 255;
constexpr int kMaxScopes = 12;

// `scopes`: 1 to kMaxScopes distinct known scope names, as a text[]
// literal. Item errors use dotted keys (scopes.1), as webhook events do.
std::string read_scopes(BodyReader& in, FieldErrors& errs) {
  auto list = in.array("scopes", {.required = true});
  std::string out = "{";
  if (!list.has_value()) return out + "}";
  int n = cJSON_GetArraySize(list.value);
  if (n == 0) {
    errs.add("scopes", "The scopes field must contain at least 1 item.");
  } else if (n > kMaxScopes) {
    // Refused whole: a long list must repeat itself, and one error per item
    // would let a small body ask for a large answer.
    errs.add("scopes",
             "The scopes field must not have more than " + std::to_string(kMaxScopes) + " items.");
  }
  if (n == 0 || n > kMaxScopes) return out + "}";
  auto known = [](std::string_view name) { return scope_parse(name).has_value(); };
  for (const std::string& scope : distinct_known_names(list.value, "scopes", known, errs)) {
    if (out.size() > 1) out += ',';
    out += scope;  // a known name: nothing to quote
  }
  return out + "}";
}

}  // namespace

Result<Response> api_keys_create(Ctx& ctx) {
  const int64_t tenant_id = ctx.req.params[0];
  const Access access = Access::path_tenant(tenant_id, Role::kAdmin);
  Result<Json> body = parse_json_object(ctx.req);
  if (!body.ok()) return refuse_before_write(ctx, access, body);
  FieldErrors errs;
  BodyReader in(body->get(), errs);
  auto name = in.str("name", {.required = true, .trim = true, .min = 1, .max = kMaxName});
  std::string scopes = read_scopes(in, errs);
  if (!errs.empty()) return refuse_before_write(ctx, access, body, errs);

  ApiKeyParts key;
  key.tenant_id = tenant_id;
  key.secret = api_key_secret_generate();
  CA_TRY(ids, send_check(ctx, access, [](const Principal&) { return Queries{{&kCreateId, {}}}; }));
  key.key_id = ids.results[0].rows().int64(0, "id");
  CA_TRY(w,
         send_call(
             ctx, {{&kCreate,
                    {tenant_id, key.key_id, name.value, scopes, api_key_secret_hash(key.secret),
                     key.secret.substr(0, kApiKeyShownSecretLength), ids.who.user_id,
                     ctx.config.api_keys_max_per_tenant,
                     Error::limit_message("API keys per tenant", ctx.config.api_keys_max_per_tenant,
                                          "API_KEYS_MAX_PER_TENANT"),
                     audit_who(ctx, ids.who)}}}));
  Rows& r = w[0].rows();
  key.creator_id = ids.who.user_id;
  // The key is shown here only: lists never include it, and the database
  // holds its hash. Its text needs no escaping (prefix, digits, hex).
  // Appended in steps: GCC 12's -Wrestrict misreads "..." + std::string&&
  // in Release builds (as in the worker's signatures).
  std::string quoted = "\"";
  quoted += api_key_format(key);
  quoted += '"';
  return Response::text(201, json_object_with(r.text(0, "json"), {{"key", quoted}}));
}

Result<Response> api_keys_list(Ctx& ctx) { return path_tenant_page(ctx, kList, Role::kAdmin); }

Result<Response> api_keys_revoke(Ctx& ctx) {
  const int64_t tenant_id = ctx.req.params[0], id = ctx.req.params[1];
  CA_TRY(w, send_once(ctx, Access::path_tenant(tenant_id, Role::kAdmin), [&](const Principal& who) {
           return Queries{{&kRevoke, {tenant_id, id, audit_who(ctx, who)}}};
         }));
  if (!w.results[0].rows().boolean(0, "found")) return Error::not_found("API key not found");
  Json out = json_object();
  json_add_str(out.get(), "message", "API key revoked");
  return Response::json(200, out);
}

}  // namespace ca
