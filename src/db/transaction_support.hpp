// Pieces both backends' Transaction share: the nesting guard and the retry loop.
#pragma once

#include <functional>

#include "common/result.hpp"
#include "db/database.hpp"

namespace cairn::db {

// Marks the calling thread as inside a transaction of `database` for its lifetime.
class TransactionScope {
 public:
  explicit TransactionScope(const Database* database);
  ~TransactionScope();
  TransactionScope(const TransactionScope&) = delete;
  TransactionScope& operator=(const TransactionScope&) = delete;

  // True when the calling thread already runs a transaction of `database`.
  static bool Active(const Database* database);
  // The error for a nested Transaction call.
  static Error NestedError();

 private:
  const Database* database_;
};

// Runs `attempt` until it succeeds, fails with anything but kBusy, or kMaxTransactionAttempts
// have run, sleeping with exponential backoff and jitter in between.
Status RunWithRetries(const std::function<Status()>& attempt);

}  // namespace cairn::db
