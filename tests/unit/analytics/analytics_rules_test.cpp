// The pure rules of analytics: excluded-path globs, referrer domains, UTC periods (weeks from
// Monday), and user-agent classification with the uap-core regexes.
#include <gtest/gtest.h>

#include "analytics/analytics_service.hpp"
#include "analytics/tracker_script.hpp"
#include "analytics/user_agents.hpp"
#include "common/time.hpp"

namespace cairn::analytics {
namespace {

std::int64_t At(const char* iso) {
  return *time::ParseIso(iso);
}

TEST(AnalyticsRules, Globs) {
  EXPECT_TRUE(MatchesGlob("/admin/*", "/admin/users"));
  EXPECT_TRUE(MatchesGlob("/admin/*", "/admin/"));
  EXPECT_TRUE(MatchesGlob("/admin/*", "/admin/a/b/c"));
  EXPECT_FALSE(MatchesGlob("/admin/*", "/admin"));
  EXPECT_FALSE(MatchesGlob("/admin/*", "/administrator"));
  EXPECT_TRUE(MatchesGlob("/private", "/private"));
  EXPECT_FALSE(MatchesGlob("/private", "/private/x"));
  EXPECT_TRUE(MatchesGlob("/*/edit", "/posts/1/edit"));
  EXPECT_TRUE(MatchesGlob("*", "/anything"));
  // Many stars against a long path stays linear (no exponential backtracking).
  EXPECT_FALSE(MatchesGlob("/*a*a*a*a*a*a*a*b", "/" + std::string(2000, 'a')));
}

TEST(AnalyticsRules, ReferrerDomains) {
  EXPECT_EQ(ReferrerDomain("https://www.Google.com/search?q=1"), "google.com");
  EXPECT_EQ(ReferrerDomain("http://news.ycombinator.com"), "news.ycombinator.com");
  EXPECT_EQ(ReferrerDomain("https://wwwx.example.org/"), "wwwx.example.org");
  EXPECT_EQ(ReferrerDomain("ftp://example.org/"), std::nullopt);
  EXPECT_EQ(ReferrerDomain("not a url"), std::nullopt);
  EXPECT_EQ(ReferrerDomain("/relative"), std::nullopt);
}

TEST(AnalyticsRules, PeriodsAreUtcAndWeeksStartOnMonday) {
  const std::int64_t wednesday = At("2026-03-04T15:30:00Z");
  EXPECT_EQ(PeriodStart(wednesday, Granularity::kHour), At("2026-03-04T15:00:00Z"));
  EXPECT_EQ(PeriodStart(wednesday, Granularity::kDay), At("2026-03-04T00:00:00Z"));
  EXPECT_EQ(PeriodStart(wednesday, Granularity::kWeek), At("2026-03-02T00:00:00Z"));
  EXPECT_EQ(PeriodStart(At("2026-03-08T23:59:59.999Z"), Granularity::kWeek),
            At("2026-03-02T00:00:00Z"));  // Sunday belongs to the week before
  EXPECT_EQ(PeriodStart(At("2026-03-09T00:00:00Z"), Granularity::kWeek),
            At("2026-03-09T00:00:00Z"));
  EXPECT_EQ(PeriodStart(wednesday, Granularity::kMonth), At("2026-03-01T00:00:00Z"));
  EXPECT_EQ(NextPeriod(At("2026-01-01T00:00:00Z"), Granularity::kMonth),
            At("2026-02-01T00:00:00Z"));
  EXPECT_EQ(NextPeriod(At("2026-12-01T00:00:00Z"), Granularity::kMonth),
            At("2027-01-01T00:00:00Z"));
  EXPECT_EQ(NextPeriod(At("2026-03-02T00:00:00Z"), Granularity::kWeek), At("2026-03-09T00:00:00Z"));
  // Before 1970 too (floor, not truncation).
  EXPECT_EQ(PeriodStart(At("1969-12-31T12:00:00Z"), Granularity::kDay), At("1969-12-31T00:00:00Z"));
}

TEST(AnalyticsRules, UserAgentsByUapCore) {
  auto shared = UserAgentClassifier::Shared();
  ASSERT_TRUE(shared.ok()) << shared.error().message << " " << shared.error().detail;
  const UserAgentClassifier& agents = **shared;
  const auto chrome = agents.Classify(
      "Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) "
      "Chrome/120.0.0.0 Safari/537.36");
  EXPECT_EQ(chrome.browser, "Chrome");
  EXPECT_EQ(chrome.os, "Windows");
  EXPECT_EQ(chrome.device_type, "desktop");
  const auto android_phone = agents.Classify(
      "Mozilla/5.0 (Linux; Android 14; Pixel 8) AppleWebKit/537.36 (KHTML, like Gecko) "
      "Chrome/120.0.0.0 Mobile Safari/537.36");
  EXPECT_EQ(android_phone.browser, "Chrome Mobile");
  EXPECT_EQ(android_phone.os, "Android");
  EXPECT_EQ(android_phone.device_type, "mobile");
  const auto android_tablet = agents.Classify(
      "Mozilla/5.0 (Linux; Android 13; SM-X700) AppleWebKit/537.36 (KHTML, like Gecko) "
      "Chrome/120.0.0.0 Safari/537.36");
  EXPECT_EQ(android_tablet.device_type, "tablet");
  const auto mac = agents.Classify(
      "Mozilla/5.0 (Macintosh; Intel Mac OS X 14_1) AppleWebKit/605.1.15 (KHTML, like Gecko) "
      "Version/17.1 Safari/605.1.15");
  EXPECT_EQ(mac.browser, "Safari");
  EXPECT_EQ(mac.os, "Mac OS X");
  EXPECT_EQ(mac.device_type, "desktop");
  for (const char* bot :
       {"Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)",
        "Mozilla/5.0 (compatible; bingbot/2.0; +http://www.bing.com/bingbot.htm)", "curl/8.4.0",
        "python-requests/2.31.0", ""}) {
    EXPECT_TRUE(agents.Classify(bot).is_bot()) << bot;
  }
  // A cached answer is the same answer.
  EXPECT_EQ(agents.Classify("curl/8.4.0").device_type, "bot");
}

TEST(AnalyticsRules, TheTrackerIsUnder2KB) {
  EXPECT_LT(TrackerScript(true).size(), 2048u);
  EXPECT_LT(TrackerScript(false).size(), 2048u);
}

}  // namespace
}  // namespace cairn::analytics
