// Starts the real cairn application in-process on port 0, on the backend of this test run
// (CAIRN_TEST_BACKEND), with a fresh isolated database, and talks HTTP to it.
#pragma once

#include <cstdint>
#include <filesystem>
#include <memory>
#include <string>

#include "app/application.hpp"
#include "support/http_client.hpp"
#include "support/test_database.hpp"

namespace cairn::test {

class TestApp;

struct TestAppOptions {
  std::string config_yaml;
  std::function<Status(http::Router&, db::Database&)> extra_routes;
  std::function<void(http::ServerOptions&)> tune_server;
  // Adjusts operator settings before start. Rate limits start disabled in tests (sign-in tests
  // would trip them); rate-limit tests turn them back on here.
  std::function<void(app::Settings&)> tune_settings;
  // The rate limiter's clock (epoch milliseconds); empty: the system clock.
  std::function<std::int64_t()> rate_limit_now_ms;
  // The clock of signed URL tokens (epoch seconds); empty: the system clock.
  std::function<std::int64_t()> storage_now_seconds;
  // Runs on the database of another TestApp (its data directory and, on PostgreSQL, its schema)
  // instead of a fresh one: several nodes on one database, or a restart. That app must outlive
  // this one; it may be shut down already.
  const TestApp* share_database_with = nullptr;
  // File storage for attachment fields instead of the storage module's (a fake); must outlive
  // the app.
  const records::AttachmentFiles* attachment_files = nullptr;
  // The analytics clock (epoch milliseconds); empty: the system clock.
  std::function<std::int64_t()> analytics_now_ms;
  // Called by the request that runs an image transform, before it runs.
  std::function<void(std::string_view key)> before_transform;
};

class TestApp {
 public:
  explicit TestApp(TestAppOptions options);
  ~TestApp();

  std::uint16_t port() const { return app_->port(); }
  app::Application& app() { return *app_; }
  HttpClient Client() const { return HttpClient(port()); }
  const std::filesystem::path& data_dir() const { return data_dir_; }
  // DATABASE_URL of this app's database (empty on SQLite: <data_dir>/cairn.db), for another
  // process on the same data.
  const std::string& database_url() const { return database_url_; }

 private:
  std::filesystem::path data_dir_;
  std::string database_url_;                // empty on SQLite: <data_dir_>/cairn.db
  std::unique_ptr<TestDatabase> database_;  // null when sharing another app's
  std::unique_ptr<app::Application> app_;
};

// A minimal valid config used where the config does not matter.
inline constexpr const char* kMinimalConfig = R"(
name: e2e-app
version: 1.2.3
tables:
  - name: notes
    fields:
      - name: title
        type: single-line-text
)";

}  // namespace cairn::test
