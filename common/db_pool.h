// A fixed set of database connections shared by a process's serve threads.
//
// A process may run fewer PostgreSQL connections than serve threads
// (--db-connections): a thread that is writing a response or waiting for
// its next request holds none. A thread borrows a Db for exactly one
// request (acquire() blocks while all are lent) and gives it back before
// writing the response. Thread-safe.
//
// Fair: a returned connection goes straight to the longest waiting thread,
// never to one that arrives later (a plain mutex + condition variable lets a
// newcomer take it first, and under load some requests then wait far longer
// than the rest).
#pragma once

#include <condition_variable>
#include <deque>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "db.h"

namespace ca {

class DbPool {
 public:
  // `statement_timeout_ms`: see Db.
  DbPool(const std::string& conninfo, int size, int statement_timeout_ms = 0);

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
  // Threads blocked in acquire() right now.
  size_t waiting();

 private:
  void release(Db* db);

  // A thread blocked in acquire(); release() fills `db` and wakes it.
  struct Waiter {
    Db* db = nullptr;
    std::condition_variable handed;
  };

  std::vector<std::unique_ptr<Db>> all_;
  std::vector<Db*> free_;
  std::deque<Waiter*> waiters_;  // oldest first
  std::mutex mu_;
};

}  // namespace ca
