// The sliding-window arithmetic: weighting of the previous window and exact Retry-After.
#include "ratelimit/sliding_window.hpp"

#include <gtest/gtest.h>

namespace cairn::ratelimit {
namespace {

constexpr Limit kTenPerMinute{10, 60'000};

// Counts `hits` hits at `now_ms` as the limiters do (a refused hit is taken back) and returns
// the last decision.
Decision HitMany(WindowState& state, const Limit& limit, std::int64_t now_ms, int hits) {
  Decision decision;
  for (int i = 0; i < hits; ++i) {
    Count(state, limit.window_ms, now_ms);
    decision = Decide(state, limit, now_ms);
    if (!decision.allowed) Uncount(state);
  }
  return decision;
}

TEST(SlidingWindowTest, WindowsAreAligned) {
  EXPECT_EQ(WindowStart(0, 1000), 0);
  EXPECT_EQ(WindowStart(999, 1000), 0);
  EXPECT_EQ(WindowStart(1000, 1000), 1000);
  EXPECT_EQ(WindowStart(-1, 1000), -1000);
  EXPECT_EQ(ExpiresAt(1000, 1000), 3000);
}

TEST(SlidingWindowTest, CountRollsWindows) {
  WindowState state;
  Count(state, 1000, 1500);
  Count(state, 1000, 1999);
  EXPECT_EQ(state.window_start, 1000);
  EXPECT_EQ(state.count, 2);
  Count(state, 1000, 2000);  // next window: the two become the previous count
  EXPECT_EQ(state.window_start, 2000);
  EXPECT_EQ(state.count, 1);
  EXPECT_EQ(state.previous_count, 2);
  Count(state, 1000, 4000);  // two windows later: nothing carries over
  EXPECT_EQ(state.count, 1);
  EXPECT_EQ(state.previous_count, 0);
  Count(state, 1000, 3500);  // a clock behind the stored window counts into it
  EXPECT_EQ(state.window_start, 4000);
  EXPECT_EQ(state.count, 2);
}

TEST(SlidingWindowTest, LimitWithinOneWindow) {
  WindowState state;
  EXPECT_TRUE(HitMany(state, kTenPerMinute, 1000, 10).allowed);
  const Decision refused = HitMany(state, kTenPerMinute, 1000, 1);
  EXPECT_FALSE(refused.allowed);
  EXPECT_GE(refused.retry_after_seconds, 1);
}

TEST(SlidingWindowTest, PreviousWindowIsWeightedByOverlap) {
  WindowState state;
  HitMany(state, kTenPerMinute, 59'000, 10);
  // At 60 s the previous window still fully overlaps: 10 + 1 > 10.
  WindowState at_start = state;
  EXPECT_FALSE(HitMany(at_start, kTenPerMinute, 60'000, 1).allowed);
  // Half-way through the next window: 10 * 0.5 + 5 fits, the sixth does not.
  WindowState half = state;
  EXPECT_TRUE(HitMany(half, kTenPerMinute, 90'000, 5).allowed);
  EXPECT_FALSE(HitMany(half, kTenPerMinute, 90'000, 1).allowed);
}

// The Retry-After of a refused hit is the first second at which a hit is allowed again (when that
// is within the window; RetryAfterNeverExceedsTheWindow covers the rest).
void ExpectExactRetryAfter(const Limit& limit, std::int64_t first_ms, int hits,
                           std::int64_t refused_at_ms) {
  WindowState state;
  HitMany(state, limit, first_ms, hits);
  WindowState refused_state = state;
  const Decision refused = HitMany(refused_state, limit, refused_at_ms, 1);
  ASSERT_FALSE(refused.allowed);
  ASSERT_GE(refused.retry_after_seconds, 1);
  const std::int64_t retry_at = refused_at_ms + refused.retry_after_seconds * 1000LL;
  WindowState later = refused_state;
  EXPECT_TRUE(HitMany(later, limit, retry_at, 1).allowed)
      << "retry after " << refused.retry_after_seconds << " s is too early";
  WindowState earlier = refused_state;
  EXPECT_FALSE(HitMany(earlier, limit, retry_at - 1000, 1).allowed)
      << "retry after " << refused.retry_after_seconds << " s is later than needed";
}

TEST(SlidingWindowTest, RetryAfterIsExactToTheSecond) {
  ExpectExactRetryAfter(kTenPerMinute, 50'000, 10, 55'000);  // wait for the next window
  ExpectExactRetryAfter(kTenPerMinute, 59'000, 10, 60'500);  // wait within the window
  ExpectExactRetryAfter(kTenPerMinute, 30'000, 10, 61'000);
  ExpectExactRetryAfter(Limit{20, 60'000}, 50'000, 20, 50'100);
  ExpectExactRetryAfter(Limit{10, 1000}, 100, 10, 200);
  ExpectExactRetryAfter(Limit{20, 60'000}, 59'999, 20, 60'000);
}

// A client that keeps hammering does not push its own wait out: refusals are not counted.
TEST(SlidingWindowTest, RefusalsDoNotCount) {
  WindowState state;
  HitMany(state, kTenPerMinute, 1000, 10);
  const Decision first = HitMany(state, kTenPerMinute, 2000, 1);
  const Decision after_many = HitMany(state, kTenPerMinute, 2000, 1000);
  EXPECT_FALSE(after_many.allowed);
  EXPECT_EQ(after_many.retry_after_seconds, first.retry_after_seconds);
  EXPECT_EQ(state.count, 10);
}

// D16: Retry-After never exceeds the window, even where the weighted estimate would need the
// window after next (a limit of 1 hit at the start of a window); a retry at that time waits at
// most window / max more.
TEST(SlidingWindowTest, RetryAfterNeverExceedsTheWindow) {
  for (const Limit limit : {Limit{1, 60'000}, Limit{2, 60'000}, Limit{20, 60'000}}) {
    for (std::int64_t first : {0, 30'000, 59'999}) {
      WindowState state;
      HitMany(state, limit, first, limit.max_requests);
      const Decision refused = HitMany(state, limit, first, 1);
      ASSERT_FALSE(refused.allowed);
      EXPECT_GE(refused.retry_after_seconds, 1);
      EXPECT_LE(refused.retry_after_seconds, 60) << limit.max_requests << " at " << first;
      const std::int64_t retry_at = first + refused.retry_after_seconds * 1000LL;
      const Decision again = HitMany(state, limit, retry_at, 1);
      if (!again.allowed) {
        EXPECT_LE(again.retry_after_seconds * 1000LL, limit.window_ms / limit.max_requests + 999);
      }
    }
  }
}

TEST(SlidingWindowTest, ZeroLimitRefusesEverything) {
  WindowState state;
  const Decision decision = HitMany(state, Limit{0, 60'000}, 0, 1);
  EXPECT_FALSE(decision.allowed);
  EXPECT_EQ(decision.retry_after_seconds, 60);
}

TEST(SlidingWindowTest, HugeCountsAndWindowsDoNotOverflow) {
  WindowState state{0, 1LL << 40, 1LL << 40};
  const Limit limit{1'000'000, 365LL * 24 * 3600 * 1000};
  const Decision decision = Decide(state, limit, 1);
  EXPECT_FALSE(decision.allowed);
  EXPECT_GE(decision.retry_after_seconds, 1);
}

}  // namespace
}  // namespace cairn::ratelimit
