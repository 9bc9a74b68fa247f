#include "api/health_api.hpp"

#include <gtest/gtest.h>

#include <atomic>
#include <thread>

#include <boost/json.hpp>

#include "http/dispatcher.hpp"

namespace cairn::api {
namespace {

// A database whose health can be switched off; only Ping is used by the health route.
class FakeDatabase final : public db::Database {
 public:
  const db::Dialect& dialect() const override { return db::Dialect::Sqlite(); }
  Status Transaction(db::Access, const std::function<Status(db::Connection&)>&) override {
    return Error::Internal("not used");
  }
  Status Ping() override {
    if (up) return {};
    return Error::Unavailable("Database unavailable", "connection refused");
  }
  void Close() override {}
  std::atomic<bool> up{true};
};

http::Response Get(const http::Dispatcher& dispatcher, const char* target) {
  http::BeastRequest raw{boost::beast::http::verb::get, target, 11};
  http::Request request;
  return dispatcher.Handle(raw, request);
}

// A liveness that pings only when the test says, on the test's clock.
struct Probe {
  FakeDatabase database;
  std::int64_t now_ms = 1'000'000;
  DatabaseLiveness liveness{
      database, LivenessOptions{std::chrono::milliseconds(500), std::chrono::milliseconds(3000),
                                false, [this] { return now_ms; }}};
};

TEST(HealthApi, OkWhileTheDatabaseAnswers) {
  Probe probe;
  http::Router router;
  ASSERT_TRUE(AddHealthRoutes(router, probe.liveness, {"my-app", "2.0.0"}).ok());
  http::Dispatcher dispatcher(std::move(router), {});
  auto response = Get(dispatcher, "/api/health");
  ASSERT_EQ(response.status, 200);
  auto body = boost::json::parse(response.body);
  EXPECT_EQ(body.at("status"), "ok");
  EXPECT_EQ(body.at("database"), "ok");
  EXPECT_EQ(body.at("app").at("name"), "my-app");
  EXPECT_EQ(body.at("app").at("version"), "2.0.0");
}

TEST(HealthApi, ServiceUnavailableWhenTheDatabaseDoesNot) {
  Probe probe;
  http::Router router;
  ASSERT_TRUE(AddHealthRoutes(router, probe.liveness, {"my-app", ""}).ok());
  http::Dispatcher dispatcher(std::move(router), {});
  probe.database.up = false;
  probe.liveness.Refresh();
  auto response = Get(dispatcher, "/api/health");
  EXPECT_EQ(response.status, 503);
  auto body = boost::json::parse(response.body);
  EXPECT_EQ(body.at("code"), "SERVICE_UNAVAILABLE");
  EXPECT_EQ(body.at("success"), false);
  // The driver's words stay in the log.
  EXPECT_EQ(response.body.find("connection refused"), std::string::npos);
  probe.database.up = true;
  probe.liveness.Refresh();
  EXPECT_EQ(Get(dispatcher, "/api/health").status, 200);
}

TEST(HealthApi, ADatabaseThatStopsAnsweringIsReportedOnceItsAnswerIsStale) {
  Probe probe;
  http::Router router;
  ASSERT_TRUE(AddHealthRoutes(router, probe.liveness, {"my-app", ""}).ok());
  http::Dispatcher dispatcher(std::move(router), {});
  probe.now_ms += 3000;  // the last answer is exactly as old as allowed
  EXPECT_EQ(Get(dispatcher, "/api/health").status, 200);
  probe.now_ms += 1;  // a ping hangs: no new answer arrives
  EXPECT_EQ(Get(dispatcher, "/api/health").status, 503);
  probe.liveness.Refresh();
  EXPECT_EQ(Get(dispatcher, "/api/health").status, 200);
}

TEST(HealthApi, TheBackgroundThreadKeepsPinging) {
  FakeDatabase database;
  DatabaseLiveness liveness(
      database,
      LivenessOptions{std::chrono::milliseconds(10), std::chrono::milliseconds(3000), true, {}});
  EXPECT_TRUE(liveness.Current().ok());
  database.up = false;
  for (int i = 0; i < 500 && liveness.Current().ok(); ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  EXPECT_FALSE(liveness.Current().ok());
  liveness.Stop();
}

}  // namespace
}  // namespace cairn::api
