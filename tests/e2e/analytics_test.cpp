// Analytics over HTTP (D54, docs/analytics.md), on the backend of this run: every report's
// numbers against a fixed set of page views placed at chosen times (the analytics clock is the
// test's), before and after the daily rollups, period and time-zone edges, the access rules, bad
// input, Do Not Track, excluded paths, bots, the rate limit and retention.
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

std::string ConfigYaml(const std::string& analytics) {
  std::string yaml = kMinimalConfig;
  yaml += "auth:\n  strategies:\n    - type: emailAndPassword\n";
  yaml += analytics;
  return yaml;
}

constexpr const char* kAnalytics = R"(analytics:
  retentionDays: 30
  sessionTimeout: 30
  respectDoNotTrack: true
  excludedPaths: ["/admin/*", "/private"]
)";

class AnalyticsTest : public ::testing::Test {
 protected:
  void SetUp() override {
    TestAppOptions options = AuthAppOptionsWithConfig(ConfigYaml(kAnalytics), kAnalyticsAdminEmail,
                                                      kAnalyticsAdminPassword);
    auto clock = clock_;
    options.analytics_now_ms = [clock] { return clock->load(); };
    auth_ = std::make_unique<AuthApp>(std::move(options));
    admin_ = auth_->SignInOk(kAnalyticsAdminEmail, kAnalyticsAdminPassword).token;
  }

  HttpResult Collect(std::int64_t at, const std::string& body, const char* agent,
                     Headers extra = {}) {
    clock_->store(at);
    extra.emplace_back("User-Agent", agent);
    return auth_->Client().PostJson("/api/analytics/collect", body, extra);
  }
  void CollectOk(const std::string& iso, const std::string& body, const char* agent) {
    const HttpResult result = Collect(At(iso), body, agent);
    ASSERT_EQ(result.status, 204) << result.body;
  }

  // The fixed event set (docs/analytics.md's rules give the expected numbers in each test).
  // Visitors: A (Chrome, Windows), B (Mobile Safari, iOS), C (Firefox, Linux), one address.
  void CollectFixedSet() {
    CollectOk("2026-03-02T10:00:00Z",
              R"({"p":"/","t":"Home","r":"https://www.google.com/search?q=x","us":"newsletter",)"
              R"("um":"email","uc":"spring","sw":1920,"sh":1080})",
              kChromeWindows);
    CollectOk("2026-03-02T10:10:00Z", R"({"p":"/pricing"})", kChromeWindows);
    CollectOk("2026-03-02T11:00:00Z", R"({"p":"/"})", kChromeWindows);  // 50 min: new session
    CollectOk("2026-03-02T10:05:00Z", R"({"p":"/","r":"https://news.ycombinator.com/item?id=1"})",
              kSafariIphone);
    CollectOk("2026-03-02T10:20:00Z", R"({"p":"/blog/a"})", kSafariIphone);
    CollectOk("2026-03-02T23:50:00Z", R"({"p":"/pricing","r":"https://WWW.Google.com/"})",
              kFirefoxLinux);
    CollectOk("2026-03-03T00:10:00Z", R"({"p":"/blog/a"})", kFirefoxLinux);  // a new day
    CollectOk("2026-03-03T09:00:00Z", R"({"p":"/","us":"newsletter","um":"email","uc":"spring"})",
              kChromeWindows);
    CollectOk("2026-03-09T12:00:00Z", R"({"p":"/","us":"twitter"})", kSafariIphone);
  }

  HttpResult Report(const std::string& target, const std::string& token) {
    return auth_->GetAs(token, target);
  }
  json::value ReportOk(const std::string& target) {
    const HttpResult result = Report(target, admin_);
    EXPECT_EQ(result.status, 200) << target << ": " << result.body;
    return result.status == 200 ? result.Json() : json::value();
  }
  // Reading through the events route writes the queue first, so the table holds every
  // acknowledged page view.
  std::int64_t EventCount() {
    EXPECT_EQ(Report("/api/analytics/events?limit=1", admin_).status, 200);
    return auth_->Count(R"(SELECT COUNT(*) FROM "_cairn_analytics_events")");
  }

  std::shared_ptr<std::atomic<std::int64_t>> clock_ =
      std::make_shared<std::atomic<std::int64_t>>(At("2026-03-02T00:00:00Z"));
  std::unique_ptr<AuthApp> auth_;
  std::string admin_;
};

json::object Counts(std::int64_t views, std::int64_t visitors, std::int64_t sessions) {
  return {{"pageViews", views}, {"uniqueVisitors", visitors}, {"sessions", sessions}};
}

json::object Period(const std::string& period, std::int64_t views, std::int64_t visitors,
                    std::int64_t sessions) {
  json::object out = Counts(views, visitors, sessions);
  out["period"] = period;
  return out;
}

constexpr const char* kRange = "from=2026-03-02&to=2026-03-09";

// The numbers of the fixed set, checked before the rollups and again after them.
void ExpectReports(AnalyticsTest& test, const std::function<json::value(const std::string&)>& get) {
  (void)test;
  // Overview, daily: 03-02 has 6 views by A, B, C; A's 50-minute gap starts a second session.
  // 03-03: C again (a new day, so a new visitor and session) and A. 03-09: B.
  json::value overview = get(std::string("/api/analytics/overview?") + kRange);
  EXPECT_EQ(overview.at("summary"), json::value(Counts(9, 6, 7)));
  json::array daily{Period("2026-03-02T00:00:00.000Z", 6, 3, 4),
                    Period("2026-03-03T00:00:00.000Z", 2, 2, 2)};
  for (int day = 4; day <= 8; ++day) {
    daily.push_back(Period("2026-03-0" + std::to_string(day) + "T00:00:00.000Z", 0, 0, 0));
  }
  daily.push_back(Period("2026-03-09T00:00:00.000Z", 1, 1, 1));
  EXPECT_EQ(overview.at("timeSeries"), json::value(daily));

  // Weeks start on Monday (2026-03-02 and 2026-03-09 are Mondays).
  overview = get(std::string("/api/analytics/overview?granularity=week&") + kRange);
  EXPECT_EQ(overview.at("timeSeries"),
            json::value(json::array{Period("2026-03-02T00:00:00.000Z", 8, 5, 6),
                                    Period("2026-03-09T00:00:00.000Z", 1, 1, 1)}));
  overview = get(std::string("/api/analytics/overview?granularity=month&") + kRange);
  EXPECT_EQ(overview.at("timeSeries"),
            json::value(json::array{Period("2026-03-01T00:00:00.000Z", 9, 6, 7)}));

  json::value pages = get(std::string("/api/analytics/pages?") + kRange);
  EXPECT_EQ(pages, json::parse(R"({"pages":[{"path":"/","pageViews":5,"uniqueVisitors":4},
    {"path":"/blog/a","pageViews":2,"uniqueVisitors":2},
    {"path":"/pricing","pageViews":2,"uniqueVisitors":2}],"total":3})"));

  json::value referrers = get(std::string("/api/analytics/referrers?") + kRange);
  EXPECT_EQ(referrers,
            json::parse(R"({"referrers":[{"domain":null,"pageViews":6,"uniqueVisitors":5},
    {"domain":"google.com","pageViews":2,"uniqueVisitors":2},
    {"domain":"news.ycombinator.com","pageViews":1,"uniqueVisitors":1}],"total":3})"));

  json::value campaigns = get(std::string("/api/analytics/campaigns?") + kRange);
  EXPECT_EQ(campaigns, json::parse(R"({"campaigns":[
    {"source":"newsletter","medium":"email","campaign":"spring","pageViews":2,"uniqueVisitors":2},
    {"source":"twitter","medium":null,"campaign":null,"pageViews":1,"uniqueVisitors":1}],"total":2})"));

  // Devices count visitors: A and C on two days each (desktop), B on two days (mobile).
  json::value devices = get(std::string("/api/analytics/devices?") + kRange);
  EXPECT_EQ(devices, json::parse(R"({
    "deviceTypes":[{"name":"desktop","count":4,"percentage":66.7},
                   {"name":"mobile","count":2,"percentage":33.3}],
    "browsers":[{"name":"Chrome","count":2,"percentage":33.3},
                {"name":"Firefox","count":2,"percentage":33.3},
                {"name":"Mobile Safari","count":2,"percentage":33.3}],
    "operatingSystems":[{"name":"Linux","count":2,"percentage":33.3},
                        {"name":"Windows","count":2,"percentage":33.3},
                        {"name":"iOS","count":2,"percentage":33.3}]})"));
}

TEST_F(AnalyticsTest, EveryReportMatchesTheFixedSetBeforeAndAfterTheRollups) {
  CollectFixedSet();
  const auto get = [this](const std::string& target) { return ReportOk(target); };
  ExpectReports(*this, get);

  // The job rolls up every finished day (03-02 … 03-09 as of 03-10 noon).
  auto report = auth_->app().app().RunAnalyticsJob(At("2026-03-10T12:00:00Z"));
  ASSERT_TRUE(report.ok()) << report.error().message << " " << report.error().detail;
  EXPECT_EQ(report->days_rolled_up, 8);
  EXPECT_EQ(report->events_deleted, 0);
  EXPECT_EQ(auth_->Count(R"(SELECT COUNT(*) FROM "_cairn_analytics_daily" WHERE "dimension" = ?)",
                         {std::string_view("total")}),
            3);  // days without events have no row
  ExpectReports(*this, get);

  // Whole rolled-up days are read from the rollups, not from raw events: with the raw events of
  // those days gone, the reports still give the same numbers.
  auth_->Execute(R"(DELETE FROM "_cairn_analytics_events" WHERE "created_at" < ?)",
                 {At("2026-03-09T00:00:00Z")});
  ExpectReports(*this, get);
}

TEST_F(AnalyticsTest, HoursAndPartialDaysAfterTheRollups) {
  CollectFixedSet();
  ASSERT_TRUE(auth_->app().app().RunAnalyticsJob(At("2026-03-10T12:00:00Z")).ok());
  // An hourly series over 03-02: 24 periods; A and B at 10 (two sessions), A again at 11 (its
  // second session), C at 23.
  const json::value hourly =
      ReportOk("/api/analytics/overview?granularity=hour&from=2026-03-02&to=2026-03-02");
  EXPECT_EQ(hourly.at("summary"), json::value(Counts(6, 3, 4)));
  const json::array& series = hourly.at("timeSeries").as_array();
  ASSERT_EQ(series.size(), 24u);
  EXPECT_EQ(series[0], json::value(Period("2026-03-02T00:00:00.000Z", 0, 0, 0)));
  EXPECT_EQ(series[10], json::value(Period("2026-03-02T10:00:00.000Z", 4, 2, 2)));
  EXPECT_EQ(series[11], json::value(Period("2026-03-02T11:00:00.000Z", 1, 1, 1)));
  EXPECT_EQ(series[23], json::value(Period("2026-03-02T23:00:00.000Z", 1, 1, 1)));

  // A range in another time zone: 2026-03-03T00:00+01:00 … 02:00+01:00 is 03-02T23:00Z …
  // 03-03T01:00Z, C's two views either side of midnight UTC: two visitors (ids rotate daily).
  const json::value zoned = ReportOk(
      "/api/analytics/overview?from=2026-03-03T00:00:00%2B01:00&to=2026-03-03T02:00:00%2B01:00");
  EXPECT_EQ(zoned.at("summary"), json::value(Counts(2, 2, 2)));
  // `from` and `to` are inclusive to the millisecond.
  const json::value edge =
      ReportOk("/api/analytics/pages?from=2026-03-02T10:10:00.000Z&to=2026-03-02T10:10:00.000Z");
  EXPECT_EQ(edge, json::parse(R"({"pages":[{"path":"/pricing","pageViews":1,"uniqueVisitors":1}],
    "total":1})"));
  const json::value before =
      ReportOk("/api/analytics/pages?from=2026-03-02T10:10:00.001Z&to=2026-03-02T10:19:59.999Z");
  EXPECT_EQ(before, json::parse(R"({"pages":[],"total":0})"));
}

TEST_F(AnalyticsTest, EventsListsTheNewestRawPageViews) {
  CollectFixedSet();
  HttpResult result = Report("/api/analytics/events?limit=2", admin_);
  ASSERT_EQ(result.status, 200) << result.body;
  const json::value body = result.Json();
  const json::array& events = body.at("events").as_array();
  ASSERT_EQ(events.size(), 2u);
  EXPECT_EQ(events[0].at("createdAt"), json::value("2026-03-09T12:00:00.000Z"));
  EXPECT_EQ(events[0].at("utmSource"), json::value("twitter"));
  EXPECT_EQ(events[0].at("deviceType"), json::value("mobile"));
  EXPECT_EQ(events[1].at("createdAt"), json::value("2026-03-03T09:00:00.000Z"));
  EXPECT_EQ(events[1].at("browser"), json::value("Chrome"));
  EXPECT_EQ(events[1].at("os"), json::value("Windows"));
  result = Report("/api/analytics/events", admin_);
  ASSERT_EQ(result.status, 200);
  EXPECT_EQ(result.Json().at("events").as_array().size(), 9u);  // default 50

  // An iPad is a tablet.
  ASSERT_EQ(Collect(At("2026-03-10T08:00:00Z"), R"({"p":"/tablet"})", kSafariIpad).status, 204);
  result = Report("/api/analytics/events?limit=1", admin_);
  ASSERT_EQ(result.status, 200);
  const json::value newest = result.Json();
  EXPECT_EQ(newest.at("events").at(0).at("deviceType"), json::value("tablet"));
  EXPECT_EQ(newest.at("events").at(0).at("path"), json::value("/tablet"));
}

TEST_F(AnalyticsTest, CollectSetsNoCookieAndStoresNoAddress) {
  const HttpResult result = Collect(At("2026-03-02T10:00:00Z"), R"({"p":"/"})", kChromeWindows);
  ASSERT_EQ(result.status, 204) << result.body;
  EXPECT_EQ(result.headers.count("set-cookie"), 0u);
  ASSERT_EQ(EventCount(), 1);
  for (const auto& row : auth_->Query(R"(SELECT * FROM "_cairn_analytics_events")")) {
    for (const auto& cell : row) {
      if (cell) {
        EXPECT_EQ(cell->find("127.0.0.1"), std::string::npos) << *cell;
      }
    }
  }
  // The visitor id is a SHA-256 hex digest.
  const auto visitor = auth_->Scalar(R"(SELECT "visitor" FROM "_cairn_analytics_events")");
  ASSERT_TRUE(visitor.has_value());
  EXPECT_EQ(visitor->size(), 64u);
}

TEST_F(AnalyticsTest, VisitorIdsRotateDaily) {
  CollectOk("2026-03-02T10:00:00Z", R"({"p":"/"})", kChromeWindows);
  CollectOk("2026-03-02T18:00:00Z", R"({"p":"/"})", kChromeWindows);
  CollectOk("2026-03-03T10:00:00Z", R"({"p":"/"})", kChromeWindows);
  EXPECT_EQ(EventCount(), 3);
  EXPECT_EQ(auth_->Count(R"(SELECT COUNT(DISTINCT "visitor") FROM "_cairn_analytics_events")"), 2);
  // Only the current day's secret and the one before it are kept.
  EXPECT_LE(
      auth_->Count(R"(SELECT COUNT(*) FROM "_cairn_analytics_state" WHERE "name" LIKE 'secret:%')"),
      2);
}

TEST_F(AnalyticsTest, DoNotTrackExcludedPathsAndBotsStoreNothing) {
  const std::int64_t at = At("2026-03-02T10:00:00Z");
  EXPECT_EQ(Collect(at, R"({"p":"/"})", kChromeWindows, {{"DNT", "1"}}).status, 204);
  EXPECT_EQ(Collect(at, R"({"p":"/admin/users"})", kChromeWindows).status, 204);
  EXPECT_EQ(Collect(at, R"({"p":"/private"})", kChromeWindows).status, 204);
  EXPECT_EQ(Collect(at, R"({"p":"/"})", kGooglebot).status, 204);
  EXPECT_EQ(Collect(at, R"({"p":"/"})", "").status, 204);  // no user agent: not a browser
  EXPECT_EQ(EventCount(), 0);
  // Not excluded: `/private/x` (the pattern has no `*`), `/administrator`, DNT: 0.
  EXPECT_EQ(Collect(at, R"({"p":"/private/x"})", kChromeWindows).status, 204);
  EXPECT_EQ(Collect(at, R"({"p":"/administrator"})", kChromeWindows).status, 204);
  EXPECT_EQ(Collect(at, R"({"p":"/"})", kChromeWindows, {{"DNT", "0"}}).status, 204);
  EXPECT_EQ(EventCount(), 3);
}

TEST_F(AnalyticsTest, TheTrackerScriptIsSmallAndHonoursDoNotTrack) {
  const HttpResult result = auth_->Client().Get("/api/analytics/script.js");
  ASSERT_EQ(result.status, 200);
  EXPECT_LT(result.body.size(), 2048u);
  EXPECT_NE(result.headers.at("content-type").find("javascript"), std::string::npos);
  EXPECT_NE(result.body.find("sendBeacon"), std::string::npos);
  EXPECT_NE(result.body.find("pushState"), std::string::npos);
  EXPECT_NE(result.body.find("o=1;"), std::string::npos);  // respectDoNotTrack: true
}

TEST_F(AnalyticsTest, ReportsAreForAdminsOnly) {
  const auto user = auth_->NewAccount("user@example.com");
  for (const char* report : {"overview", "pages", "referrers", "devices", "campaigns"}) {
    const std::string target =
        std::string("/api/analytics/") + report + "?from=2026-03-02&to=2026-03-09";
    EXPECT_EQ(Report(target, "").status, 401) << target;
    EXPECT_EQ(Report(target, user.token).status, 404) << target;
    EXPECT_EQ(Report(target, admin_).status, 200) << target;
  }
  EXPECT_EQ(Report("/api/analytics/events", "").status, 401);
  EXPECT_EQ(Report("/api/analytics/events", user.token).status, 404);
  // A non-admin learns nothing from a bad range either.
  EXPECT_EQ(Report("/api/analytics/overview", user.token).status, 404);
}

// A 400 whose errors name exactly `fields`.
::testing::AssertionResult IsValidationError(const HttpResult& result,
                                             std::vector<std::string> fields) {
  if (result.status != 400) {
    return ::testing::AssertionFailure() << "status " << result.status << ": " << result.body;
  }
  const json::value body = result.Json();
  std::vector<std::string> named;
  for (const json::value& error : body.at("errors").as_array()) {
    named.emplace_back(error.at("field").as_string());
  }
  if (named != fields) return ::testing::AssertionFailure() << result.body;
  return ::testing::AssertionSuccess();
}

TEST_F(AnalyticsTest, BadReportParametersAre400sNamingThem) {
  EXPECT_TRUE(IsValidationError(Report("/api/analytics/overview", admin_), {"from", "to"}));
  EXPECT_TRUE(IsValidationError(Report("/api/analytics/pages?from=2026-03-02", admin_), {"to"}));
  EXPECT_TRUE(IsValidationError(Report("/api/analytics/pages?from=yesterday&to=2026-03-02", admin_),
                                {"from"}));
  EXPECT_TRUE(IsValidationError(
      Report("/api/analytics/referrers?from=2026-03-02&to=2026-13-40", admin_), {"to"}));
  EXPECT_TRUE(IsValidationError(
      Report("/api/analytics/devices?from=2026-03-09&to=2026-03-02", admin_), {"from", "to"}));
  EXPECT_TRUE(IsValidationError(
      Report("/api/analytics/overview?from=2026-03-02&to=2026-03-09&granularity=year", admin_),
      {"granularity"}));
  // Hourly over ten years would be 87,600 periods.
  EXPECT_TRUE(IsValidationError(
      Report("/api/analytics/overview?from=2016-01-01&to=2025-12-31&granularity=hour", admin_),
      {"granularity"}));
  for (const char* limit : {"0", "1001", "abc", "", "-1", "5x"}) {
    EXPECT_TRUE(IsValidationError(
        Report(std::string("/api/analytics/events?limit=") + limit, admin_), {"limit"}))
        << limit;
  }
  EXPECT_EQ(Report("/api/analytics/events?limit=1000", admin_).status, 200);
  EXPECT_EQ(Report("/api/analytics/events?limit=1", admin_).status, 200);
}

TEST_F(AnalyticsTest, BadCollectBodiesAre400sNamingTheField) {
  const std::int64_t at = At("2026-03-02T10:00:00Z");
  const auto field_of = [](const HttpResult& result) -> std::string {
    if (result.status != 400) return "status " + std::to_string(result.status);
    const json::value body = result.Json();
    if (!body.as_object().contains("errors")) return "no errors: " + result.body;
    return std::string(body.at("errors").at(0).at("field").as_string());
  };
  EXPECT_EQ(field_of(Collect(at, R"({})", kChromeWindows)), "p");
  EXPECT_EQ(field_of(Collect(at, R"({"p":""})", kChromeWindows)), "p");
  EXPECT_EQ(field_of(Collect(at, R"({"p":"home"})", kChromeWindows)), "p");
  EXPECT_EQ(field_of(Collect(at, R"({"p":7})", kChromeWindows)), "p");
  EXPECT_EQ(field_of(Collect(at, R"({"p":"/","sw":-1})", kChromeWindows)), "sw");
  EXPECT_EQ(field_of(Collect(at, R"({"p":"/","sh":"big"})", kChromeWindows)), "sh");
  EXPECT_EQ(field_of(Collect(at, R"({"p":"/","r":"not a url"})", kChromeWindows)), "r");
  EXPECT_EQ(
      field_of(Collect(at, R"({"p":"/","us":")" + std::string(201, 'x') + "\"}", kChromeWindows)),
      "us");
  EXPECT_EQ(Collect(at, R"({"p":"/","extra":1})", kChromeWindows).status, 400);
  EXPECT_EQ(Collect(at, R"([1,2])", kChromeWindows).status, 400);
  EXPECT_EQ(Collect(at, R"({"p":)", kChromeWindows).status, 400);
  EXPECT_EQ(EventCount(), 0);
  // An empty referrer is direct.
  EXPECT_EQ(Collect(at, R"({"p":"/","r":""})", kChromeWindows).status, 204);
  EXPECT_EQ(EventCount(), 1);
}

TEST_F(AnalyticsTest, RetentionDeletesEventsOlderThanRetentionDays) {
  CollectFixedSet();
  // retentionDays 30 as of 04-02 12:00: the horizon is 03-03 12:00; only 03-09's view stays.
  auto report = auth_->app().app().RunAnalyticsJob(At("2026-04-02T12:00:00Z"));
  ASSERT_TRUE(report.ok()) << report.error().message << " " << report.error().detail;
  EXPECT_EQ(report->events_deleted, 8);
  EXPECT_EQ(EventCount(), 1);
  EXPECT_EQ(auth_->Count(R"(SELECT COUNT(*) FROM "_cairn_analytics_events" WHERE "created_at" = ?)",
                         {At("2026-03-09T12:00:00Z")}),
            1);
  // Rollups of days wholly past the horizon go too.
  EXPECT_EQ(auth_->Count(R"(SELECT COUNT(*) FROM "_cairn_analytics_daily" WHERE "day" < ?)",
                         {At("2026-03-03T00:00:00Z") / kDay}),
            0);
}

TEST_F(AnalyticsTest, AGracefulShutdownWritesEveryAcknowledgedPageView) {
  // Collect answers from the write queue; Shutdown must write what waits there.
  for (int i = 0; i < 50; ++i) {
    ASSERT_EQ(Collect(At("2026-03-02T10:00:00Z") + i, R"({"p":"/"})", kChromeWindows).status, 204);
  }
  auth_->app().app().Shutdown();
  TestAppOptions options;
  options.config_yaml = kMinimalConfig;
  options.share_database_with = &auth_->app();
  TestApp reopened(std::move(options));
  std::int64_t count = -1;
  const Status read = reopened.app().database().Transaction(
      db::Access::kRead, [&](db::Connection& connection) -> Status {
        CAIRN_TRY(connection.Execute(R"(SELECT COUNT(*) FROM "_cairn_analytics_events")", {},
                                     [&](const db::Row& row) { count = row.GetInt64(0); }));
        return {};
      });
  ASSERT_TRUE(read.ok()) << read.error().message;
  EXPECT_EQ(count, 50);
}

TEST(AnalyticsRateLimit, CollectIsLimitedPerAddress) {
  TestAppOptions options = AuthAppOptionsWithConfig(ConfigYaml("analytics: true\n"),
                                                    kAnalyticsAdminEmail, kAnalyticsAdminPassword);
  options.tune_settings = [](app::Settings& settings) {
    settings.auth_secret = kTestAuthSecret;
    settings.rate_limit_disabled = false;
  };
  options.rate_limit_now_ms = [] { return At("2026-03-02T10:00:00Z"); };
  TestApp app(std::move(options));
  HttpClient client = app.Client();
  int accepted = 0;
  HttpResult last;
  for (int i = 0; i < 601; ++i) {
    last =
        client.PostJson("/api/analytics/collect", R"({"p":"/"})", {{"User-Agent", kChromeWindows}});
    if (last.status == 204) ++accepted;
  }
  EXPECT_EQ(accepted, 600);
  EXPECT_EQ(last.status, 429);
}

TEST(AnalyticsOff, EveryAnalyticsPathIs404) {
  TestApp app(AuthAppOptionsWithConfig(ConfigYaml("analytics: {enabled: false}\n"),
                                       kAnalyticsAdminEmail, kAnalyticsAdminPassword));
  HttpClient client = app.Client();
  EXPECT_EQ(client.PostJson("/api/analytics/collect", R"({"p":"/"})").status, 404);
  EXPECT_EQ(client.Get("/api/analytics/script.js").status, 404);
  EXPECT_EQ(client.Get("/api/analytics/overview?from=2026-03-02&to=2026-03-09").status, 404);
}

TEST(AnalyticsWithoutAuth, CollectWorksAndReportsNeedASession) {
  TestAppOptions options;
  options.config_yaml = std::string(kMinimalConfig) + "analytics: true\n";
  TestApp app(std::move(options));
  HttpClient client = app.Client();
  EXPECT_EQ(
      client.PostJson("/api/analytics/collect", R"({"p":"/"})", {{"User-Agent", kChromeWindows}})
          .status,
      204);
  EXPECT_EQ(client.Get("/api/analytics/overview?from=2026-03-02&to=2026-03-09").status, 401);
  EXPECT_EQ(client.Get("/api/analytics/events").status, 401);
  // Retention runs without auth too.
  auto report = app.app().RunAnalyticsJob(time::NowMillis() + 400 * kDay);
  ASSERT_TRUE(report.ok());
  EXPECT_EQ(report->events_deleted, 1);
}

}  // namespace
}  // namespace cairn::test
