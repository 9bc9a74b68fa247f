#include "api/health_api.hpp"

#include <gtest/gtest.h>

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
  bool up = true;
};

http::Response Get(const http::Dispatcher& dispatcher, const char* target) {
  http::BeastRequest raw{boost::beast::http::verb::get, target, 11};
  http::Request request;
  return dispatcher.Handle(raw, request);
}

TEST(HealthApi, OkWhileTheDatabaseAnswers) {
  FakeDatabase database;
  http::Router router;
  ASSERT_TRUE(AddHealthRoutes(router, database, {"my-app", "2.0.0"}).ok());
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
  FakeDatabase database;
  http::Router router;
  ASSERT_TRUE(AddHealthRoutes(router, database, {"my-app", ""}).ok());
  http::Dispatcher dispatcher(std::move(router), {});
  database.up = false;
  auto response = Get(dispatcher, "/api/health");
  EXPECT_EQ(response.status, 503);
  auto body = boost::json::parse(response.body);
  EXPECT_EQ(body.at("code"), "SERVICE_UNAVAILABLE");
  EXPECT_EQ(body.at("success"), false);
  // The driver's words stay in the log.
  EXPECT_EQ(response.body.find("connection refused"), std::string::npos);
  database.up = true;
  EXPECT_EQ(Get(dispatcher, "/api/health").status, 200);
}

}  // namespace
}  // namespace cairn::api
