#include "db/log_throttle.hpp"

#include <utility>

#include "common/log.hpp"

namespace cairn::db {

LogThrottle::LogThrottle(std::chrono::milliseconds interval, std::function<Clock::time_point()> now)
    : interval_(interval), now_(std::move(now)) {}

std::optional<std::string> LogThrottle::Admit(std::string_view message) {
  const Clock::time_point now = now_();
  std::uint64_t suppressed = 0;
  {
    std::lock_guard lock(mutex_);
    if (next_ && now < *next_) {
      ++suppressed_;
      return std::nullopt;
    }
    next_ = now + interval_;
    suppressed = std::exchange(suppressed_, 0);
  }
  std::string line(message);
  if (suppressed > 0) {
    line += " (" + std::to_string(suppressed) + " similar line" + (suppressed == 1 ? "" : "s") +
            " suppressed)";
  }
  return line;
}

void LogThrottle::Warn(std::string_view message) {
  if (auto line = Admit(message)) log::Warn(*line);
}

}  // namespace cairn::db
