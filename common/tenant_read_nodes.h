// On Citus, a tenant's reads sent to the node that holds the tenant's shards
// (CITUS_READ_ROUTING=tenant, docs/decisions/0133-reads-go-to-the-tenants-
// node.md).
//
// Any node with metadata can run a tenant's read, but one that does not hold
// the tenant's shards plans it, deparses it and sends it to the node that
// does, which parses and plans it again: two backends and a network hop per
// statement. Sent to the node holding the shards, the read's statements run
// there locally (Citus's local execution), the session check's reference
// tables from that node's copies.
//
// Which node holds a tenant's shards is asked of the cluster (one statement
// on the connection the read would otherwise use) and kept for
// kTenantNodeTtl, so that a tenant moved by the rebalancer is followed
// within that time; meanwhile a read sent to the old node still runs (that
// node forwards it), only slower. It is asked only for a request whose
// credential verifies, and a question that failed is not asked again for
// kTenantNodeRetry. Each node gets a pool of its own, with DATABASE_URL's
// settings and the address Citus uses for the node (pg_dist_node), its
// connections opened on their first use. Thread-safe.
#pragma once

#include <chrono>
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <unordered_map>

#include "db.h"
#include "db_pool.h"

namespace ca {

// How long a tenant's node is kept before it is asked again.
inline constexpr std::chrono::seconds kTenantNodeTtl{30};
// How long a tenant whose node could not be found reads without routing.
inline constexpr std::chrono::seconds kTenantNodeRetry{1};
// At most this many tenants' nodes are kept; past it the map starts over.
inline constexpr size_t kTenantNodesKept = 65536;

// Tenants' pools, each until a time, at most `capacity` tenants (one more
// empties it first). A pool may be nullptr: "not found, read without
// routing". Not thread-safe (TenantReadNodes locks around it).
class TenantNodeCache {
 public:
  using Clock = std::chrono::steady_clock;
  explicit TenantNodeCache(size_t capacity) : capacity_(capacity) {}
  // Whether `tenant` is known at `now`, and its pool in `*pool`.
  bool find(int64_t tenant, Clock::time_point now, DbPool** pool) const;
  void put(int64_t tenant, DbPool* pool, Clock::time_point until);
  size_t size() const { return known_.size(); }

 private:
  struct Known {
    DbPool* pool;
    Clock::time_point until;
  };
  size_t capacity_;
  std::unordered_map<int64_t, Known> known_;
};

// `base` with its host and port replaced by `host` and `port`, as a
// keyword/value conninfo (`base` may be either form libpq takes).
std::string conninfo_at(const std::string& base, const std::string& host, const std::string& port);

class TenantReadNodes {
 public:
  // `base`: DATABASE_URL (already validated); `pool_size` connections per
  // node at the most.
  TenantReadNodes(std::string base, int pool_size, int statement_timeout_ms);

  // Whether `tenant`'s node is known (no database): its pool in `*pool`,
  // nullptr for a tenant whose node was just not found.
  bool known(int64_t tenant, DbPool** pool);
  // The pool of the node holding `tenant`'s shards, asked on a connection
  // of `lookup` (by `deadline`, the request's) and remembered; nullptr when
  // the cluster could not say (the caller reads through `lookup` then, as
  // without routing). A question is a round trip: the caller asks only for
  // a request whose credential verifies.
  DbPool* ask(int64_t tenant, DbPool& lookup, std::chrono::steady_clock::time_point deadline);

 private:
  std::string base_;
  int pool_size_;
  int statement_timeout_ms_;
  std::mutex mu_;
  std::map<std::string, std::unique_ptr<DbPool>> pools_;  // by "host:port"
  TenantNodeCache tenants_{kTenantNodesKept};
};

}  // namespace ca
