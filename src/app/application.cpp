#include "app/application.hpp"

#include <atomic>
#include <filesystem>
#include <system_error>
#include <thread>

#include "access/access_index.hpp"
#include "activity/activity_schema.hpp"
#include "analytics/analytics_schema.hpp"
#include "api/activity_api.hpp"
#include "api/analytics_api.hpp"
#include "api/auth_routes.hpp"
#include "api/comments_api.hpp"
#include "api/health_api.hpp"
#include "api/mcp_api.hpp"
#include "api/openapi_api.hpp"
#include "api/origin_check.hpp"
#include "api/realtime_api.hpp"
#include "api/records_api.hpp"
#include "api/schema_api.hpp"
#include "api/storage_api.hpp"
#include "api/tables_api.hpp"
#include "api/two_factor_api.hpp"
#include "app/analytics_setup.hpp"
#include "app/app_snapshot.hpp"
#include "app/attachment_storage.hpp"
#include "app/auth_setup.hpp"
#include "app/purge_setup.hpp"
#include "app/schema_follower.hpp"
#include "app/storage_setup.hpp"
#include "common/log.hpp"
#include "common/time.hpp"
#include "http/middleware.hpp"
#include "http/server.hpp"
#include "records/comment_schema.hpp"
#include "records/search_index.hpp"
#include "schema/migrator.hpp"
#include "schema_edit/schema_editor.hpp"
#include "schema_edit/startup_version.hpp"
#include "schema_edit/version_store.hpp"

namespace cairn::app {

struct Application::Parts {
  ApplicationOptions options;
  std::unique_ptr<db::Database> database;
  std::unique_ptr<api::DatabaseLiveness> liveness;  // what GET /api/health reports
  AuthParts auth;                                   // empty when the config has no `auth` section
  StorageParts storage;                             // with auth: signing needs sessions
  std::unique_ptr<StorageAttachmentFiles> attachment_files;  // attachments over `storage`
  // What the served schema version derives (config, access, records, routes); a publish swaps
  // it. Readers outside a request (jobs, erasure hooks) load it once per use.
  std::atomic<std::shared_ptr<const AppSnapshot>> snapshot;
  // Versions, the draft, publishing (D51); null when the config came without its document.
  std::unique_ptr<schema_edit::SchemaEditor> schema_editor;
  std::unique_ptr<SchemaFollower> schema_follower;  // PostgreSQL: versions other nodes publish
  // Realtime subscriptions (D53): the change sink of every version's records service. Owned
  // here, so it outlives a service rebuilt for a new schema; it reads through the served
  // snapshot (SetRecords at each swap), and is declared before the server (connections hold its
  // slots).
  std::unique_ptr<realtime::Hub> realtime;
  std::unique_ptr<jobs::PurgeJob> purge;  // with auth: erasure and retention (D19a)
  std::unique_ptr<jobs::Scheduler> purge_schedule;
  std::unique_ptr<analytics::AnalyticsService> analytics;  // with a truthy `analytics` (D54)
  std::unique_ptr<jobs::Scheduler> analytics_schedule;     // its rollups and retention
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

// The routes of one schema version; every config-derived object a handler uses lives in
// `snapshot`, the services that outlive versions in `parts`.
Status BuildRouter(Application::Parts& parts, AppSnapshot& snapshot) {
  http::Router& router = snapshot.router;
  const config::AppConfig& config = snapshot.config;
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
    CAIRN_TRY(api::AddTablesRoutes(router, config, snapshot.access));
    std::function<std::int64_t()> storage_now = parts.options.storage_now_seconds;
    if (!storage_now) storage_now = [] { return time::NowMillis() / 1000; };
    const records::AttachmentFiles* files = parts.options.attachment_files
                                                ? parts.options.attachment_files
                                                : parts.attachment_files.get();
    snapshot.records = std::make_unique<records::RecordService>(
        *parts.database, config, snapshot.access, files, parts.realtime.get());
    CAIRN_TRY(api::AddRecordRoutes(router, config, *snapshot.records));
    CAIRN_TRY(api::AddRealtimeRoutes(router, config, *snapshot.records, *parts.realtime));
    CAIRN_TRY(api::AddCommentRoutes(router, config, *parts.database, snapshot.access));
    // Admin only, so only with sessions (D50).
    CAIRN_TRY(api::AddActivityRoutes(router, *parts.database));
    // Admin only, so only with sessions (D55).
    CAIRN_TRY(api::AddMcpRoutes(router, config, *parts.auth.service,
                                TrustedOrigins(parts.options.settings)));
    CAIRN_TRY(api::AddStorageRoutes(router, *parts.storage.service, *parts.database,
                                    std::move(storage_now), parts.storage.transforms.get()));
    // Admin only, so only with sessions (D52): documents every route of this table.
    CAIRN_TRY(api::AddOpenApiRoutes(router, config));
    // Admin only, and only when the operator turns it on (D51).
    if (parts.schema_editor && parts.options.settings.schema_edit_api_enabled) {
      CAIRN_TRY(api::AddSchemaRoutes(router, *parts.schema_editor));
    }
  }
  if (parts.analytics) {
    CAIRN_TRY(api::AddAnalyticsRoutes(router, *parts.analytics, parts.auth.service != nullptr));
  }
  if (parts.options.extra_routes) {
    CAIRN_TRY(parts.options.extra_routes(router, *parts.database));
  }
  if (parts.options.extra_config_routes) {
    CAIRN_TRY(parts.options.extra_config_routes(router, config));
  }
  return {};
}

// Everything derived from `config`, built in one place (the only function that reads a config
// for serving).
Result<std::shared_ptr<AppSnapshot>> BuildSnapshot(Application::Parts& parts,
                                                   config::AppConfig config, std::int64_t version) {
  auto snapshot = std::make_shared<AppSnapshot>();
  snapshot->version = version;
  snapshot->config = std::move(config);
  snapshot->access = access::AccessIndex::Build(snapshot->config);
  CAIRN_TRY(BuildRouter(parts, *snapshot));
  return snapshot;
}

// Realtime changes are read through the served version from now on (the hub keeps it alive
// while a change is being read).
void ServeChangesFrom(Application::Parts& parts, const std::shared_ptr<const AppSnapshot>& live) {
  if (!parts.realtime || !live->records) return;
  parts.realtime->SetRecords(live, live->records.get(), &live->config);
}

// The router keeps its whole snapshot alive (aliasing constructor).
std::shared_ptr<const http::Router> RouterOf(const std::shared_ptr<const AppSnapshot>& snapshot) {
  return {snapshot, &snapshot->router};
}

// How the schema editor builds a version's snapshot and puts it live.
schema_edit::Prepare SnapshotPreparer(Application::Parts& parts) {
  return [&parts](config::AppConfig config) -> Result<schema_edit::Activate> {
    CAIRN_ASSIGN_OR_RETURN(std::shared_ptr<AppSnapshot> snapshot,
                           BuildSnapshot(parts, std::move(config), 0));
    return schema_edit::Activate([&parts, snapshot](std::int64_t version, bool leader) -> Status {
      snapshot->version = version;
      // The node that migrated brings the `q` indexes in line (the others find them so).
      if (leader) CAIRN_TRY(records::EnsureSearchIndexes(*parts.database, snapshot->config));
      std::shared_ptr<const AppSnapshot> live = snapshot;
      parts.snapshot.store(live);
      parts.server->SwapRouter(RouterOf(live));
      ServeChangesFrom(parts, live);
      return {};
    });
  };
}

// Brings the database to the served version and says which it is (D51 when the config came
// with its document; otherwise the config as given, without versions).
Result<schema_edit::StartupVersion> MigrateAtStartup(Application::Parts& parts) {
  db::Database& database = *parts.database;
  schema::MigrateOptions migrate_options;
  migrate_options.allow_destructive = parts.options.settings.allow_destructive;
  if (!parts.options.config.document.is_null()) {
    CAIRN_TRY(schema_edit::EnsureVersionSchema(database));
    return schema_edit::StartVersions(database, parts.options.config, migrate_options);
  }
  schema_edit::StartupVersion start;
  start.config = parts.options.config;
  CAIRN_TRY(database.Transaction(db::Access::kSchema, [&](db::Connection& connection) -> Status {
    CAIRN_ASSIGN_OR_RETURN(const schema::SchemaModel model, schema::BuildSchemaModel(start.config));
    CAIRN_ASSIGN_OR_RETURN(start.migration, schema::Migrate(connection, model, migrate_options));
    return schema_edit::RecordMigrationEvent(connection, start.migration, 0);
  }));
  return start;
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

  // Before the migration: the migration writes its activity entry (D50). Record changes are
  // logged with or without auth.
  CAIRN_TRY(activity::EnsureActivitySchema(*parts->database));
  CAIRN_ASSIGN_OR_RETURN(schema_edit::StartupVersion start, MigrateAtStartup(*parts));
  if (start.migration.changed()) {
    log::Info("migrated the database: " + std::to_string(start.migration.statements.size()) +
              " statement(s)");
  }
  if (start.version > 0) log::Info("serving schema version " + std::to_string(start.version));
  // Also without auth: a record's permanent delete removes its comments.
  CAIRN_TRY(records::EnsureCommentSchema(*parts->database));
  CAIRN_TRY(records::EnsureSearchIndexes(*parts->database, start.config));

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

  // Middleware order (http/middleware.hpp): rate limit, origin check, session and the per-user
  // limit (with auth), security headers.
  http::MiddlewareChain middleware;
  CAIRN_ASSIGN_OR_RETURN(auto rate_limit, MakeRateLimitLayer(bound, *parts->database,
                                                             parts->options.rate_limit_now_ms));
  middleware.push_back(std::move(rate_limit));
  if (parts->options.config.auth) {
    Application::Parts& live = *parts;
    CAIRN_ASSIGN_OR_RETURN(
        parts->auth,
        SetUpAuth(bound, *parts->options.config.auth, *parts->database,
                  AccountErasureHooks([&live]() -> std::shared_ptr<const config::AppConfig> {
                    std::shared_ptr<const AppSnapshot> snapshot = live.snapshot.load();
                    return {snapshot, &snapshot->config};
                  })));
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
    middleware.push_back(MakeUserRateLimitLayer(bound, parts->options.rate_limit_now_ms));
  }
  middleware.push_back(std::make_shared<http::SecurityHeaders>());
  if (parts->options.config.analytics) {
    CAIRN_ASSIGN_OR_RETURN(parts->analytics, SetUpAnalytics(*parts->database, parts->options.config,
                                                            parts->options.analytics_now_ms));
  }
  parts->liveness = std::make_unique<api::DatabaseLiveness>(*parts->database);
  if (parts->storage.service) {
    std::function<std::int64_t()> storage_now = parts->options.storage_now_seconds;
    if (!storage_now) storage_now = [] { return time::NowMillis() / 1000; };
    parts->attachment_files = std::make_unique<StorageAttachmentFiles>(
        *parts->storage.service, std::move(storage_now), parts->storage.transforms.get());
  }
  if (start.version > 0) {
    parts->schema_editor = std::make_unique<schema_edit::SchemaEditor>(
        *parts->database, SnapshotPreparer(*parts), start.config, start.version,
        parts->options.config.document);
  }
  if (parts->auth.service) {
    auth::AuthService& auth = *parts->auth.service;
    parts->realtime = std::make_unique<realtime::Hub>(
        [&auth](std::string_view token) -> Result<std::optional<std::string>> {
          CAIRN_ASSIGN_OR_RETURN(auto resolved, auth.Resolve(token));
          if (!resolved) return std::optional<std::string>();
          return std::optional<std::string>(resolved->caller.user.role);
        });
  }
  CAIRN_ASSIGN_OR_RETURN(std::shared_ptr<AppSnapshot> first,
                         BuildSnapshot(*parts, std::move(start.config), start.version));
  std::shared_ptr<const AppSnapshot> serving = std::move(first);
  parts->snapshot.store(serving);
  ServeChangesFrom(*parts, serving);
  if (parts->realtime) {
    if (db::NotificationChannel* channel = parts->database->notifications()) {
      CAIRN_TRY(parts->realtime->UseChannel(*channel));  // other nodes on this database
    }
  }
  CAIRN_TRY(parts->server->Start(http::Dispatcher(RouterOf(serving), std::move(middleware))));
  if (parts->schema_editor && parts->database->dialect().shared_server()) {
    parts->schema_follower = std::make_unique<SchemaFollower>(*parts->schema_editor);
  }
  if (parts->auth.service) {
    Application::Parts& live = *parts;
    parts->purge = std::make_unique<jobs::PurgeJob>(
        *parts->database, *parts->auth.service,
        [&live] {
          std::shared_ptr<const AppSnapshot> snapshot = live.snapshot.load();
          return jobs::PurgeTables{snapshot, snapshot->records.get(), &snapshot->config};
        },
        bound.eco_retention_purge_days);
    parts->purge_schedule = StartPurgeSchedule(*parts->purge);
  }
  // Retention runs whenever analytics is on, with or without auth.
  if (parts->analytics) parts->analytics_schedule = StartAnalyticsSchedule(*parts->analytics);
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

Result<analytics::MaintenanceReport> Application::RunAnalyticsJob(std::int64_t now_ms) {
  if (!parts_->analytics) return Error::NotFound("analytics is off");
  return parts_->analytics->RunMaintenance(now_ms);
}

void Application::Shutdown() {
  if (!parts_ || parts_->shut_down) return;
  parts_->shut_down = true;
  if (parts_->purge_schedule) parts_->purge_schedule->Stop();  // a run in progress finishes
  if (parts_->schema_follower) parts_->schema_follower->Stop();
  if (parts_->analytics_schedule) parts_->analytics_schedule->Stop();
  if (parts_->realtime) parts_->realtime->Shutdown();  // subscribers get 1001
  parts_->server->Shutdown();
  // Every acknowledged page view is written before the database closes.
  if (parts_->analytics) parts_->analytics->Shutdown();
  if (parts_->liveness) parts_->liveness->Stop();
  WaitForBackgroundWork();  // queued mail still needs the database
  // Mail waiting for a retry stays in the queue for the next start.
  if (parts_->auth.mail_queue) parts_->auth.mail_queue->Stop();
  parts_->database->Close();
}

}  // namespace cairn::app
