#include "db_pool.h"

namespace ca {

DbPool::DbPool(const std::string& conninfo, int size, int statement_timeout_ms) {
  for (int i = 0; i < size; ++i) {
    // Connections are opened lazily, on their first statement.
    all_.push_back(std::make_unique<Db>(conninfo, statement_timeout_ms));
    free_.push_back(all_.back().get());
  }
}

DbPool::Lease DbPool::acquire() {
  std::unique_lock<std::mutex> lock(mu_);
  if (!free_.empty()) {
    Db* db = free_.back();
    free_.pop_back();
    return Lease(this, db);
  }
  Waiter me;
  waiters_.push_back(&me);
  me.handed.wait(lock, [&] { return me.db != nullptr; });
  return Lease(this, me.db);
}

size_t DbPool::waiting() {
  std::lock_guard<std::mutex> lock(mu_);
  return waiters_.size();
}

void DbPool::release(Db* db) {
  std::lock_guard<std::mutex> lock(mu_);
  if (waiters_.empty()) {
    free_.push_back(db);
    return;
  }
  Waiter* next = waiters_.front();
  waiters_.pop_front();
  next->db = db;
  // Notified under the lock: the waiter's condition variable lives on its
  // stack and is gone as soon as it can see `db`.
  next->handed.notify_one();
}

}  // namespace ca
