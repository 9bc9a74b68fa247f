// What a start serves (D51): version 1 is the config file at first boot; when the file differs
// from the one the previous start read, the file is published as a new version (`source: file`,
// "the file wins"); otherwise the active version from the database is served, which may differ
// from the file after a publish through the API.
#pragma once

#include <cstdint>
#include <optional>

#include "common/result.hpp"
#include "config/model.hpp"
#include "db/database.hpp"
#include "schema/migrator.hpp"

namespace cairn::schema_edit {

struct StartupVersion {
  config::AppConfig config;  // what to serve
  std::int64_t version = 0;
  schema::MigrationReport migration;
};

// Migrates the database to the served config (CAIRN_ALLOW_DESTRUCTIVE applies as at any start;
// removals deferred by a publish stay kept; renames under the same id keep their data), records
// the version, and logs the `migration` system event when the database changed — all in one
// transaction. `file.document` must be the file's document ($ref includes resolved).
Result<StartupVersion> StartVersions(db::Database& database, config::AppConfig file,
                                     const schema::MigrateOptions& options);

// The config of the active version in the database (what `cairn serve` serves unless the file
// changed), or none when no start has recorded a version yet. Reads only.
Result<std::optional<config::AppConfig>> ReadActiveConfig(db::Database& database);

// The `migration` activity entry (D50) for a migration that changed the database.
Status RecordMigrationEvent(db::Connection& connection, const schema::MigrationReport& report,
                            std::int64_t version);

}  // namespace cairn::schema_edit
