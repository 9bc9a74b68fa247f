// At most one log line per interval for a repeating failure (a database that stays down fails
// every connection attempt): the first failure is written at once, later ones within the
// interval are counted, and the next line written says how many were left out. Thread-safe;
// the clock is injectable for tests.
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>

namespace cairn::db {

class LogThrottle {
 public:
  using Clock = std::chrono::steady_clock;

  explicit LogThrottle(std::chrono::milliseconds interval,
                       std::function<Clock::time_point()> now = &Clock::now);

  // The line to write for `message` now, or nullopt when it is suppressed. A line written after
  // suppressed ones ends with ` (N similar lines suppressed)`.
  std::optional<std::string> Admit(std::string_view message);
  // Admit, and write the admitted line as a warning.
  void Warn(std::string_view message);

 private:
  const std::chrono::milliseconds interval_;
  const std::function<Clock::time_point()> now_;
  std::mutex mutex_;
  std::optional<Clock::time_point> next_;  // when the next line may be written
  std::uint64_t suppressed_ = 0;
};

}  // namespace cairn::db
