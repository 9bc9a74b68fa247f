#include "auth/session_cache.hpp"

#include <gtest/gtest.h>

#include <string>

#include "auth/limits.hpp"

namespace cairn::auth {
namespace {

constexpr std::int64_t kNow = 1'000'000;

Caller CallerOf(const std::string& user_id) {
  Caller caller;
  caller.user.id = user_id;
  caller.session.user_id = user_id;
  caller.token = "the raw token";
  return caller;
}

TEST(SessionCache, KeepsASessionForTheTtlWithoutItsToken) {
  SessionCache cache(true);
  cache.Put("hash-a", CallerOf("a"), cache.Generation(), kNow);
  auto hit = cache.Get("hash-a", kNow + kSessionCacheTtlMillis - 1);
  ASSERT_TRUE(hit.has_value());
  EXPECT_EQ(hit->user.id, "a");
  EXPECT_EQ(hit->session.user_id, "a");
  EXPECT_TRUE(hit->token.empty());
  EXPECT_FALSE(cache.Get("hash-a", kNow + kSessionCacheTtlMillis).has_value());
  EXPECT_FALSE(cache.Get("hash-b", kNow).has_value());
}

TEST(SessionCache, ClearDropsEverythingAndRefusesLookupsThatStartedBefore) {
  SessionCache cache(true);
  cache.Put("hash-a", CallerOf("a"), cache.Generation(), kNow);
  const std::uint64_t before_write = cache.Generation();
  cache.Clear();
  EXPECT_FALSE(cache.Get("hash-a", kNow).has_value());
  // A lookup that read the database before the write ended must not cache what it saw.
  cache.Put("hash-b", CallerOf("b"), before_write, kNow);
  EXPECT_FALSE(cache.Get("hash-b", kNow).has_value());
  cache.Put("hash-b", CallerOf("b"), cache.Generation(), kNow);
  EXPECT_TRUE(cache.Get("hash-b", kNow).has_value());
}

TEST(SessionCache, StaysWithinItsCapacity) {
  SessionCache cache(true);
  for (std::size_t i = 0; i < kSessionCacheMaxEntries; ++i) {
    cache.Put("old-" + std::to_string(i), CallerOf("old"), cache.Generation(), kNow);
  }
  // Full of live entries: they all go to make room.
  cache.Put("new", CallerOf("new"), cache.Generation(), kNow);
  EXPECT_TRUE(cache.Get("new", kNow).has_value());
  EXPECT_FALSE(cache.Get("old-0", kNow).has_value());
  // Full again later: the expired entries go and the live ones stay.
  for (std::size_t i = 1; i < kSessionCacheMaxEntries; ++i) {
    cache.Put("later-" + std::to_string(i), CallerOf("later"), cache.Generation(),
              kNow + kSessionCacheTtlMillis);
  }
  const std::int64_t later = kNow + kSessionCacheTtlMillis + 1;
  cache.Put("last", CallerOf("last"), cache.Generation(), later);
  EXPECT_FALSE(cache.Get("new", later).has_value());
  EXPECT_TRUE(cache.Get("later-1", later).has_value());
  EXPECT_TRUE(cache.Get("last", later).has_value());
}

TEST(SessionCache, ADisabledCacheHoldsNothing) {
  SessionCache cache(false);
  cache.Put("hash-a", CallerOf("a"), cache.Generation(), kNow);
  EXPECT_FALSE(cache.Get("hash-a", kNow).has_value());
}

}  // namespace
}  // namespace cairn::auth
