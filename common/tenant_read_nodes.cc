#include "tenant_read_nodes.h"

#include <libpq-fe.h>

#include <atomic>
#include <string_view>
#include <utility>

#include "log.h"

namespace ca {
namespace {

// The node holding the tenant's shards: every tenant table is colocated
// with `products`, so its placement is the tenant's (docs/design/citus.md).
const Statement kTenantNode{
    "tenant_read_node",
    "SELECT n.nodename AS host, n.nodeport::text AS port "
    "FROM pg_dist_placement p JOIN pg_dist_node n ON n.groupid = p.groupid "
    "WHERE p.shardid = get_shard_id_for_distribution_column('products', $1::bigint) "
    "  AND n.isactive AND n.noderole = 'primary'"};

// `keyword=value` appended to `out` (after a space unless it is empty), the
// value in single quotes with its quotes and backslashes escaped. Appended
// piece by piece: GCC 12 warns (-Wrestrict, a false positive) on
// operator+ chains of literals and strings at -O3.
void append_setting(std::string& out, std::string_view keyword, std::string_view value) {
  if (!out.empty()) out += ' ';
  out.append(keyword);
  out += "='";
  for (char c : value) {
    if (c == '\'' || c == '\\') out += '\\';
    out += c;
  }
  out += '\'';
}

}  // namespace

std::string conninfo_at(const std::string& base, const std::string& host, const std::string& port) {
  std::string out;
  append_setting(out, "host", host);
  append_setting(out, "port", port);
  PQconninfoOption* options = PQconninfoParse(base.c_str(), nullptr);
  for (PQconninfoOption* o = options; o != nullptr && o->keyword != nullptr; ++o) {
    std::string_view keyword = o->keyword;
    if (o->val == nullptr || *o->val == '\0' || keyword == "host" || keyword == "hostaddr" ||
        keyword == "port") {
      continue;
    }
    append_setting(out, keyword, o->val);
  }
  PQconninfoFree(options);
  return out;
}

bool TenantNodeCache::find(int64_t tenant, Clock::time_point now, DbPool** pool) const {
  auto it = known_.find(tenant);
  if (it == known_.end() || now >= it->second.until) return false;
  *pool = it->second.pool;
  return true;
}

void TenantNodeCache::put(int64_t tenant, DbPool* pool, Clock::time_point until) {
  if (known_.size() >= capacity_ && known_.count(tenant) == 0) known_.clear();
  known_[tenant] = Known{pool, until};
}

TenantReadNodes::TenantReadNodes(std::string base, int pool_size, int statement_timeout_ms)
    : base_(std::move(base)), pool_size_(pool_size), statement_timeout_ms_(statement_timeout_ms) {}

bool TenantReadNodes::known(int64_t tenant, DbPool** pool) {
  std::lock_guard<std::mutex> lock(mu_);
  return tenants_.find(tenant, std::chrono::steady_clock::now(), pool);
}

DbPool* TenantReadNodes::ask(int64_t tenant, DbPool& lookup,
                             std::chrono::steady_clock::time_point deadline) {
  auto now = std::chrono::steady_clock::now();
  DbPool::Lease db = lookup.acquire();
  (*db).set_request_deadline(deadline);
  Db::SendMode mode = (*db).send_mode();
  (*db).set_send_mode({.repeatable = true, .read_only = true});
  DbResult found = (*db).exec(kTenantNode, {tenant});
  (*db).set_send_mode(mode);
  if (!found.ok() || found->size() != 1) {
    static std::atomic<int64_t> last_logged{0};
    if (once_a_second(last_logged)) {
      log_warn("tenant %lld: the node of its shards not found: %s", static_cast<long long>(tenant),
               found.ok() ? "no placement" : found.error().message.c_str());
    }
    std::lock_guard<std::mutex> lock(mu_);
    tenants_.put(tenant, nullptr, now + kTenantNodeRetry);
    return nullptr;
  }
  std::string host = found->str(0, "host");
  std::string port = found->str(0, "port");
  std::string address = host;
  address += ':';
  address += port;
  std::lock_guard<std::mutex> lock(mu_);
  std::unique_ptr<DbPool>& pool = pools_[address];
  if (pool == nullptr) {
    pool =
        std::make_unique<DbPool>(conninfo_at(base_, host, port), pool_size_, statement_timeout_ms_);
    log_info("tenant reads: node %s:%s", host.c_str(), port.c_str());
  }
  tenants_.put(tenant, pool.get(), now + kTenantNodeTtl);
  return pool.get();
}

}  // namespace ca
