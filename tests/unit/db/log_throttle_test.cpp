#include "db/log_throttle.hpp"

#include <gtest/gtest.h>

#include <atomic>
#include <thread>
#include <vector>

namespace cairn::db {
namespace {

using namespace std::chrono_literals;

class FakeClock {
 public:
  LogThrottle::Clock::time_point now() const { return now_; }
  void Advance(std::chrono::milliseconds by) { now_ += by; }
  auto Function() {
    return [this] { return now(); };
  }

 private:
  LogThrottle::Clock::time_point now_{std::chrono::hours(1)};
};

TEST(LogThrottle, WritesTheFirstLineThenAtMostOnePerInterval) {
  FakeClock clock;
  LogThrottle throttle(10s, clock.Function());
  EXPECT_EQ(throttle.Admit("cannot connect"), "cannot connect");
  EXPECT_EQ(throttle.Admit("cannot connect"), std::nullopt);
  clock.Advance(9999ms);
  EXPECT_EQ(throttle.Admit("cannot connect"), std::nullopt);
  clock.Advance(1ms);
  EXPECT_EQ(throttle.Admit("cannot connect"), "cannot connect (2 similar lines suppressed)");
  clock.Advance(5s);
  EXPECT_EQ(throttle.Admit("still down"), std::nullopt);
  clock.Advance(5s);
  EXPECT_EQ(throttle.Admit("still down"), "still down (1 similar line suppressed)");
  // After a quiet spell the count starts from zero.
  clock.Advance(1h);
  EXPECT_EQ(throttle.Admit("down again"), "down again");
}

TEST(LogThrottle, CountsEverySuppressedLineAcrossThreads) {
  FakeClock clock;
  LogThrottle throttle(10s, clock.Function());
  ASSERT_TRUE(throttle.Admit("first"));
  std::vector<std::thread> threads;
  std::atomic<int> admitted{0};
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([&] {
      for (int i = 0; i < 250; ++i) {
        if (throttle.Admit("again")) ++admitted;
      }
    });
  }
  for (auto& thread : threads) thread.join();
  EXPECT_EQ(admitted.load(), 0);
  clock.Advance(10s);
  EXPECT_EQ(throttle.Admit("later"), "later (1000 similar lines suppressed)");
}

}  // namespace
}  // namespace cairn::db
