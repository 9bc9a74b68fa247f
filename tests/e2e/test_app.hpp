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

struct TestAppOptions {
  std::string config_yaml;
  std::function<Status(http::Router&, db::Database&)> extra_routes;
  std::function<void(http::ServerOptions&)> tune_server;
};

class TestApp {
 public:
  explicit TestApp(TestAppOptions options);
  ~TestApp();

  std::uint16_t port() const { return app_->port(); }
  app::Application& app() { return *app_; }
  HttpClient Client() const { return HttpClient(port()); }
  const std::filesystem::path& data_dir() const { return data_dir_; }

 private:
  std::filesystem::path data_dir_;
  std::unique_ptr<TestDatabase> database_;
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
