// The in-memory limiter: windows, retry-after, independent keys, exact counting under threads,
// and the bound on the number of keys.
#include "ratelimit/memory_rate_limiter.hpp"

#include <atomic>
#include <string>
#include <thread>
#include <vector>

#include <gtest/gtest.h>

namespace cairn::ratelimit {
namespace {

constexpr Limit kFivePerMinute{5, 60'000};

bool Allowed(RateLimiter& limiter, std::string_view key, const Limit& limit, std::int64_t now) {
  auto decision = limiter.Hit(key, limit, now);
  EXPECT_TRUE(decision.ok());
  return decision.ok() && decision->allowed;
}

TEST(MemoryRateLimiterTest, LimitsPerKeyAndWindow) {
  auto limiter = MakeMemoryRateLimiter();
  for (int i = 0; i < 5; ++i) EXPECT_TRUE(Allowed(*limiter, "a", kFivePerMinute, 1000 + i));
  auto refused = limiter->Hit("a", kFivePerMinute, 2000);
  ASSERT_TRUE(refused.ok());
  EXPECT_FALSE(refused->allowed);
  EXPECT_GE(refused->retry_after_seconds, 1);
  EXPECT_LE(refused->retry_after_seconds, 60);
  // Another key is counted on its own.
  EXPECT_TRUE(Allowed(*limiter, "b", kFivePerMinute, 2000));
  // Two windows later everything is forgotten.
  EXPECT_TRUE(Allowed(*limiter, "a", kFivePerMinute, 120'000));
}

TEST(MemoryRateLimiterTest, RetryAfterIsHonoured) {
  auto limiter = MakeMemoryRateLimiter();
  const Limit per_second{10, 1000};
  for (int i = 0; i < 10; ++i) EXPECT_TRUE(Allowed(*limiter, "admin|x", per_second, 5000));
  auto refused = limiter->Hit("admin|x", per_second, 5000);
  ASSERT_TRUE(refused.ok());
  ASSERT_FALSE(refused->allowed);
  // 10 hits kept in [5 s, 6 s): allowed again at 6.1 s (weight of the previous window), but
  // Retry-After never exceeds the window (D16), so 1 s; the 0.1 s past it is window / max.
  EXPECT_EQ(refused->retry_after_seconds, 1);
  EXPECT_FALSE(Allowed(*limiter, "admin|x", per_second, 6000));
  EXPECT_TRUE(Allowed(*limiter, "admin|x", per_second, 6100));
}

TEST(MemoryRateLimiterTest, ConcurrentHitsAreCountedExactly) {
  auto limiter = MakeMemoryRateLimiter();
  constexpr int kThreads = 8;
  constexpr int kHitsPerThread = 1000;
  const Limit limit{5000, 60'000};
  std::atomic<int> allowed{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&] {
      for (int i = 0; i < kHitsPerThread; ++i) {
        if (Allowed(*limiter, "shared", limit, 30'000)) ++allowed;
        Allowed(*limiter, "key" + std::to_string(i), limit, 30'000);
      }
    });
  }
  for (auto& thread : threads) thread.join();
  EXPECT_EQ(allowed.load(), 5000);
}

TEST(MemoryRateLimiterTest, KeysAreBounded) {
  MemoryRateLimiter limiter;
  const Limit limit{5, 1000};
  for (std::size_t i = 0; i < kMemoryMaxKeys + 20'000; ++i) {
    ASSERT_TRUE(limiter.Hit("flood|" + std::to_string(i), limit, 10'000).ok());
  }
  EXPECT_LE(limiter.key_count(), kMemoryMaxKeys);
  EXPECT_GT(limiter.key_count(), kMemoryMaxKeys - kMemoryShards);
  // Once those keys have expired, full shards drop them instead of evicting live keys.
  for (int i = 0; i < 1000; ++i) {
    ASSERT_TRUE(limiter.Hit("late|" + std::to_string(i), limit, 20'000).ok());
  }
  EXPECT_LE(limiter.key_count(), 2000u);
  // A live key is still counted (its first hit was in the loop above).
  for (int i = 0; i < 4; ++i) EXPECT_TRUE(Allowed(limiter, "late|0", limit, 20'000));
  EXPECT_FALSE(Allowed(limiter, "late|0", limit, 20'000));
}

TEST(MemoryRateLimiterTest, ChangedLimitRestartsTheKey) {
  auto limiter = MakeMemoryRateLimiter();
  for (int i = 0; i < 5; ++i) EXPECT_TRUE(Allowed(*limiter, "k", kFivePerMinute, 0));
  EXPECT_FALSE(Allowed(*limiter, "k", kFivePerMinute, 0));
  EXPECT_TRUE(Allowed(*limiter, "k", Limit{5, 30'000}, 0));
}

}  // namespace
}  // namespace cairn::ratelimit
