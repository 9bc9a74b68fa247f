// Analytics rollups at their edges (docs/analytics.md "Storage, rollups and retention"), over
// HTTP on the backend of this run: the hourly rollups and per-day visitor rows give the same
// numbers as raw events for ranges that start and end mid-hour, for an event in the current
// hour (not rolled up yet), for a session across midnight, after a restart (the job carries on
// where it stopped) and after retention removes old rollups. The analytics clock is the test's.
#include <gtest/gtest.h>

#include <atomic>
#include <memory>
#include <string>
#include <vector>

#include <boost/json.hpp>

#include "common/time.hpp"
#include "e2e/analytics_support.hpp"
#include "e2e/auth_test_support.hpp"

namespace cairn::test {
namespace {

namespace json = boost::json;

std::string Iso(std::int64_t millis) {
  return time::FormatIso(millis);
}

constexpr const char* kConfig = R"(auth:
  strategies:
    - type: emailAndPassword
analytics:
  retentionDays: 30
  sessionTimeout: 30
)";

json::object Counts(std::int64_t views, std::int64_t visitors, std::int64_t sessions) {
  return {{"pageViews", views}, {"uniqueVisitors", visitors}, {"sessions", sessions}};
}

class AnalyticsRollupTest : public ::testing::Test {
 protected:
  void SetUp() override { Start(nullptr); }

  void Start(TestApp* share_database_with) {
    TestAppOptions options = AuthAppOptionsWithConfig(
        std::string(kMinimalConfig) + kConfig, kAnalyticsAdminEmail, kAnalyticsAdminPassword);
    auto clock = clock_;
    options.analytics_now_ms = [clock] { return clock->load(); };
    options.share_database_with = share_database_with;
    auth_ = std::make_unique<AuthApp>(std::move(options));
    admin_ = auth_->SignInOk(kAnalyticsAdminEmail, kAnalyticsAdminPassword).token;
  }

  // A page view at `iso` by the visitor of `agent` (one client address: the agent tells them
  // apart).
  void View(const std::string& iso, const std::string& path, const char* agent) {
    clock_->store(At(iso));
    const HttpResult result = auth_->Client().PostJson(
        "/api/analytics/collect", R"({"p":")" + path + R"("})", {{"User-Agent", agent}});
    ASSERT_EQ(result.status, 204) << result.body;
  }

  json::value Get(const std::string& target) {
    const HttpResult result = auth_->GetAs(admin_, target);
    EXPECT_EQ(result.status, 200) << target << ": " << result.body;
    return result.status == 200 ? result.Json() : json::value();
  }
  json::value Overview(const std::string& from, const std::string& to,
                       const std::string& granularity = "day") {
    return Get("/api/analytics/overview?granularity=" + granularity + "&from=" + from +
               "&to=" + to);
  }

  analytics::MaintenanceReport Job(const std::string& now_iso) {
    auto report = auth_->app().app().RunAnalyticsJob(At(now_iso));
    EXPECT_TRUE(report.ok()) << report.error().message << " " << report.error().detail;
    return report.ok() ? *report : analytics::MaintenanceReport{};
  }

  std::int64_t Rows(const char* table) {
    return auth_->Count(std::string("SELECT COUNT(*) FROM \"") + table + "\"");
  }

  std::shared_ptr<std::atomic<std::int64_t>> clock_ =
      std::make_shared<std::atomic<std::int64_t>>(At("2026-03-02T00:00:00Z"));
  std::unique_ptr<AuthApp> auth_;
  std::string admin_;
};

TEST_F(AnalyticsRollupTest, AnEventInTheCurrentHourIsCountedOnceWithTheRolledUpHours) {
  View("2026-03-02T09:10:00Z", "/", kChromeWindows);
  View("2026-03-02T09:20:00Z", "/a", kChromeWindows);
  View("2026-03-02T10:30:00Z", "/", kSafariIphone);
  // As of 11:20 the hours before 11:00 are rolled up; 11:00 is the current hour.
  const analytics::MaintenanceReport report = Job("2026-03-02T11:20:00Z");
  EXPECT_EQ(report.hours_rolled_up, 11);  // 00:00 … 10:59 (the first event's day from midnight)
  EXPECT_EQ(report.days_rolled_up, 0);
  EXPECT_EQ(auth_->Count(R"(SELECT COUNT(*) FROM "_cairn_analytics_hourly" WHERE "hour" >= ?)",
                         {At("2026-03-02T11:00:00Z") / kHour}),
            0);
  // The Chrome visitor again in the current hour (a new session: 2 h later), and a new one.
  View("2026-03-02T11:15:00Z", "/b", kChromeWindows);
  View("2026-03-02T11:16:00Z", "/", kFirefoxLinux);

  json::value overview = Overview("2026-03-02", "2026-03-02T11:20:00Z");
  EXPECT_EQ(overview.at("summary"), json::value(Counts(5, 3, 4)));
  overview = Overview("2026-03-02T09:00:00Z", "2026-03-02T11:59:59.999Z", "hour");
  EXPECT_EQ(overview.at("timeSeries").as_array().size(), 3u);
  EXPECT_EQ(overview.at("timeSeries").at(0).at("pageViews"), json::value(2));
  EXPECT_EQ(overview.at("timeSeries").at(2),
            json::value(json::object{{"period", "2026-03-02T11:00:00.000Z"},
                                     {"pageViews", 2},
                                     {"uniqueVisitors", 2},
                                     {"sessions", 2}}));
  EXPECT_EQ(overview.at("summary"), json::value(Counts(5, 3, 4)));
  const json::value devices = Get("/api/analytics/devices?from=2026-03-02&to=2026-03-02");
  EXPECT_EQ(devices.at("deviceTypes"),
            json::parse(R"([{"name":"desktop","count":2,"percentage":66.7},
    {"name":"mobile","count":1,"percentage":33.3}])"));
}

TEST_F(AnalyticsRollupTest, ARangeStartingAndEndingMidHourReadsRollupsAndTheEdgesRaw) {
  View("2026-03-02T10:05:00Z", "/", kChromeWindows);
  View("2026-03-02T10:30:00Z", "/a", kChromeWindows);  // the same session (25 min)
  View("2026-03-02T14:00:00Z", "/", kChromeWindows);   // a new session
  View("2026-03-02T10:10:00Z", "/", kSafariIphone);    // only before the range
  View("2026-03-02T12:00:00Z", "/b", kFirefoxLinux);
  View("2026-03-02T16:40:00Z", "/b", kFirefoxLinux);  // after the range's end
  View("2026-03-03T08:00:00Z", "/", kSafariIphone);
  const std::string from = "2026-03-02T10:15:00Z";
  const std::string to = "2026-03-02T16:30:00Z";
  // A: /a at 10:30 (its session began at 10:05, before the range: not counted) and a session at
  // 14:00; C: one session at 12:00. B's 10:10 and C's 16:40 are outside.
  const auto expect = [&] {
    json::value overview = Overview(from, to);
    EXPECT_EQ(overview.at("summary"), json::value(Counts(3, 2, 2)));
    overview = Overview(from, to, "hour");
    EXPECT_EQ(overview.at("summary"), json::value(Counts(3, 2, 2)));
    EXPECT_EQ(overview.at("timeSeries").at(0),
              json::value(json::object{{"period", "2026-03-02T10:00:00.000Z"},
                                       {"pageViews", 1},
                                       {"uniqueVisitors", 1},
                                       {"sessions", 0}}));
    const json::value devices = Get("/api/analytics/devices?from=" + from + "&to=" + to);
    EXPECT_EQ(devices.at("browsers"), json::parse(R"([{"name":"Chrome","count":1,"percentage":50},
      {"name":"Firefox","count":1,"percentage":50}])"));
    const json::value pages = Get("/api/analytics/pages?from=" + from + "&to=" + to);
    EXPECT_EQ(pages.at("total"), json::value(3));
  };
  expect();
  EXPECT_EQ(Job("2026-03-04T00:30:00Z").days_rolled_up, 2);
  expect();
  // The whole hours 11:00–15:59 come from the rollups: without their raw events the overview and
  // the devices report still answer the same.
  auth_->Execute(
      R"(DELETE FROM "_cairn_analytics_events" WHERE "created_at" >= ? AND "created_at" < ?)",
      {At("2026-03-02T11:00:00Z"), At("2026-03-02T16:00:00Z")});
  EXPECT_EQ(Overview(from, to).at("summary"), json::value(Counts(3, 2, 2)));
  EXPECT_EQ(Overview(from, to, "hour").at("summary"), json::value(Counts(3, 2, 2)));
  const json::value devices = Get("/api/analytics/devices?from=" + from + "&to=" + to);
  EXPECT_EQ(devices.at("operatingSystems"),
            json::parse(R"([{"name":"Linux","count":1,"percentage":50},
      {"name":"Windows","count":1,"percentage":50}])"));
}

TEST_F(AnalyticsRollupTest, ASessionAcrossMidnightIsTwoVisitorsAndTwoSessionsEitherWay) {
  View("2026-03-02T23:40:00Z", "/", kChromeWindows);
  View("2026-03-02T23:55:00Z", "/a", kChromeWindows);
  View("2026-03-03T00:05:00Z", "/b", kChromeWindows);  // 10 minutes later, but a new day's visitor
  View("2026-03-03T00:20:00Z", "/", kChromeWindows);
  const auto expect = [&] {
    const json::value daily = Overview("2026-03-02", "2026-03-03");
    EXPECT_EQ(daily.at("summary"), json::value(Counts(4, 2, 2)));
    EXPECT_EQ(daily.at("timeSeries").at(0).at("sessions"), json::value(1));
    EXPECT_EQ(daily.at("timeSeries").at(1).at("sessions"), json::value(1));
    // Mid-hour on both sides of midnight.
    EXPECT_EQ(Overview("2026-03-02T23:50:00Z", "2026-03-03T00:10:00Z").at("summary"),
              json::value(Counts(2, 2, 1)));
    const json::value hourly = Overview("2026-03-02T23:00:00Z", "2026-03-03T00:59:59.999Z", "hour");
    EXPECT_EQ(hourly.at("summary"), json::value(Counts(4, 2, 2)));
  };
  expect();
  Job("2026-03-03T02:00:00Z");
  EXPECT_EQ(auth_->Count(R"(SELECT COUNT(*) FROM "_cairn_analytics_visitor_days")"), 2);
  expect();
}

TEST_F(AnalyticsRollupTest, ReportsAgreeBeforeAndAfterTheRollupsForManyRanges) {
  // 3 visitors × a view every 37 minutes over two days, paths cycling.
  const char* const agents[] = {kChromeWindows, kSafariIphone, kFirefoxLinux};
  std::int64_t at = At("2026-03-02T03:00:00Z");
  for (int i = 0; i < 75; ++i, at += 37 * kMinute) {
    View(Iso(at), "/p" + std::to_string(i % 4), agents[(i / 5) % 3]);
  }
  std::vector<std::string> targets;
  const std::int64_t start = At("2026-03-02T00:00:00Z");
  const std::int64_t offsets[] = {0, 95 * kMinute, 10 * kHour + 7 * kMinute,
                                  23 * kHour + 30 * kMinute};
  const std::int64_t lengths[] = {50 * kMinute, 5 * kHour, 26 * kHour + 13 * kMinute, 2 * kDay};
  for (std::int64_t offset : offsets) {
    for (std::int64_t length : lengths) {
      const std::string range =
          "from=" + Iso(start + offset) + "&to=" + Iso(start + offset + length);
      for (const char* g : {"hour", "day", "week"}) {
        targets.push_back("/api/analytics/overview?granularity=" + std::string(g) + "&" + range);
      }
      for (const char* report : {"pages", "referrers", "devices", "campaigns"}) {
        targets.push_back("/api/analytics/" + std::string(report) + "?" + range);
      }
    }
  }
  std::vector<json::value> raw;
  for (const std::string& target : targets) raw.push_back(Get(target));
  // As of 03-03 14:20: 03-02 wholly rolled up, 03-03 up to 14:00, the rest raw.
  Job("2026-03-03T14:20:00Z");
  EXPECT_GT(Rows("_cairn_analytics_hourly"), 0);
  for (std::size_t i = 0; i < targets.size(); ++i) {
    EXPECT_EQ(Get(targets[i]), raw[i]) << targets[i];
  }
  Job("2026-03-05T00:00:00Z");
  for (std::size_t i = 0; i < targets.size(); ++i) {
    EXPECT_EQ(Get(targets[i]), raw[i]) << targets[i];
  }
}

TEST_F(AnalyticsRollupTest, AfterARestartTheJobCarriesOnWhereItStopped) {
  View("2026-03-02T08:10:00Z", "/", kChromeWindows);
  View("2026-03-02T09:10:00Z", "/", kSafariIphone);
  EXPECT_EQ(Job("2026-03-02T09:30:00Z").hours_rolled_up, 9);  // 00:00 … 08:59
  View("2026-03-02T10:10:00Z", "/", kFirefoxLinux);
  auth_->app().app().Shutdown();
  auto old = std::move(auth_);
  Start(&old->app());
  // The rolled-up hours stay; the job rolls up only 09:00 … 11:59.
  const analytics::MaintenanceReport report = Job("2026-03-02T12:30:00Z");
  EXPECT_EQ(report.hours_rolled_up, 3);
  EXPECT_EQ(Rows("_cairn_analytics_hourly"), 3);  // hours with page views only
  EXPECT_EQ(Overview("2026-03-02", "2026-03-02").at("summary"), json::value(Counts(3, 3, 3)));
}

TEST_F(AnalyticsRollupTest, RetentionRemovesTheRollupsOfDaysPastTheHorizon) {
  View("2026-03-02T10:00:00Z", "/", kChromeWindows);
  View("2026-03-10T10:00:00Z", "/", kSafariIphone);
  View("2026-03-10T10:20:00Z", "/", kSafariIphone);  // the same session
  Job("2026-03-11T01:00:00Z");
  EXPECT_EQ(Rows("_cairn_analytics_hourly"), 2);
  EXPECT_EQ(Rows("_cairn_analytics_visitor_days"), 2);
  // retentionDays 30 as of 04-05 12:00: the horizon is 03-06 12:00. 03-02 goes, 03-10 stays.
  const analytics::MaintenanceReport report = Job("2026-04-05T12:00:00Z");
  EXPECT_EQ(report.events_deleted, 1);
  EXPECT_EQ(auth_->Count(R"(SELECT COUNT(*) FROM "_cairn_analytics_hourly" WHERE "hour" < ?)",
                         {At("2026-03-06T00:00:00Z") / kHour}),
            0);
  EXPECT_EQ(auth_->Count(R"(SELECT COUNT(*) FROM "_cairn_analytics_visitor_days" WHERE "day" < ?)",
                         {At("2026-03-06T00:00:00Z") / kDay}),
            0);
  EXPECT_EQ(auth_->Count(R"(SELECT COUNT(*) FROM "_cairn_analytics_daily" WHERE "day" < ?)",
                         {At("2026-03-06T00:00:00Z") / kDay}),
            0);
  EXPECT_EQ(
      auth_->Count(R"(SELECT COUNT(*) FROM "_cairn_analytics_hourly_classes" WHERE "hour" < ?)",
                   {At("2026-03-06T00:00:00Z") / kHour}),
      0);
  EXPECT_EQ(Rows("_cairn_analytics_hourly"), 1);
  EXPECT_EQ(Overview("2026-03-01", "2026-03-31").at("summary"), json::value(Counts(2, 1, 1)));
  EXPECT_EQ(Overview("2026-03-10T10:10:00Z", "2026-03-10T12:00:00Z", "hour").at("summary"),
            json::value(Counts(1, 1, 0)));
}

}  // namespace
}  // namespace cairn::test
