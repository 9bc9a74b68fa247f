#include "schema_edit/startup_version.hpp"

#include <boost/json.hpp>

#include "activity/activity.hpp"
#include "common/time.hpp"
#include "config/loader.hpp"
#include "db/introspection.hpp"
#include "schema_edit/config_renames.hpp"
#include "schema_edit/table_name_references.hpp"
#include "schema_edit/version_store.hpp"

namespace cairn::schema_edit {
namespace {

Result<config::AppConfig> ConfigOf(const Version& version) {
  config::LoadOutcome outcome = config::LoadConfigDocument(version.snapshot);
  if (!outcome.config) {
    std::string detail;
    for (const auto& issue : outcome.issues) detail += config::FormatIssue(issue) + "; ";
    return Error::Unavailable("schema version " + std::to_string(version.info.version) +
                                  " in the database is not a valid config",
                              detail);
  }
  return std::move(*outcome.config);
}

}  // namespace

Status RecordMigrationEvent(db::Connection& connection, const schema::MigrationReport& report,
                            std::int64_t version) {
  if (!report.changed()) return {};
  boost::json::object metadata;
  metadata["version"] = version;
  metadata["statements"] = report.statements.size();
  boost::json::array applied;
  for (const auto& line : report.descriptions) applied.emplace_back(line);
  metadata["applied"] = std::move(applied);
  activity::ActivityEntry entry;
  entry.action = "migration";
  entry.metadata_json = boost::json::serialize(metadata);
  return activity::RecordActivity(connection, entry);
}

Result<std::optional<config::AppConfig>> ReadActiveConfig(db::Database& database) {
  std::optional<config::AppConfig> config;
  CAIRN_TRY(database.Transaction(db::Access::kRead, [&](db::Connection& connection) -> Status {
    CAIRN_ASSIGN_OR_RETURN(const db::LiveSchema live,
                           connection.dialect().introspector().Read(connection));
    if (live.FindTable(kVersionsTable) == nullptr) return {};
    CAIRN_ASSIGN_OR_RETURN(const auto active, ReadActiveVersion(connection));
    if (!active) return {};
    CAIRN_ASSIGN_OR_RETURN(const auto version, ReadVersion(connection, *active));
    if (!version) return {};
    CAIRN_ASSIGN_OR_RETURN(config, ConfigOf(*version));
    return {};
  }));
  return config;
}

Result<StartupVersion> StartVersions(db::Database& database, config::AppConfig file,
                                     const schema::MigrateOptions& options) {
  const std::string file_hash = DocumentHash(file.document);
  StartupVersion result;
  CAIRN_TRY(database.Transaction(db::Access::kSchema, [&](db::Connection& connection) -> Status {
    if (auto lock = connection.dialect().MigrationLockSql()) {
      CAIRN_TRY(connection.Execute(*lock, {}));
    }
    CAIRN_ASSIGN_OR_RETURN(const auto active, ReadActiveVersion(connection));
    CAIRN_ASSIGN_OR_RETURN(const auto previous_hash, ReadFileHash(connection));
    std::optional<Version> active_version;
    if (active) {
      CAIRN_ASSIGN_OR_RETURN(active_version, ReadVersion(connection, *active));
    }
    const bool file_wins = !active_version || previous_hash != file_hash;
    schema::MigrateOptions migrate = options;
    std::vector<std::pair<std::string, std::string>> table_names;
    if (file_wins) {
      result.config = file;
      if (active_version) {
        // A changed file is published like a draft (D51): what it no longer has is kept for
        // prune, unless CAIRN_ALLOW_DESTRUCTIVE drops it now.
        migrate.defer_removals = !options.allow_destructive;
        CAIRN_ASSIGN_OR_RETURN(const config::AppConfig before, ConfigOf(*active_version));
        Renames renames = RenamesBetween(before, file);
        migrate.table_renames = std::move(renames.tables);
        migrate.column_renames = std::move(renames.columns);
        migrate.conversions = ConversionsBetween(before, file);
        table_names = std::move(renames.table_names);
      }
    } else {
      CAIRN_ASSIGN_OR_RETURN(result.config, ConfigOf(*active_version));
    }
    CAIRN_ASSIGN_OR_RETURN(const schema::SchemaModel model,
                           schema::BuildSchemaModel(result.config));
    CAIRN_ASSIGN_OR_RETURN(result.migration, schema::Migrate(connection, model, migrate));
    CAIRN_TRY(RenameTableReferences(connection, table_names));
    result.version = active.value_or(0);
    if (file_wins) {
      result.version += 1;
      Version version;
      version.info.version = result.version;
      version.info.source = std::string(kSourceFile);
      version.info.published_at = time::NowMillis();
      version.info.message =
          result.version == 1 ? "the config file at first start" : "the config file changed";
      version.snapshot = file.document;
      CAIRN_TRY(InsertVersion(connection, version));
      CAIRN_TRY(WriteFileHash(connection, file_hash));
    }
    return RecordMigrationEvent(connection, result.migration, result.version);
  }));
  return result;
}

}  // namespace cairn::schema_edit
