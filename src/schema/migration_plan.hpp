// The diff between the desired physical model and the live database: an ordered list of DDL
// steps, and the destructive changes it contains (refused unless explicitly allowed).
#pragma once

#include <map>
#include <optional>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "common/error.hpp"
#include "db/dialect.hpp"
#include "db/introspection.hpp"
#include "schema/physical_model.hpp"

namespace cairn::schema {

// Bookkeeping tables (created by the first migration).
inline constexpr std::string_view kMigrationsTable = "_cairn_migrations";
inline constexpr std::string_view kTablesTable = "_cairn_tables";
inline constexpr std::string_view kColumnsTable = "_cairn_columns";
// Scratch name of a table being rebuilt on SQLite.
inline constexpr std::string_view kRebuildTable = "_cairn_rebuild";
// Removed tables and columns kept until `prune` (live schema editing, D51); created by the first
// migration that defers a removal.
inline constexpr std::string_view kDeferredTable = "_cairn_deferred_drops";

// What earlier migrations recorded: the tables cairn manages and what each column holds.
struct ManagedState {
  struct TableInfo {
    std::string kind;  // `table` or `junction`
    std::string label;
  };
  std::map<std::string, TableInfo> tables;  // by physical name
  std::map<std::pair<std::string, std::string>, std::string>
      columns;  // (table, column) → signature
  // Removals deferred until prune: (table, column), column empty for a whole table. The planner
  // neither drops nor reports them.
  std::set<std::pair<std::string, std::string>> deferred;
};

struct MigrationStep {
  std::string sql;
  std::string description;
  // Set on CREATE UNIQUE INDEX: `field "email" of table "contacts"` (duplicates block it).
  std::optional<std::string> unique_over;
};

struct DestructiveChange {
  enum class Kind { kDropTable, kDropJunction, kDropColumn, kRetype };
  std::string table;    // label of the table
  std::string column;   // empty for a whole table
  std::string message;  // `refusing to drop column "notes" of table "contacts": …`
  Kind kind = Kind::kDropColumn;
  std::string physical_table;  // the table's physical name
};

struct MigrationPlan {
  std::vector<MigrationStep> steps;
  std::vector<DestructiveChange> destructive;  // included in steps only when allowed
};

// Plans the steps that bring `live` to `model`. Destructive changes are always listed in
// `destructive`; their steps are planned only when `allow_destructive` is set.
MigrationPlan PlanMigration(const db::Dialect& dialect, const SchemaModel& model,
                            const db::LiveSchema& live, const ManagedState& managed,
                            bool allow_destructive);

// The error for refused destructive changes: every change, and how to allow them.
Error DestructiveChangesError(const std::vector<DestructiveChange>& changes);

}  // namespace cairn::schema
