#include "app/application.hpp"

#include <filesystem>
#include <system_error>
#include <thread>

#include "access/access_index.hpp"
#include "activity/activity_schema.hpp"
#include "api/activity_api.hpp"
#include "api/auth_routes.hpp"
#include "api/comments_api.hpp"
#include "api/health_api.hpp"
#include "api/origin_check.hpp"
#include "api/realtime_api.hpp"
#include "api/records_api.hpp"
#include "api/storage_api.hpp"
#include "api/tables_api.hpp"
#include "api/two_factor_api.hpp"
#include "app/attachment_storage.hpp"
#include "app/auth_setup.hpp"
#include "app/purge_setup.hpp"
#include "app/storage_setup.hpp"
#include "common/log.hpp"
#include "common/time.hpp"
#include "http/middleware.hpp"
#include "http/server.hpp"
#include "records/comment_schema.hpp"
#include "records/search_index.hpp"
#include "schema/migrator.hpp"

namespace cairn::app {

struct Application::Parts {
  ApplicationOptions options;
  std::unique_ptr<db::Database> database;
  std::unique_ptr<api::DatabaseLiveness> liveness;  // what GET /api/health reports
  AuthParts auth;                                   // empty when the config has no `auth` section
  StorageParts storage;                             // with auth: signing needs sessions
  std::unique_ptr<StorageAttachmentFiles> attachment_files;  // attachments over `storage`
  // Every (table, role) permission answer, precomputed from options.config for the routes.
  access::AccessIndex access;
  std::unique_ptr<records::RecordService> records;
  // Realtime subscriptions (D53): the records service's change sink. Owned here, not by the
  // service, so it outlives a service rebuilt for a new schema; after the service (its thread
  // reads through it), before the server (connections hold its slots).
  std::unique_ptr<realtime::Hub> realtime;
  std::unique_ptr<jobs::PurgeJob> purge;  // with auth: erasure and retention (D19a)
  std::unique_ptr<jobs::Scheduler> purge_schedule;
  std::unique_ptr<http::Server> server;
  bool shut_down = false;
};

namespace {

// BASE_URL's origin and TRUSTED_ORIGINS: where cookie-authenticated writes may come from and
// where OAuth sign-in may return to.
std::vector<std::string> TrustedOrigins(const Settings& settings) {
  std::vector<std::string> origins{api::OriginOf(settings.base_url)};
  for (const auto& origin : settings.trusted_origins) origins.push_back(api::OriginOf(origin));
  return origins;
}

Result<http::Router> BuildRouter(Application::Parts& parts) {
  http::Router router;
  const config::AppConfig& config = parts.options.config;
  parts.access = access::AccessIndex::Build(config);
  parts.liveness = std::make_unique<api::DatabaseLiveness>(*parts.database);
  CAIRN_TRY(api::AddHealthRoutes(router, *parts.liveness, {config.name, config.version}));
  if (parts.auth.service) {
    CAIRN_TRY(api::AddAuthRoutes(router, *parts.auth.service, *parts.auth.cookies,
                                 parts.auth.two_factor.get()));
    if (parts.auth.two_factor) {
      CAIRN_TRY(api::AddTwoFactorRoutes(router, *parts.auth.two_factor, parts.auth.service->codec(),
                                        *parts.auth.cookies));
    }
    CAIRN_TRY(api::AddAuthAdminRoutes(router, *parts.auth.service, *parts.auth.cookies));
    CAIRN_TRY(api::AddAuthPasswordlessRoutes(router, *parts.auth.service, *parts.auth.cookies));
    if (parts.auth.oauth) {
      CAIRN_TRY(api::AddOAuthRoutes(router, *parts.auth.oauth, *parts.auth.cookies,
                                    TrustedOrigins(parts.options.settings)));
    }
    if (config.auth->organizations) {
      CAIRN_TRY(api::AddOrganizationRoutes(router, *parts.auth.service, parts.auth.mailer));
    }
    // Every route needs a session (D17), which exists only with auth.
    CAIRN_TRY(api::AddTablesRoutes(router, config, parts.access));
    std::function<std::int64_t()> storage_now = parts.options.storage_now_seconds;
    if (!storage_now) storage_now = [] { return time::NowMillis() / 1000; };
    parts.attachment_files = std::make_unique<StorageAttachmentFiles>(
        *parts.storage.service, storage_now, parts.storage.transforms.get());
    const records::AttachmentFiles* files = parts.options.attachment_files
                                                ? parts.options.attachment_files
                                                : parts.attachment_files.get();
    auth::AuthService& auth = *parts.auth.service;
    parts.realtime = std::make_unique<realtime::Hub>(
        [&auth](std::string_view token) -> Result<std::optional<std::string>> {
          CAIRN_ASSIGN_OR_RETURN(auto resolved, auth.Resolve(token));
          if (!resolved) return std::optional<std::string>();
          return std::optional<std::string>(resolved->caller.user.role);
        });
    parts.records = std::make_unique<records::RecordService>(*parts.database, config, parts.access,
                                                             files, parts.realtime.get());
    parts.realtime->SetRecords(parts.records.get(), &config);
    if (db::NotificationChannel* channel = parts.database->notifications()) {
      CAIRN_TRY(parts.realtime->UseChannel(*channel));  // other nodes on this database
    }
    CAIRN_TRY(api::AddRecordRoutes(router, config, *parts.records));
    CAIRN_TRY(api::AddRealtimeRoutes(router, config, *parts.records, *parts.realtime));
    CAIRN_TRY(api::AddCommentRoutes(router, config, *parts.database, parts.access));
    // Admin only, so only with sessions (D50).
    CAIRN_TRY(api::AddActivityRoutes(router, *parts.database));
    CAIRN_TRY(api::AddStorageRoutes(router, *parts.storage.service, *parts.database,
                                    std::move(storage_now), parts.storage.transforms.get()));
  }
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
  db_options.postgres = settings.database_postgres;
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
  // With or without auth: record changes are logged too.
  CAIRN_TRY(activity::EnsureActivitySchema(*parts->database));
  // Also without auth: a record's permanent delete removes its comments.
  CAIRN_TRY(records::EnsureCommentSchema(*parts->database));
  CAIRN_TRY(records::EnsureSearchIndexes(*parts->database, parts->options.config));

  http::ServerOptions server_options;
  server_options.host = settings.host;
  server_options.port = settings.port;
  server_options.io_threads = IoThreads(settings, std::thread::hardware_concurrency());
  server_options.worker_threads = WorkerThreads(
      settings, parts->database->dialect().shared_server(), std::thread::hardware_concurrency());
  server_options.max_connections = settings.max_connections;
  if (parts->options.tune_server) parts->options.tune_server(server_options);
  parts->server = std::make_unique<http::Server>(server_options);
  CAIRN_TRY(parts->server->Listen());
  Settings& bound = parts->options.settings;
  if (!bound.base_url_explicit) {
    // Links in mail and the trusted origin name the port actually bound (PORT=0 in tests).
    bound.base_url = "http://" + bound.host + ":" + std::to_string(parts->server->port());
  }

  // Middleware order (http/middleware.hpp): rate limit, origin check and session (with auth),
  // security headers.
  http::MiddlewareChain middleware;
  CAIRN_ASSIGN_OR_RETURN(auto rate_limit, MakeRateLimitLayer(bound, *parts->database,
                                                             parts->options.rate_limit_now_ms));
  middleware.push_back(std::move(rate_limit));
  if (parts->options.config.auth) {
    CAIRN_ASSIGN_OR_RETURN(parts->auth,
                           SetUpAuth(bound, *parts->options.config.auth, *parts->database,
                                     AccountErasureHooks(parts->options.config)));
    if (parts->options.config.auth->two_factor) {
      CAIRN_TRY(SetUpTwoFactor(bound, *parts->database, parts->options.config.name, parts->auth));
    }
    CAIRN_TRY(EnsureFirstAdmin(bound, *parts->auth.service));
    CAIRN_ASSIGN_OR_RETURN(
        parts->storage,
        SetUpStorage(bound, parts->options.config, *parts->database,
                     parts->auth.service->options().secret, parts->options.before_transform));
    std::vector<std::string> sign_in_paths = api::PasswordSignInPaths(*parts->options.config.auth);
    for (std::string& path : api::PasswordlessSignInPaths(*parts->options.config.auth)) {
      sign_in_paths.push_back(std::move(path));
    }
    for (std::string& path : api::OAuthSignInPaths(*parts->options.config.auth)) {
      sign_in_paths.push_back(std::move(path));
    }
    middleware.push_back(
        std::make_shared<api::OriginCheck>(TrustedOrigins(bound), std::move(sign_in_paths)));
    middleware.push_back(
        std::make_shared<api::SessionLayer>(*parts->auth.service, *parts->auth.cookies));
  }
  middleware.push_back(std::make_shared<http::SecurityHeaders>());
  CAIRN_ASSIGN_OR_RETURN(http::Router router, BuildRouter(*parts));
  CAIRN_TRY(parts->server->Start(http::Dispatcher(std::move(router), std::move(middleware))));
  if (parts->auth.service) {
    parts->purge = std::make_unique<jobs::PurgeJob>(*parts->database, *parts->auth.service,
                                                    parts->records.get(), parts->options.config,
                                                    bound.eco_retention_purge_days);
    parts->purge_schedule = StartPurgeSchedule(*parts->purge);
  }
  return std::make_unique<Application>(std::move(parts));
}

std::uint16_t Application::port() const {
  return parts_->server->port();
}

db::Database& Application::database() {
  return *parts_->database;
}

void Application::WaitForBackgroundWork() {
  if (parts_->auth.service) parts_->auth.service->WaitForBackgroundWork();
}

Result<jobs::PurgeReport> Application::RunPurgeJob(std::int64_t now_ms) {
  if (!parts_->purge) return Error::NotFound("the purge job runs with an auth section only");
  return parts_->purge->Run(now_ms);
}

void Application::Shutdown() {
  if (!parts_ || parts_->shut_down) return;
  parts_->shut_down = true;
  if (parts_->purge_schedule) parts_->purge_schedule->Stop();  // a run in progress finishes
  if (parts_->realtime) parts_->realtime->Shutdown();          // subscribers get 1001
  parts_->server->Shutdown();
  if (parts_->liveness) parts_->liveness->Stop();
  WaitForBackgroundWork();  // queued mail still needs the database
  parts_->database->Close();
}

}  // namespace cairn::app
