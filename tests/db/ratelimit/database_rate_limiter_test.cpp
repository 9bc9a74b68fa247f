// The database limiter on SQLite and PostgreSQL: counters shared by two Database instances on
// one database (two nodes), exact counting under concurrent hits, the same decisions as the
// in-memory limiter, purging, and the UNLOGGED table on PostgreSQL.
#include <atomic>
#include <string>
#include <thread>
#include <vector>

#include <gtest/gtest.h>

#include "db/db_test_util.hpp"
#include "ratelimit/rate_limiter.hpp"
#include "support/test_database.hpp"

namespace cairn::test {
namespace {

using ratelimit::Decision;
using ratelimit::Limit;
using ratelimit::RateLimiter;

constexpr Limit kTenPerMinute{10, 60'000};
constexpr std::int64_t kNow = 1'700'000'000'000;  // 60 s aligned plus 20 s

class DatabaseRateLimiterTest : public DatabaseTest {
 protected:
  std::unique_ptr<RateLimiter> MakeLimiter(db::Database& database) {
    auto limiter = ratelimit::MakeDatabaseRateLimiter(database);
    EXPECT_TRUE(limiter.ok()) << Describe(limiter.error());
    return limiter.ok() ? std::move(limiter).value() : nullptr;
  }

  // A second node: another Database on the same data.
  std::unique_ptr<db::Database> OpenSecondNode() {
    auto reopened = test_database().Reopen();
    EXPECT_TRUE(reopened.ok()) << Describe(reopened.error());
    return reopened.ok() ? std::move(reopened).value() : nullptr;
  }

  static Decision MustHit(RateLimiter& limiter, std::string_view key, const Limit& limit,
                          std::int64_t now_ms) {
    auto decision = limiter.Hit(key, limit, now_ms);
    EXPECT_TRUE(decision.ok()) << Describe(decision.error());
    return decision.ok() ? decision.value() : Decision{};
  }

  std::int64_t StoredCount(std::string_view key) {
    return QueryInt(database(), "SELECT \"count\" FROM \"_cairn_rate_limits\" WHERE \"key\" = '" +
                                    std::string(key) + "'");
  }
};

TEST_F(DatabaseRateLimiterTest, TwoNodesShareTheCounters) {
  auto node_a = MakeLimiter(database());
  auto second_database = OpenSecondNode();
  ASSERT_TRUE(node_a && second_database);
  auto node_b = MakeLimiter(*second_database);
  ASSERT_TRUE(node_b);
  for (int i = 0; i < 10; ++i) {
    RateLimiter& node = i % 2 == 0 ? *node_a : *node_b;
    EXPECT_TRUE(MustHit(node, "sign-in|203.0.113.7", kTenPerMinute, kNow + i).allowed) << i;
  }
  const Decision refused_a = MustHit(*node_a, "sign-in|203.0.113.7", kTenPerMinute, kNow + 10);
  const Decision refused_b = MustHit(*node_b, "sign-in|203.0.113.7", kTenPerMinute, kNow + 11);
  EXPECT_FALSE(refused_a.allowed);
  EXPECT_FALSE(refused_b.allowed);
  EXPECT_GE(refused_a.retry_after_seconds, 1);
  EXPECT_TRUE(MustHit(*node_b, "sign-in|203.0.113.8", kTenPerMinute, kNow + 12).allowed);
  // The two refusals were taken back.
  EXPECT_EQ(StoredCount("sign-in|203.0.113.7"), 10);
}

TEST_F(DatabaseRateLimiterTest, ConcurrentHitsFromTwoNodesAreCountedExactly) {
  auto second_database = OpenSecondNode();
  ASSERT_TRUE(second_database);
  auto node_a = MakeLimiter(database());
  auto node_b = MakeLimiter(*second_database);
  ASSERT_TRUE(node_a && node_b);
  constexpr int kThreads = 8;
  constexpr int kHitsPerThread = 25;
  const Limit limit{100, 60'000};
  std::atomic<int> allowed{0};
  std::atomic<int> failed{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    RateLimiter& node = t % 2 == 0 ? *node_a : *node_b;
    threads.emplace_back([&node, &limit, &allowed, &failed] {
      for (int i = 0; i < kHitsPerThread; ++i) {
        auto decision = node.Hit("auth|198.51.100.1", limit, kNow);
        if (!decision.ok()) {
          ++failed;
        } else if (decision->allowed) {
          ++allowed;
        }
      }
    });
  }
  for (auto& thread : threads) thread.join();
  EXPECT_EQ(failed.load(), 0);
  // Each upsert saw its own count: exactly the limit got through, and every refusal was taken
  // back.
  EXPECT_EQ(StoredCount("auth|198.51.100.1"), 100);
  EXPECT_EQ(allowed.load(), 100);
}

TEST_F(DatabaseRateLimiterTest, DecidesLikeTheMemoryLimiter) {
  auto stored = MakeLimiter(database());
  ASSERT_TRUE(stored);
  auto memory = ratelimit::MakeMemoryRateLimiter();
  struct Step {
    std::int64_t at;
    int hits;
  };
  // Filling a window, the weighted previous window, a skipped window, a clock slightly behind.
  const Step steps[] = {{0, 12},      {30'000, 2},  {61'000, 3},   {95'000, 6},
                        {121'000, 4}, {125'000, 9}, {300'000, 11}, {299'000, 2}};
  const std::int64_t base = kNow - kNow % 60'000;
  for (const Step& step : steps) {
    for (int i = 0; i < step.hits; ++i) {
      const Decision expected = MustHit(*memory, "k", kTenPerMinute, base + step.at);
      const Decision actual = MustHit(*stored, "k", kTenPerMinute, base + step.at);
      EXPECT_EQ(actual.allowed, expected.allowed) << "at " << step.at << " hit " << i;
      EXPECT_EQ(actual.retry_after_seconds, expected.retry_after_seconds)
          << "at " << step.at << " hit " << i;
    }
  }
  const Limit per_second{10, 1000};
  for (int i = 0; i < 12; ++i) {
    const Decision expected = MustHit(*memory, "admin", per_second, base + i * 50);
    const Decision actual = MustHit(*stored, "admin", per_second, base + i * 50);
    EXPECT_EQ(actual.allowed, expected.allowed) << i;
    EXPECT_EQ(actual.retry_after_seconds, expected.retry_after_seconds) << i;
  }
}

TEST_F(DatabaseRateLimiterTest, ExpiredRowsArePurged) {
  auto limiter = MakeLimiter(database());
  ASSERT_TRUE(limiter);
  // The first hit purges (nothing yet) and schedules the next purge a minute later.
  MustHit(*limiter, "admin|a", Limit{10, 1000}, kNow);
  MustHit(*limiter, "auth|a", kTenPerMinute, kNow);
  EXPECT_EQ(QueryInt(database(), "SELECT COUNT(*) FROM \"_cairn_rate_limits\""), 2);
  // Before the interval: no purge although admin|a has expired.
  MustHit(*limiter, "auth|b", kTenPerMinute, kNow + 30'000);
  EXPECT_EQ(QueryInt(database(), "SELECT COUNT(*) FROM \"_cairn_rate_limits\""), 3);
  // A minute later: admin|a (1 s windows) is gone, the 60 s counters are still live.
  MustHit(*limiter, "auth|c", kTenPerMinute, kNow + 60'000);
  EXPECT_EQ(QueryInt(database(),
                     "SELECT COUNT(*) FROM \"_cairn_rate_limits\" WHERE \"key\" = "
                     "'admin|a'"),
            0);
  EXPECT_EQ(QueryInt(database(), "SELECT COUNT(*) FROM \"_cairn_rate_limits\""), 3);
  // Two minutes on, every row older than two of its windows is gone.
  MustHit(*limiter, "auth|d", kTenPerMinute, kNow + 180'000);
  EXPECT_EQ(QueryInt(database(), "SELECT COUNT(*) FROM \"_cairn_rate_limits\""), 1);
}

TEST_F(DatabaseRateLimiterTest, CreatingTheTableIsIdempotentAndRaceFree) {
  auto second_database = OpenSecondNode();
  ASSERT_TRUE(second_database);
  // Two nodes starting at once both create the table.
  Result<std::unique_ptr<RateLimiter>> first = Error::Internal("not run");
  std::thread other([&] { first = ratelimit::MakeDatabaseRateLimiter(*second_database); });
  auto second = ratelimit::MakeDatabaseRateLimiter(database());
  other.join();
  EXPECT_TRUE(first.ok()) << Describe(first.error());
  EXPECT_TRUE(second.ok()) << Describe(second.error());
  auto again = MakeLimiter(database());
  ASSERT_TRUE(again);
  EXPECT_TRUE(MustHit(*again, "k", kTenPerMinute, kNow).allowed);
}

TEST_F(DatabaseRateLimiterTest, TableIsUnloggedOnPostgres) {
  ASSERT_TRUE(MakeLimiter(database()));
  if (!IsPostgres()) {
    EXPECT_EQ(QueryInt(database(),
                       "SELECT COUNT(*) FROM sqlite_master WHERE name = "
                       "'_cairn_rate_limits'"),
              1);
    return;
  }
  EXPECT_EQ(QueryInt(database(),
                     "SELECT COUNT(*) FROM pg_class WHERE relname = "
                     "'_cairn_rate_limits' AND relpersistence = 'u' AND "
                     "relnamespace = current_schema()::regnamespace"),
            1);
}

TEST_F(DatabaseRateLimiterTest, KeysAreBoundParameters) {
  auto limiter = MakeLimiter(database());
  ASSERT_TRUE(limiter);
  const std::string nasty = "auth|'); DROP TABLE \"_cairn_rate_limits\"; --?";
  EXPECT_TRUE(MustHit(*limiter, nasty, kTenPerMinute, kNow).allowed);
  EXPECT_TRUE(MustHit(*limiter, nasty, kTenPerMinute, kNow).allowed);
  EXPECT_EQ(QueryInt(database(), "SELECT MAX(\"count\") FROM \"_cairn_rate_limits\""), 2);
}

}  // namespace
}  // namespace cairn::test
