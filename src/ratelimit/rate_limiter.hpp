// The rate limiter (D16): counts hits per key in a sliding window and says whether one more is
// allowed. Two implementations: in memory (the embedded SQLite mode, one process) and in the
// database (PostgreSQL: every node shares the counters).
//
// The window is the usual sliding-window counter approximation: hits are counted per fixed
// window (aligned to multiples of window_ms) and a hit at `now` sees
//     current_count + previous_count * (time of the previous window still inside [now - window,
//     now]) / window,
// i.e. it assumes the previous window's hits were spread evenly. The estimate differs from the
// exact count of a sliding log by at most the previous window's count (it is exact for evenly
// spread hits), and needs two integers per key instead of a timestamp per hit.
//
// Refused hits are not counted: a client that ignores Retry-After stays limited all the same
// (allowed hits still fill the window), and the wait a refusal announces is not pushed out by
// the refusals themselves. `Retry-After` is the first second a hit fits again, capped at the
// window (D16). The cap is reached only when the previous window's hits, weighted as if spread
// evenly, still fill the limit a whole window later (for example a limit of 1); a client that
// retries then may be refused once more, for at most window / max_requests.
#pragma once

#include <cstdint>
#include <memory>
#include <string_view>

#include "common/result.hpp"

namespace cairn::db {
class Database;
}

namespace cairn::ratelimit {

struct Limit {
  int max_requests = 0;        // hits allowed per window (≤ 0: none)
  std::int64_t window_ms = 0;  // > 0
};

struct Decision {
  bool allowed = true;
  int retry_after_seconds = 0;  // ≥ 1 when refused: when the next hit would be allowed
};

class RateLimiter {
 public:
  virtual ~RateLimiter() = default;
  // Counts one hit on `key` at `now_ms` (Unix epoch milliseconds: every node must use the same
  // clock) and decides it. Thread-safe. Errors only come from the database implementation.
  virtual Result<Decision> Hit(std::string_view key, const Limit& limit, std::int64_t now_ms) = 0;
};

// Counters in this process: sharded, mutex-protected hash maps holding at most kMemoryMaxKeys
// keys (limits.hpp); never fails.
std::unique_ptr<RateLimiter> MakeMemoryRateLimiter();

// Counters in the table `_cairn_rate_limits` (created if absent; UNLOGGED on PostgreSQL, since
// counters need no durability), one atomic upsert per hit, so nodes sharing a PostgreSQL
// database share the counters and concurrent hits are never lost. Each node deletes expired rows
// every kPurgeIntervalMs. Works on SQLite too. `database` must outlive the limiter.
Result<std::unique_ptr<RateLimiter>> MakeDatabaseRateLimiter(db::Database& database);

}  // namespace cairn::ratelimit
