// The sliding-window counter arithmetic shared by both limiters (see rate_limiter.hpp). The
// database limiter does Count in SQL (database_rate_limiter.cpp) and must stay equivalent.
#pragma once

#include <cstdint>

#include "ratelimit/rate_limiter.hpp"

namespace cairn::ratelimit {

struct WindowState {
  std::int64_t window_start = 0;    // start of the current fixed window (epoch ms)
  std::int64_t count = 0;           // hits in that window
  std::int64_t previous_count = 0;  // hits in the window before it
};

// Start of the fixed window of length `window_ms` holding `now_ms`.
std::int64_t WindowStart(std::int64_t now_ms, std::int64_t window_ms);

// When a key's counters no longer matter: neither of its windows overlaps [now - window, now].
inline std::int64_t ExpiresAt(std::int64_t window_start, std::int64_t window_ms) {
  return window_start + 2 * window_ms;
}

// Counts one hit at `now_ms`: rolls the windows forward if needed, then increments. A state
// whose window is later than `now_ms` (another node's clock ran ahead) is kept as it is.
void Count(WindowState& state, std::int64_t window_ms, std::int64_t now_ms);

// Takes back a refused hit counted by Count (refused hits do not count: rate_limiter.hpp).
void Uncount(WindowState& state);

// Decides a hit already counted into `state`.
Decision Decide(const WindowState& state, const Limit& limit, std::int64_t now_ms);

}  // namespace cairn::ratelimit
