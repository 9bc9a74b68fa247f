// The tracker in a real browser: headless Chromium (Debian `chromium`) loads a page served from
// cairn's origin that includes /api/analytics/script.js and navigates twice with the history
// API; three page views must reach the database.
#include <gtest/gtest.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>
#include <thread>

#include <boost/json.hpp>

#include "e2e/auth_test_support.hpp"
#include "http/response.hpp"

namespace cairn::test {
namespace {

constexpr const char* kChromium = "/usr/bin/chromium";

// The page: the tracker, then two navigations (pushState, then replaceState) a moment apart,
// then a marker the test reads from the dumped DOM.
constexpr const char* kPage = R"(<!doctype html>
<html><head><title>Tracker test</title>
<script src="/api/analytics/script.js"></script></head>
<body><p id="state">loading</p>
<script>
setTimeout(function () { history.pushState({}, "", "/spa/second"); }, 100);
setTimeout(function () { history.replaceState({}, "", "/spa/third?utm_source=browser"); }, 200);
setTimeout(function () { document.getElementById("state").textContent = "navigated"; }, 300);
</script></body></html>)";

Status AddPage(http::Router& router, db::Database&) {
  http::RouteSpec spec;
  spec.method = "GET";
  spec.pattern = "/spa/{rest...}";
  spec.summary = "the test page";
  spec.tag = "test";
  return router.Add({spec, [](http::Request&) -> Result<http::Response> {
                       http::Response response;
                       response.content_type = "text/html; charset=utf-8";
                       response.body = kPage;
                       return response;
                     }});
}

TEST(AnalyticsBrowser, APageThatNavigatesTwiceRecordsThreePageViews) {
  ASSERT_TRUE(std::filesystem::exists(kChromium))
      << kChromium << " is missing: scripts/install-deps installs Debian's chromium";
  TestAppOptions options = AuthAppOptionsWithConfig(
      std::string(kMinimalConfig) +
          "auth:\n  strategies:\n    - type: emailAndPassword\nanalytics: true\n",
      "root@example.com", "root password 1");
  options.extra_routes = AddPage;
  AuthApp auth(std::move(options));
  const std::string url = auth.Origin() + "/spa/first";

  const std::filesystem::path profile = auth.app().data_dir() / "chromium-profile";
  const std::filesystem::path dom = auth.app().data_dir() / "dom.html";
  // --virtual-time-budget lets the page's timers run before the DOM is dumped; --no-sandbox
  // because CI runs as root.
  const std::string command = std::string(kChromium) +
                              " --headless --no-sandbox --disable-gpu --no-first-run"
                              " --disable-extensions --user-data-dir=" +
                              profile.string() + " --virtual-time-budget=3000 --dump-dom " + url +
                              " > " + dom.string() + " 2>/dev/null";
  ASSERT_EQ(std::system(command.c_str()), 0) << command;
  std::ifstream in(dom);
  const std::string html((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  ASSERT_NE(html.find("navigated"), std::string::npos) << html;

  // Beacons travel on their own; give them a moment (bounded). Reading through the events route
  // writes the collect queue first, so the table then holds every acknowledged page view.
  const Account root = auth.SignInOk("root@example.com", "root password 1");
  std::int64_t count = 0;
  for (int i = 0; i < 100 && count < 3; ++i) {
    if (i > 0) std::this_thread::sleep_for(std::chrono::milliseconds(50));
    ASSERT_EQ(auth.GetAs(root.token, "/api/analytics/events").status, 200);
    count = auth.Count(R"(SELECT COUNT(*) FROM "_cairn_analytics_events")");
  }
  ASSERT_EQ(count, 3);
  const auto rows = auth.Query(
      R"(SELECT "path", "utm_source", "browser" FROM "_cairn_analytics_events" ORDER BY "id")");
  ASSERT_EQ(rows.size(), 3u);
  EXPECT_EQ(rows[0][0], std::optional<std::string>("/spa/first"));
  EXPECT_EQ(rows[1][0], std::optional<std::string>("/spa/second"));
  EXPECT_EQ(rows[2][0], std::optional<std::string>("/spa/third"));
  EXPECT_EQ(rows[2][1], std::optional<std::string>("browser"));
  // Headless Chromium is a Chrome-family browser, not a bot.
  EXPECT_NE(rows[0][2], std::optional<std::string>("Other"));
}

}  // namespace
}  // namespace cairn::test
