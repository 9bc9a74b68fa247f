#include "ratelimit/sliding_window.hpp"

#include <algorithm>
#include <limits>

namespace cairn::ratelimit {
namespace {

// Products of counts and milliseconds, exact whatever the window length.
__extension__ typedef __int128 Wide;

// True when `previous` hits weighted by (window - elapsed) / window plus `current` hits fit in
// `max` (all multiplied by window to stay in integers).
bool Fits(std::int64_t previous, std::int64_t current, std::int64_t elapsed, std::int64_t window,
          std::int64_t max) {
  return Wide{previous} * (window - elapsed) + Wide{current} * window <= Wide{max} * window;
}

// The smallest elapsed time e in [0, window] with previous * (window - e) <= budget * window
// (budget ≥ 0, previous > 0).
std::int64_t ElapsedUntilFits(std::int64_t previous, std::int64_t budget, std::int64_t window) {
  const Wide allowed_remaining = Wide{budget} * window / previous;  // floor
  if (allowed_remaining >= window) return 0;
  return window - static_cast<std::int64_t>(allowed_remaining);
}

int CeilSeconds(std::int64_t millis) {
  const std::int64_t seconds = (std::max<std::int64_t>(millis, 1) + 999) / 1000;
  return static_cast<int>(std::min<std::int64_t>(seconds, std::numeric_limits<int>::max()));
}

// Whole seconds, at least 1, never more than the window (D16); see rate_limiter.hpp for when the
// cap is reached.
int RetrySeconds(std::int64_t millis, std::int64_t window) {
  return CeilSeconds(std::min(millis, window));
}

}  // namespace

std::int64_t WindowStart(std::int64_t now_ms, std::int64_t window_ms) {
  std::int64_t remainder = now_ms % window_ms;
  if (remainder < 0) remainder += window_ms;
  return now_ms - remainder;
}

void Uncount(WindowState& state) {
  if (state.count > 0) --state.count;
}

void Count(WindowState& state, std::int64_t window_ms, std::int64_t now_ms) {
  const std::int64_t start = WindowStart(now_ms, window_ms);
  if (state.window_start >= start) {
    ++state.count;
    return;
  }
  state.previous_count = state.window_start == start - window_ms ? state.count : 0;
  state.count = 1;
  state.window_start = start;
}

Decision Decide(const WindowState& state, const Limit& limit, std::int64_t now_ms) {
  const std::int64_t window = limit.window_ms;
  const std::int64_t max = limit.max_requests;
  const std::int64_t elapsed = std::clamp<std::int64_t>(now_ms - state.window_start, 0, window);
  if (max > 0 && Fits(state.previous_count, state.count, elapsed, window, max)) {
    return Decision{true, 0};
  }
  if (max <= 0) return Decision{false, RetrySeconds(window, window)};

  // This refused hit is taken back (Uncount), so `kept` hits stay in this window. The next hit,
  // with no other hits in between: still in this window?
  const std::int64_t kept = state.count - 1;
  const std::int64_t budget = max - kept - 1;
  if (budget >= 0 && state.previous_count > 0) {
    const std::int64_t at = ElapsedUntilFits(state.previous_count, budget, window);
    if (at < window) return Decision{false, RetrySeconds(state.window_start + at - now_ms, window)};
  }
  // In the next window, this window's hits become the weighted previous ones (max - 1 of them
  // may remain); at the latest at the start of the window after that.
  const std::int64_t at = kept > 0 ? ElapsedUntilFits(kept, max - 1, window) : 0;
  return Decision{false, RetrySeconds(state.window_start + window + at - now_ms, window)};
}

}  // namespace cairn::ratelimit
