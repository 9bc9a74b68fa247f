#include "app/admin_commands.hpp"

#include <filesystem>
#include <iostream>

#include "access/access_index.hpp"
#include "app/purge_setup.hpp"
#include "app/serve.hpp"
#include "auth/auth_schema.hpp"
#include "auth/auth_service.hpp"
#include "common/crypto.hpp"
#include "common/time.hpp"
#include "config/loader.hpp"
#include "db/database.hpp"
#include "mail/mailer.hpp"
#include "records/comment_schema.hpp"
#include "records/record_service.hpp"
#include "schema/migrator.hpp"
#include "schema_edit/startup_version.hpp"

namespace cairn::app {
namespace {

// Mail is never sent by this command; the service still needs a mailer.
class NoMail final : public mail::Mailer {
 public:
  Status Send(const mail::Message&) override {
    return Error::Unavailable("mail is not sent from the command line");
  }
  std::string_view Kind() const override { return "none"; }
};

void PrintError(const Error& error) {
  std::cerr << "cairn: " << error.message;
  for (const auto& field : error.errors)
    std::cerr << "\n  " << field.field << ": " << field.message;
  std::cerr << "\n";
}

}  // namespace

int AdminCreate(const std::string& email, const Flags& flags) {
  auto settings = LoadSettings(flags, ProcessEnvironment());
  if (!settings.ok()) {
    std::cerr << settings.error().message << "\n";
    return kExitInvalid;
  }
  std::string password;
  if (auto it = flags.find("password"); it != flags.end()) {
    password = it->second;
  } else if (auto env = ProcessEnvironment()("AUTH_ADMIN_PASSWORD")) {
    password = *env;
  }
  if (password.empty()) {
    std::cerr << "cairn: admin create needs --password or AUTH_ADMIN_PASSWORD\n";
    return kExitUsage;
  }
  std::string name = "Admin";
  if (auto it = flags.find("name"); it != flags.end()) name = it->second;

  std::error_code fs_error;
  std::filesystem::create_directories(settings->data_dir, fs_error);
  db::DatabaseOptions db_options;
  db_options.url = settings->database_url;
  db_options.sqlite_path = (std::filesystem::path(settings->data_dir) / "cairn.db").string();
  auto database = db::OpenDatabase(db_options);
  if (!database.ok()) {
    PrintError(database.error());
    return kExitInvalid;
  }
  if (Status schema = auth::EnsureAuthSchema(**database); !schema.ok()) {
    PrintError(schema.error());
    return kExitInvalid;
  }
  // The secret only signs cookies, which this command never issues.
  auth::AuthService service(**database, {config::AuthConfig{}, "unused-by-admin-create", ""},
                            std::make_shared<NoMail>());
  auto created = service.EnsureAdmin(email, password, name);
  (*database)->Close();
  if (!created.ok()) {
    PrintError(created.error());
    return kExitInvalid;
  }
  std::cout << (*created ? "created admin " : "a user with this email already exists: ")
            << auth::NormalizeEmail(email) << "\n";
  return kExitOk;
}

int AdminPurgeDue(const std::string& config_path, const Flags& flags) {
  auto settings = LoadSettings(flags, ProcessEnvironment());
  if (!settings.ok()) {
    std::cerr << settings.error().message << "\n";
    return kExitInvalid;
  }
  config::LoadOutcome outcome = config::LoadConfigFile(config_path);
  if (!outcome.config) {
    PrintIssues(outcome.issues);
    return kExitInvalid;
  }
  db::DatabaseOptions db_options;
  db_options.url = settings->database_url;
  db_options.sqlite_path = (std::filesystem::path(settings->data_dir) / "cairn.db").string();
  db_options.postgres = settings->database_postgres;
  auto database = db::OpenDatabase(db_options);
  if (!database.ok()) {
    PrintError(database.error());
    return kExitInvalid;
  }
  // The tables are as the active schema version describes them (D51: a publish may have
  // changed them since the file was written); the file only before a first start.
  auto active = schema_edit::ReadActiveConfig(**database);
  if (!active.ok()) {
    PrintError(active.error());
    (*database)->Close();
    return kExitInvalid;
  }
  const config::AppConfig& config = *active ? **active : *outcome.config;
  if (!config.auth) {
    std::cerr << "cairn: purge-due needs a config with an auth section (accounts and the trash "
                 "exist only with one)\n";
    (*database)->Close();
    return kExitInvalid;
  }
  db::Database& db = **database;
  Status ready = [&]() -> Status {
    // The records code reads the tables as the config describes them: they must match (removals
    // kept until prune are not a difference).
    CAIRN_ASSIGN_OR_RETURN(auto plan, schema::MigrateToConfig(db, config, {false, true}));
    if (plan.changed()) {
      return Error::Validation(
          "the database is not migrated to this config: run `cairn serve` "
          "with it first");
    }
    CAIRN_TRY(auth::EnsureAuthSchema(db));
    return records::EnsureCommentSchema(db);
  }();
  if (!ready.ok()) {
    PrintError(ready.error());
    db.Close();
    return kExitInvalid;
  }
  auth::AuthOptions options{*config.auth, "unused-by-purge-due", settings->base_url,
                            AccountErasureHooks(config)};
  options.deletion_grace_millis =
      static_cast<std::int64_t>(settings->account_deletion_grace_days) * auth::kMillisPerDay;
  auth::AuthService service(db, std::move(options), std::make_shared<NoMail>());
  const access::AccessIndex access = access::AccessIndex::Build(config);
  records::RecordService records(db, config, access);
  jobs::PurgeJob job(db, service, &records, config, settings->eco_retention_purge_days);
  auto report = job.Run(time::NowMillis());
  db.Close();
  if (!report.ok()) {
    PrintError(report.error());
    return kExitInvalid;
  }
  std::cout << jobs::FormatPurgeReport(*report);
  return kExitOk;
}

int SecretGenerate() {
  std::cout << crypto::Base64Url(crypto::RandomBytes(32)) << "\n";
  return kExitOk;
}

}  // namespace cairn::app
