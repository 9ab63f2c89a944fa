#include "db_pool.h"

namespace ca {

DbPool::DbPool(const std::string& conninfo, int size) {
  for (int i = 0; i < size; ++i) {
    // Connections are opened lazily, on their first statement.
    all_.push_back(std::make_unique<Db>(conninfo));
    free_.push_back(all_.back().get());
  }
}

DbPool::Lease DbPool::acquire() {
  std::unique_lock<std::mutex> lock(mu_);
  available_.wait(lock, [&] { return !free_.empty(); });
  Db* db = free_.back();
  free_.pop_back();
  return Lease(this, db);
}

void DbPool::release(Db* db) {
  {
    std::lock_guard<std::mutex> lock(mu_);
    free_.push_back(db);
  }
  available_.notify_one();
}

}  // namespace ca
