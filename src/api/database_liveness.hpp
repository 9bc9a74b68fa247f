// Whether the database answers, kept by a thread of its own that pings it every `interval`, so
// GET /api/health answers from memory on the network thread (no worker round trip) and a
// database that hangs is reported once its last answer is older than `stale_after`, instead of
// hanging the health check with it.
#pragma once

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <functional>
#include <mutex>
#include <thread>

#include "common/result.hpp"
#include "db/database.hpp"

namespace cairn::api {

struct LivenessOptions {
  std::chrono::milliseconds interval{500};
  std::chrono::milliseconds stale_after{3000};
  bool background = true;                // false: only Refresh() pings (tests)
  std::function<std::int64_t()> now_ms;  // unset: a monotonic clock (tests step their own)
};

class DatabaseLiveness {
 public:
  // Pings once before returning, so the first answer is already known.
  DatabaseLiveness(db::Database& database, LivenessOptions options = {});
  ~DatabaseLiveness();
  DatabaseLiveness(const DatabaseLiveness&) = delete;
  DatabaseLiveness& operator=(const DatabaseLiveness&) = delete;

  // OK when the latest ping succeeded within `stale_after`; else the 503 to answer.
  Status Current() const;
  // Pings now (the background thread calls this every interval).
  void Refresh();
  // Stops the thread; call before the database closes. Idempotent.
  void Stop();

 private:
  std::int64_t Now() const;

  db::Database& database_;
  LivenessOptions options_;
  std::atomic<std::int64_t> answered_at_ms_{0};  // the latest successful ping, 0 = none
  std::atomic<bool> failing_{false};             // the latest ping failed
  std::mutex mutex_;
  std::condition_variable stop_requested_;
  bool stopping_ = false;
  std::thread thread_;
};

}  // namespace cairn::api
