// The worker's purges: each deletes what nobody needs any more one batch at
// a time, every batch a statement (and transaction) of its own, so that no
// lock is held for longer than one batch takes and a large backlog is
// worked off over several passes. Not thread-safe (one Db); no state.
#pragma once

#include <cstdint>
#include <functional>
#include <vector>

#include "db.h"

namespace ca {

// The rows one purge statement deletes at most. The number stands in the
// statements' text as a constant (write CA_PURGE_LIMIT there), so that the
// generic plan (Db forces generic plans) is an index scan; a `LIMIT $n`
// may plan as a hash join over the whole table.
#define CA_PURGE_BATCH_ROWS 1000
#define CA_PURGE_STRINGIZE_(x) #x
#define CA_PURGE_STRINGIZE(x) CA_PURGE_STRINGIZE_(x)
#define CA_PURGE_LIMIT "LIMIT " CA_PURGE_STRINGIZE(CA_PURGE_BATCH_ROWS)
inline constexpr int64_t kPurgeBatch = CA_PURGE_BATCH_ROWS;
// Batches of one statement in one pass at most (20,000 rows).
inline constexpr int kPurgeMaxBatches = 20;

struct PurgeOutcome {
  int64_t deleted = 0;  // by the batches that succeeded
  bool failed = false;  // a batch's statement failed (logged)
};

// Runs `purge` (one batch of at most kPurgeBatch rows, with `params`) until
// a batch comes back short, kPurgeMaxBatches batches ran, or `may_go_on`
// (when given) says no before a batch. A failure is logged as "purging
// <what>: <error>" and ends the loop.
PurgeOutcome purge_in_batches(Db& db, const Statement& purge, const std::vector<Param>& params,
                              const char* what, const std::function<bool()>& may_go_on = {});

// purge_in_batches() without a limit of time: the rows deleted, or -1 when
// a batch failed.
int purge_all(Db& db, const Statement& purge, const std::vector<Param>& params, const char* what);

}  // namespace ca
