#include "app/application.hpp"

#include <filesystem>
#include <system_error>

#include "api/health_api.hpp"
#include "common/log.hpp"
#include "http/middleware.hpp"
#include "http/server.hpp"
#include "schema/migrator.hpp"

namespace cairn::app {

struct Application::Parts {
  ApplicationOptions options;
  std::unique_ptr<db::Database> database;
  std::unique_ptr<http::Server> server;
  bool shut_down = false;
};

namespace {

Result<http::Router> BuildRouter(Application::Parts& parts) {
  http::Router router;
  const config::AppConfig& config = parts.options.config;
  CAIRN_TRY(api::AddHealthRoutes(router, *parts.database, {config.name, config.version}));
  if (parts.options.extra_routes) {
    CAIRN_TRY(parts.options.extra_routes(router, *parts.database));
  }
  return router;
}

}  // namespace

Application::Application(std::unique_ptr<Parts> parts) : parts_(std::move(parts)) {}

Application::~Application() {
  Shutdown();
}

Result<std::unique_ptr<Application>> Application::Start(ApplicationOptions options) {
  auto parts = std::make_unique<Parts>();
  parts->options = std::move(options);
  const Settings& settings = parts->options.settings;
  log::SetLevel(settings.log_level);

  std::error_code fs_error;
  std::filesystem::create_directories(settings.data_dir, fs_error);
  if (fs_error) {
    return Error::Unavailable("cannot create the data directory " + settings.data_dir + ": " +
                              fs_error.message());
  }
  db::DatabaseOptions db_options;
  db_options.url = settings.database_url;
  db_options.sqlite_path = (std::filesystem::path(settings.data_dir) / "cairn.db").string();
  db_options.pool_size = settings.database_pool_size;
  CAIRN_ASSIGN_OR_RETURN(parts->database, db::OpenDatabase(db_options));

  schema::MigrateOptions migrate_options;
  migrate_options.allow_destructive = settings.allow_destructive;
  CAIRN_ASSIGN_OR_RETURN(
      auto report,
      schema::MigrateToConfig(*parts->database, parts->options.config, migrate_options));
  if (!report.statements.empty()) {
    log::Info("migrated the database: " + std::to_string(report.statements.size()) +
              " statement(s)");
  }

  CAIRN_ASSIGN_OR_RETURN(http::Router router, BuildRouter(*parts));
  http::MiddlewareChain middleware{std::make_shared<http::SecurityHeaders>()};
  http::ServerOptions server_options;
  server_options.host = settings.host;
  server_options.port = settings.port;
  server_options.io_threads = settings.io_threads;
  server_options.worker_threads = settings.worker_threads;
  if (parts->options.tune_server) parts->options.tune_server(server_options);
  parts->server = std::make_unique<http::Server>(
      server_options, http::Dispatcher(std::move(router), std::move(middleware)));
  CAIRN_TRY(parts->server->Start());
  return std::make_unique<Application>(std::move(parts));
}

std::uint16_t Application::port() const {
  return parts_->server->port();
}

db::Database& Application::database() {
  return *parts_->database;
}

void Application::Shutdown() {
  if (!parts_ || parts_->shut_down) return;
  parts_->shut_down = true;
  parts_->server->Shutdown();
  parts_->database->Close();
}

}  // namespace cairn::app
