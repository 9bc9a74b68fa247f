// Startup migration (D4): brings the database schema in line with the config in one transaction
// and records every non-empty migration in _cairn_migrations.
#pragma once

#include <string>
#include <vector>

#include "common/result.hpp"
#include "config/model.hpp"
#include "db/database.hpp"
#include "schema/field_conversion.hpp"
#include "schema/migration_plan.hpp"

namespace cairn::schema {

struct TableRename {
  std::string from, to;  // physical names
};
struct ColumnRename {
  std::string table;  // physical name (after the table renames)
  std::string from, to;
};

// A removal kept until prune.
struct DeferredDrop {
  std::string table;   // physical name
  std::string column;  // empty: the whole table
  std::string kind;    // table, junction or column
  std::string label;   // for messages: `contacts`, `contacts.notes`
};

struct MigrateOptions {
  // CAIRN_ALLOW_DESTRUCTIVE=true: apply drops and type changes instead of refusing them.
  bool allow_destructive = false;
  // Plan only: report the statements that would run (and the removals it would defer), change
  // nothing; renames are not planned.
  bool dry_run = false;
  // Live schema editing (D51): a removed table or column is kept (its cx_ indexes dropped, so
  // later inserts cannot trip over them) and listed in MigrationReport::deferred until
  // PruneDeferred; a type change not listed in `conversions` is applied only when no row holds
  // a value in the column.
  bool defer_removals = false;
  // Fields whose type changes over stored values (D51): every value is converted and checked
  // by the new type's codec before anything changes, then written back after the column is
  // re-created (or in place when the column type stays). One value that cannot convert fails the
  // migration (kValidation, reason UNCONVERTIBLE_TYPE_CHANGE, naming the field and the record).
  std::vector<FieldConversion> conversions;
  // Tables and columns renamed under the same config id, applied before anything else.
  std::vector<TableRename> table_renames;
  std::vector<ColumnRename> column_renames;
};

struct MigrationReport {
  std::vector<std::string> statements;    // DDL applied (or planned), in order; empty: no change
  std::vector<std::string> descriptions;  // one line per statement
  std::vector<DestructiveChange> destructive;  // applied because allow_destructive was set
  std::vector<DeferredDrop> deferred;          // every removal awaiting prune (defer_removals)
  std::string checksum;                        // of the statements, as stored in the ledger
  bool changed() const { return !statements.empty(); }
};

// Plans and applies the migration from the live schema to `config`'s model, atomically: on
// PostgreSQL under a transaction-level advisory lock (nodes starting together take turns and
// the later ones find nothing to do). Errors:
//  - destructive changes without allow_destructive: kValidation, reason DESTRUCTIVE_CHANGE, a
//    message naming each change and why it is refused;
//  - a unique index over duplicate values: kConflict, reason UNIQUE_VIOLATION, a message
//    naming the table and field;
//  - database errors as the db layer maps them.
Result<MigrationReport> MigrateToConfig(db::Database& database, const config::AppConfig& config,
                                        const MigrateOptions& options = {});

// The same, for a model already built (and on a connection inside a kSchema transaction).
// With defer_removals, a type change over stored values that `conversions` does not cover fails
// with kValidation, reason UNCONVERTIBLE_TYPE_CHANGE, naming the field and the first record
// holding a value.
Result<MigrationReport> Migrate(db::Connection& connection, const SchemaModel& model,
                                const MigrateOptions& options);

// The removals kept for prune (empty when none were ever deferred).
Result<std::vector<DeferredDrop>> ReadDeferredDrops(db::Connection& connection);

// Drops every deferred table and column (inside a kSchema transaction) and empties the list.
Result<MigrationReport> PruneDeferred(db::Connection& connection, const SchemaModel& model);

}  // namespace cairn::schema
