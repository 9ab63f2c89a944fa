// A fixed set of database connections shared by a process's serve threads.
//
// With FastCGI keep-alive a thread can sit idle on a kept nginx connection,
// so a process wants more threads than it wants PostgreSQL connections. A
// thread borrows a Db for exactly one request (acquire() blocks while all are
// lent) and gives it back before writing the response. Thread-safe.
#pragma once

#include <condition_variable>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "db.h"

namespace ca {

class DbPool {
 public:
  DbPool(const std::string& conninfo, int size);

  // Returns its connection to the pool when destroyed.
  class Lease {
   public:
    Lease(DbPool* pool, Db* db) : pool_(pool), db_(db) {}
    Lease(Lease&& other) noexcept : pool_(other.pool_), db_(other.db_) { other.db_ = nullptr; }
    Lease(const Lease&) = delete;
    Lease& operator=(const Lease&) = delete;
    Lease& operator=(Lease&&) = delete;
    ~Lease() {
      if (db_ != nullptr) pool_->release(db_);
    }
    Db& operator*() const { return *db_; }

   private:
    DbPool* pool_;
    Db* db_;
  };

  Lease acquire();

 private:
  void release(Db* db);

  std::vector<std::unique_ptr<Db>> all_;
  std::vector<Db*> free_;
  std::mutex mu_;
  std::condition_variable available_;
};

}  // namespace ca
