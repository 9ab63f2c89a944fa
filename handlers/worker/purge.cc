#include "purge.h"

#include "log.h"

namespace ca {

PurgeOutcome purge_in_batches(Db& db, const Statement& purge, const std::vector<Param>& params,
                              const char* what, const std::function<bool()>& may_go_on) {
  PurgeOutcome out;
  for (int i = 0; i < kPurgeMaxBatches; ++i) {
    if (may_go_on && !may_go_on()) break;
    DbResult r = db.exec(purge, params);
    if (!r.ok()) {
      log_error("purging %s: %s", what, r.error().message.c_str());
      out.failed = true;
      break;
    }
    int64_t n = r->affected();
    out.deleted += n;
    if (n < kPurgeBatch) break;
  }
  return out;
}

int purge_all(Db& db, const Statement& purge, const std::vector<Param>& params, const char* what) {
  PurgeOutcome done = purge_in_batches(db, purge, params, what);
  return done.failed ? -1 : static_cast<int>(done.deleted);
}

}  // namespace ca
