#include "e2e/test_app.hpp"

#include <stdexcept>

#include "config/loader.hpp"

namespace cairn::test {

TestApp::TestApp(TestAppOptions options) {
  if (options.share_database_with != nullptr) {
    data_dir_ = options.share_database_with->data_dir_;
    database_url_ = options.share_database_with->database_url_;
  } else {
    auto database = TestDatabase::Create();
    if (!database.ok()) throw std::runtime_error("test database: " + database.error().message);
    database_ = std::move(database).value();
    // The application opens its own connections to the same isolated database.
    database_->Close();
    data_dir_ = database_->directory();
    database_url_ = database_->options().url;
  }

  auto outcome = config::LoadConfigText(options.config_yaml, true, data_dir_, "test.yaml");
  if (!outcome.ok()) {
    std::string message = "test config is invalid:";
    for (const auto& issue : outcome.issues) message += "\n  " + config::FormatIssue(issue);
    throw std::runtime_error(message);
  }
  app::ApplicationOptions app_options;
  app_options.settings.port = 0;
  app_options.settings.data_dir = data_dir_.string();
  app_options.settings.database_url = database_url_;
  app_options.settings.log_level = log::Level::kWarn;
  app_options.settings.rate_limit_disabled = true;
  if (options.tune_settings) options.tune_settings(app_options.settings);
  app_options.config = std::move(*outcome.config);
  app_options.extra_routes = std::move(options.extra_routes);
  app_options.tune_server = std::move(options.tune_server);
  app_options.rate_limit_now_ms = std::move(options.rate_limit_now_ms);
  app_options.storage_now_seconds = std::move(options.storage_now_seconds);
  app_options.before_transform = std::move(options.before_transform);
  app_options.analytics_now_ms = std::move(options.analytics_now_ms);
  app_options.attachment_files = options.attachment_files;
  auto started = app::Application::Start(std::move(app_options));
  if (!started.ok()) {
    throw std::runtime_error("application did not start: " + started.error().message + " " +
                             started.error().detail);
  }
  app_ = std::move(started).value();
}

TestApp::~TestApp() {
  if (app_) app_->Shutdown();
}

}  // namespace cairn::test
