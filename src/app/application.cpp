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
#include "auth/oauth/oauth_store.hpp"
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
  // With an `auth` section: what every version's auth services share (secret, mail queue,
  // counters, the session cache). Null without auth.
  std::unique_ptr<AuthRuntime> auth;
  StorageParts storage;  // with auth (signing needs sessions): the backend every version's uses
  // What the served schema version derives (config, access, the auth, storage and analytics
  // services, records, routes); a publish swaps it. Readers outside a request (jobs, erasure
  // hooks, the realtime session check) load it once per use.
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
  // Rollups and retention of the served version's analytics (D54): with analytics on at start,
  // or whenever a publish may turn it on.
  std::unique_ptr<jobs::Scheduler> analytics_schedule;
  std::unique_ptr<http::Server> server;
  bool shut_down = false;
};

namespace {

// The clock signed URL tokens are dated and checked on (epoch seconds).
std::function<std::int64_t()> StorageNow(const Application::Parts& parts) {
  if (parts.options.storage_now_seconds) return parts.options.storage_now_seconds;
  return [] { return time::NowMillis() / 1000; };
}

// The routes of one schema version; every config-derived object a handler uses lives in
// `snapshot`, the services that outlive versions in `parts`.
Status BuildRouter(Application::Parts& parts, AppSnapshot& snapshot) {
  http::Router& router = snapshot.router;
  const config::AppConfig& config = snapshot.config;
  CAIRN_TRY(api::AddHealthRoutes(router, *parts.liveness, {config.name, config.version}));
  if (snapshot.auth) {
    AuthServices& auth = *snapshot.auth;
    // This version's origin check, session layer and per-user limit.
    router.SetMiddleware(auth.middleware);
    CAIRN_TRY(api::AddAuthRoutes(router, *auth.service, *auth.cookies, auth.two_factor.get()));
    if (auth.two_factor) {
      CAIRN_TRY(
          api::AddTwoFactorRoutes(router, *auth.two_factor, auth.service->codec(), *auth.cookies));
    }
    CAIRN_TRY(api::AddAuthAdminRoutes(router, *auth.service, *auth.cookies));
    CAIRN_TRY(api::AddAuthPasswordlessRoutes(router, *auth.service, *auth.cookies));
    if (auth.oauth) {
      CAIRN_TRY(
          api::AddOAuthRoutes(router, *auth.oauth, *auth.cookies, parts.auth->trusted_origins));
    }
    if (config.auth->organizations) {
      CAIRN_TRY(api::AddOrganizationRoutes(router, *auth.service, parts.auth->mailer));
    }
    // Every route needs a session (D17), which exists only with auth.
    CAIRN_TRY(api::AddTablesRoutes(router, config, snapshot.access));
    const records::AttachmentFiles* files = parts.options.attachment_files
                                                ? parts.options.attachment_files
                                                : snapshot.attachment_files.get();
    snapshot.records = std::make_unique<records::RecordService>(
        *parts.database, config, snapshot.access, files, parts.realtime.get());
    CAIRN_TRY(api::AddRecordRoutes(router, config, *snapshot.records));
    CAIRN_TRY(api::AddRealtimeRoutes(router, config, *snapshot.records, *parts.realtime));
    CAIRN_TRY(api::AddCommentRoutes(router, config, *parts.database, snapshot.access));
    // Admin only, so only with sessions (D50).
    CAIRN_TRY(api::AddActivityRoutes(router, *parts.database));
    // Admin only, so only with sessions (D55).
    CAIRN_TRY(api::AddMcpRoutes(router, config, *auth.service, parts.auth->trusted_origins));
    CAIRN_TRY(api::AddStorageRoutes(router, *snapshot.storage, *parts.database, StorageNow(parts),
                                    parts.storage.transforms.get()));
    // Admin only, so only with sessions (D52): documents every route of this table.
    CAIRN_TRY(api::AddOpenApiRoutes(router, config));
    // Admin only, and only when the operator turns it on (D51).
    if (parts.schema_editor && parts.options.settings.schema_edit_api_enabled) {
      CAIRN_TRY(api::AddSchemaRoutes(router, *parts.schema_editor));
    }
  }
  if (snapshot.analytics) {
    CAIRN_TRY(api::AddAnalyticsRoutes(router, *snapshot.analytics, snapshot.auth != nullptr));
  }
  if (parts.options.extra_routes) {
    CAIRN_TRY(parts.options.extra_routes(router, *parts.database));
  }
  if (parts.options.extra_config_routes) {
    CAIRN_TRY(parts.options.extra_config_routes(router, config));
  }
  return {};
}

// Whether `key` (and the app's name, which auth's two-factor and analytics' visitor hash read)
// is the same in `previous` as in `config`: the services built from it can be shared.
bool Unchanged(const AppSnapshot* previous, const config::AppConfig& config, std::string_view key) {
  if (previous == nullptr || previous->config.name != config.name) return false;
  const auto member = [key](const boost::json::value& document) -> const boost::json::value* {
    return document.is_object() ? document.as_object().if_contains(key) : nullptr;
  };
  const boost::json::value* before = member(previous->config.document);
  const boost::json::value* after = member(config.document);
  if (before == nullptr || after == nullptr) return before == after;
  return *before == *after;
}

// The services one version's `auth`, `buckets` and `analytics` build, or those of `previous`
// where their part of the config did not change.
Status BuildServices(Application::Parts& parts, const AppSnapshot* previous,
                     AppSnapshot& snapshot) {
  const config::AppConfig& config = snapshot.config;
  if (config.auth.has_value() != (parts.auth != nullptr)) {
    // Only a version another node took from its config file gets here (a publish refuses it).
    Error error =
        Error::Validation("This version adds or removes `auth`: restart this node to serve it",
                          {{"auth", "cannot be added or removed while cairn runs"}});
    error.reason = "RESTART_REQUIRED";
    return error;
  }
  if (config.auth) {
    if (Unchanged(previous, config, "auth") && previous->auth) {
      snapshot.auth = previous->auth;
    } else {
      CAIRN_ASSIGN_OR_RETURN(snapshot.auth,
                             BuildAuthServices(parts.options.settings, *parts.database, *parts.auth,
                                               *config.auth, config.name));
    }
    snapshot.storage = BuildStorageService(parts.options.settings, config, parts.storage);
    snapshot.attachment_files = std::make_unique<StorageAttachmentFiles>(
        *snapshot.storage, StorageNow(parts), parts.storage.transforms.get());
  }
  if (config.analytics) {
    if (Unchanged(previous, config, "analytics") && previous->analytics) {
      snapshot.analytics = previous->analytics;
    } else {
      CAIRN_ASSIGN_OR_RETURN(
          snapshot.analytics,
          BuildAnalyticsService(*parts.database, config, parts.options.analytics_now_ms));
    }
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
  const std::shared_ptr<const AppSnapshot> previous = parts.snapshot.load();
  CAIRN_TRY(BuildServices(parts, previous.get(), *snapshot));
  CAIRN_TRY(BuildRouter(parts, *snapshot));
  return snapshot;
}

// What a publish checks and migrates for the services (schema_edit::ServiceHooks).
schema_edit::ServiceHooks ServiceHooksOf(Application::Parts& parts) {
  schema_edit::ServiceHooks hooks;
  hooks.check = [&parts](const config::AppConfig& config) -> Status {
    if (!config.auth) return {};
    return CheckAuthServices(parts.options.settings, *config.auth);
  };
  hooks.migrate = [](db::Connection& connection, const config::AppConfig& config) -> Status {
    if (config.auth) CAIRN_TRY(CreateAuthTables(connection, *config.auth));
    if (config.analytics) CAIRN_TRY(analytics::CreateAnalyticsSchema(connection));
    return {};
  };
  return hooks;
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
  server_options.long_query_threads = settings.long_query_threads;
  server_options.max_connections = settings.max_connections;
  if (parts->options.tune_server) parts->options.tune_server(server_options);
  parts->server = std::make_unique<http::Server>(server_options);
  CAIRN_TRY(parts->server->Listen());
  Settings& bound = parts->options.settings;
  if (!bound.base_url_explicit) {
    // Links in mail and the trusted origin name the port actually bound (PORT=0 in tests).
    bound.base_url = "http://" + bound.host + ":" + std::to_string(parts->server->port());
  }

  // Middleware order (http/middleware.hpp): rate limit, then (with auth) the served version's
  // layers from its route table (origin check, session, the per-user limit), security headers.
  http::MiddlewareChain middleware;
  CAIRN_ASSIGN_OR_RETURN(auto rate_limit, MakeRateLimitLayer(bound, *parts->database,
                                                             parts->options.rate_limit_now_ms));
  middleware.push_back(std::move(rate_limit));
  middleware.push_back(std::make_shared<http::SecurityHeaders>());
  // The services are built from the served version (`start.config`), which a publish may have
  // made differ from the file.
  if (start.config.auth) {
    Application::Parts& live = *parts;
    CAIRN_ASSIGN_OR_RETURN(
        parts->auth,
        SetUpAuthRuntime(bound, *parts->database,
                         AccountErasureHooks([&live]() -> std::shared_ptr<const config::AppConfig> {
                           std::shared_ptr<const AppSnapshot> snapshot = live.snapshot.load();
                           return {snapshot, &snapshot->config};
                         }),
                         parts->options.rate_limit_now_ms));
    if (start.config.auth->HasStrategy("oauth")) {
      CAIRN_TRY(auth::oauth::EnsureOAuthSchema(*parts->database));
    }
    CAIRN_ASSIGN_OR_RETURN(parts->storage,
                           SetUpStorage(bound, *parts->database, parts->auth->secret,
                                        parts->options.before_transform));
  }
  if (start.config.analytics) CAIRN_TRY(analytics::EnsureAnalyticsSchema(*parts->database));
  parts->liveness = std::make_unique<api::DatabaseLiveness>(*parts->database);
  if (start.version > 0) {
    parts->schema_editor = std::make_unique<schema_edit::SchemaEditor>(
        *parts->database, SnapshotPreparer(*parts), start.config, start.version,
        parts->options.config.document);
    parts->schema_editor->SetServiceHooks(ServiceHooksOf(*parts));
  }
  if (parts->auth) {
    Application::Parts& live = *parts;
    // The served version's service answers (the session check reads no config).
    parts->realtime = std::make_unique<realtime::Hub>(
        [&live](std::string_view token) -> Result<std::optional<std::string>> {
          const std::shared_ptr<const AppSnapshot> snapshot = live.snapshot.load();
          CAIRN_ASSIGN_OR_RETURN(auto resolved, snapshot->auth->service->Resolve(token));
          if (!resolved) return std::optional<std::string>();
          return std::optional<std::string>(resolved->caller.user.role);
        });
  }
  CAIRN_ASSIGN_OR_RETURN(std::shared_ptr<AppSnapshot> first,
                         BuildSnapshot(*parts, std::move(start.config), start.version));
  std::shared_ptr<const AppSnapshot> serving = std::move(first);
  parts->snapshot.store(serving);
  ServeChangesFrom(*parts, serving);
  if (serving->auth) {
    auth::AuthService& auth = *serving->auth->service;
    CAIRN_TRY(EnsureFirstAdmin(bound, auth));
    if (Status purged = auth.PurgeExpired(); !purged.ok()) {
      log::Warn("cannot purge expired sessions: " + purged.error().detail);
    }
  }
  if (parts->realtime) {
    if (db::NotificationChannel* channel = parts->database->notifications()) {
      CAIRN_TRY(parts->realtime->UseChannel(*channel));  // other nodes on this database
    }
  }
  CAIRN_TRY(parts->server->Start(http::Dispatcher(RouterOf(serving), std::move(middleware))));
  if (parts->schema_editor && parts->database->dialect().shared_server()) {
    parts->schema_follower = std::make_unique<SchemaFollower>(*parts->schema_editor);
  }
  if (parts->auth) {
    Application::Parts& live = *parts;
    parts->purge = std::make_unique<jobs::PurgeJob>(
        *parts->database,
        [&live] {
          std::shared_ptr<const AppSnapshot> snapshot = live.snapshot.load();
          return jobs::PurgeTables{snapshot, snapshot->records.get(), &snapshot->config,
                                   snapshot->auth->service.get()};
        },
        bound.eco_retention_purge_days);
    parts->purge_schedule = StartPurgeSchedule(*parts->purge);
  }
  // Retention runs whenever analytics is on, with or without auth; with versions, a publish may
  // turn it on, so the job runs and finds the served version's service (or none) at each turn.
  if (serving->analytics || parts->schema_editor) {
    Application::Parts& live = *parts;
    parts->analytics_schedule =
        StartAnalyticsSchedule([&live]() -> std::shared_ptr<analytics::AnalyticsService> {
          return live.snapshot.load()->analytics;
        });
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
  const std::shared_ptr<const AppSnapshot> snapshot = parts_->snapshot.load();
  if (snapshot && snapshot->auth) snapshot->auth->service->WaitForBackgroundWork();
}

Result<jobs::PurgeReport> Application::RunPurgeJob(std::int64_t now_ms) {
  if (!parts_->purge) return Error::NotFound("the purge job runs with an auth section only");
  return parts_->purge->Run(now_ms);
}

Result<analytics::MaintenanceReport> Application::RunAnalyticsJob(std::int64_t now_ms) {
  const std::shared_ptr<const AppSnapshot> snapshot = parts_->snapshot.load();
  if (!snapshot->analytics) return Error::NotFound("analytics is off");
  return snapshot->analytics->RunMaintenance(now_ms);
}

void Application::Shutdown() {
  if (!parts_ || parts_->shut_down) return;
  parts_->shut_down = true;
  if (parts_->purge_schedule) parts_->purge_schedule->Stop();  // a run in progress finishes
  if (parts_->schema_follower) parts_->schema_follower->Stop();
  if (parts_->analytics_schedule) parts_->analytics_schedule->Stop();
  if (parts_->realtime) parts_->realtime->Shutdown();  // subscribers get 1001
  parts_->server->Shutdown();
  // Every acknowledged page view is written before the database closes (a replaced version's
  // service wrote its own when its last request ended).
  if (const auto snapshot = parts_->snapshot.load(); snapshot && snapshot->analytics) {
    snapshot->analytics->Shutdown();
  }
  if (parts_->liveness) parts_->liveness->Stop();
  WaitForBackgroundWork();  // queued mail still needs the database
  // Mail waiting for a retry stays in the queue for the next start.
  if (parts_->auth) parts_->auth->mail_queue->Stop();
  parts_->database->Close();
}

}  // namespace cairn::app
