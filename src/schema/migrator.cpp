#include "schema/migrator.hpp"

#include <set>

#include "common/json.hpp"
#include "common/time.hpp"
#include "db/db_error.hpp"
#include "db/introspection.hpp"
#include "db/live_row_counts.hpp"

namespace cairn::schema {
namespace {

std::string_view KindName(TableKind kind) {
  return kind == TableKind::kJunction ? "junction" : "table";
}

Result<ManagedState> LoadManagedState(db::Connection& connection, const db::LiveSchema& live) {
  ManagedState state;
  if (live.FindTable(kTablesTable) != nullptr) {
    CAIRN_TRY(connection.Execute("SELECT \"name\", \"kind\", \"label\" FROM \"_cairn_tables\"", {},
                                 [&](const db::Row& row) {
                                   state.tables[std::string(row.GetText(0))] = {
                                       std::string(row.GetText(1)), std::string(row.GetText(2))};
                                 }));
  }
  if (live.FindTable(kColumnsTable) != nullptr) {
    CAIRN_TRY(connection.Execute(
        "SELECT \"table_name\", \"column_name\", \"signature\" FROM \"_cairn_columns\"", {},
        [&](const db::Row& row) {
          state.columns[{std::string(row.GetText(0)), std::string(row.GetText(1))}] =
              std::string(row.GetText(2));
        }));
  }
  if (live.FindTable(kDeferredTable) != nullptr) {
    CAIRN_TRY(connection.Execute(
        "SELECT \"table_name\", \"column_name\" FROM \"_cairn_deferred_drops\"", {},
        [&](const db::Row& row) {
          state.deferred.insert({std::string(row.GetText(0)), std::string(row.GetText(1))});
        }));
  }
  return state;
}

// Makes _cairn_tables and _cairn_columns describe `model`, writing only what differs (a run
// that changes nothing writes nothing).
Status SyncBookkeeping(db::Connection& connection, const SchemaModel& model,
                       const ManagedState& managed) {
  ManagedState desired;
  for (const auto& table : model.tables) {
    desired.tables[table.name] = {std::string(KindName(table.kind)), table.label};
    for (const auto& column : table.columns) {
      desired.columns[{table.name, column.name}] = column.Signature();
    }
  }
  for (const auto& [name, info] : managed.tables) {
    if (desired.tables.contains(name)) continue;
    CAIRN_TRY(connection.Execute("DELETE FROM \"_cairn_tables\" WHERE \"name\" = ?", {name}));
  }
  for (const auto& [name, info] : desired.tables) {
    const auto it = managed.tables.find(name);
    if (it == managed.tables.end()) {
      CAIRN_TRY(connection.Execute(
          "INSERT INTO \"_cairn_tables\" (\"name\", \"kind\", \"label\") VALUES (?, ?, ?)",
          {name, info.kind, info.label}));
    } else if (it->second.kind != info.kind || it->second.label != info.label) {
      CAIRN_TRY(connection.Execute(
          "UPDATE \"_cairn_tables\" SET \"kind\" = ?, \"label\" = ? WHERE \"name\" = ?",
          {info.kind, info.label, name}));
    }
  }
  for (const auto& [key, signature] : managed.columns) {
    if (desired.columns.contains(key)) continue;
    CAIRN_TRY(connection.Execute(
        "DELETE FROM \"_cairn_columns\" WHERE \"table_name\" = ? AND \"column_name\" = ?",
        {key.first, key.second}));
  }
  for (const auto& [key, signature] : desired.columns) {
    const auto it = managed.columns.find(key);
    if (it == managed.columns.end()) {
      CAIRN_TRY(connection.Execute(
          "INSERT INTO \"_cairn_columns\" (\"table_name\", \"column_name\", \"signature\") "
          "VALUES (?, ?, ?)",
          {key.first, key.second, signature}));
    } else if (it->second != signature) {
      CAIRN_TRY(
          connection.Execute("UPDATE \"_cairn_columns\" SET \"signature\" = ? "
                             "WHERE \"table_name\" = ? AND \"column_name\" = ?",
                             {signature, key.first, key.second}));
    }
  }
  return {};
}

// Every record table keeps a live-row count (junction tables have no deleted_at).
std::vector<std::string> CountedTables(const SchemaModel& model) {
  std::vector<std::string> tables;
  for (const TableModel& table : model.tables) {
    if (table.kind == TableKind::kTable) tables.push_back(table.name);
  }
  return tables;
}

Status RunStep(db::Connection& connection, const MigrationStep& step) {
  Status status = connection.ExecuteScript(step.sql);
  if (status.ok() || !step.unique_over ||
      db::ErrorKindOf(status.error()) != db::DbErrorKind::kUnique) {
    return status;
  }
  Error error = std::move(status).error();
  error.message = "cannot add a unique index on " + *step.unique_over +
                  ": the table already holds duplicate values there; remove the duplicates "
                  "(or drop `unique`) and start again";
  return error;
}

Status WriteLedger(db::Connection& connection, const MigrationReport& report) {
  std::string statements = "[";
  for (const auto& sql : report.statements) {
    if (statements.size() > 1) statements += ',';
    json::AppendString(statements, sql);
  }
  statements += ']';
  std::string description;
  for (const auto& line : report.descriptions) {
    if (!description.empty()) description += "; ";
    description += line;
  }
  CAIRN_TRY(connection.Execute(
      "INSERT INTO \"_cairn_migrations\" (\"applied_at\", \"checksum\", \"description\", "
      "\"statements\") VALUES (?, ?, ?, ?)",
      {db::Timestamp{time::NowMillis()}, report.checksum, description,
       db::Json{std::move(statements)}}));
  return {};
}

constexpr std::string_view kDeferredTableSql =
    "CREATE TABLE IF NOT EXISTS \"_cairn_deferred_drops\" (\"table_name\" TEXT NOT NULL, "
    "\"column_name\" TEXT NOT NULL, \"kind\" TEXT NOT NULL, \"label\" TEXT NOT NULL, "
    "PRIMARY KEY (\"table_name\", \"column_name\"))";

std::string Q(std::string_view name) {
  return db::Identifier(name).quoted();
}

// Renames under the same config id keep the data: the table or column is renamed in place, and
// the bookkeeping follows, before the plan compares names.
Status ApplyRenames(db::Connection& connection, const db::LiveSchema& live,
                    const MigrateOptions& options, MigrationReport& report) {
  const auto step = [&](std::string sql, std::string description) -> Status {
    CAIRN_TRY(connection.Execute(sql, {}));
    report.statements.push_back(std::move(sql));
    report.descriptions.push_back(std::move(description));
    return {};
  };
  const bool bookkeeping = live.FindTable(kTablesTable) != nullptr;
  for (const TableRename& rename : options.table_renames) {
    if (live.FindTable(rename.from) == nullptr || live.FindTable(rename.to) != nullptr) continue;
    CAIRN_TRY(step("ALTER TABLE " + Q(rename.from) + " RENAME TO " + Q(rename.to),
                   "rename table " + Q(rename.from) + " to " + Q(rename.to)));
    if (!bookkeeping) continue;
    CAIRN_TRY(
        connection.Execute("UPDATE \"_cairn_tables\" SET \"name\" = ?, \"label\" = ? "
                           "WHERE \"name\" = ?",
                           {rename.to, rename.to, rename.from}));
    CAIRN_TRY(connection.Execute(
        "UPDATE \"_cairn_columns\" SET \"table_name\" = ? WHERE \"table_name\" = ?",
        {rename.to, rename.from}));
    // References to it follow the rename (the database moved them), so no column of another
    // table looks retyped.
    CAIRN_TRY(connection.Execute(
        "UPDATE \"_cairn_columns\" SET \"signature\" = ? WHERE \"signature\" = ?",
        {"ref(" + rename.to + ")", "ref(" + rename.from + ")"}));
  }
  for (const ColumnRename& rename : options.column_renames) {
    std::string table = rename.table;
    for (const TableRename& renamed : options.table_renames) {
      if (renamed.to == table && live.FindTable(table) == nullptr) table = renamed.from;
    }
    const db::LiveTable* live_table = live.FindTable(table);
    if (live_table == nullptr || live_table->FindColumn(rename.from) == nullptr ||
        live_table->FindColumn(rename.to) != nullptr) {
      continue;
    }
    CAIRN_TRY(step("ALTER TABLE " + Q(rename.table) + " RENAME COLUMN " + Q(rename.from) + " TO " +
                       Q(rename.to),
                   "rename column " + Q(rename.from) + " of table " + Q(rename.table) + " to " +
                       Q(rename.to)));
    if (!bookkeeping) continue;
    CAIRN_TRY(
        connection.Execute("UPDATE \"_cairn_columns\" SET \"column_name\" = ? "
                           "WHERE \"table_name\" = ? AND \"column_name\" = ?",
                           {rename.to, rename.table, rename.from}));
  }
  return {};
}

// A type change no conversion covers keeps no values: refused while any row holds one.
Status CheckRetypeIsEmpty(db::Connection& connection, const SchemaModel& model,
                          const DestructiveChange& change) {
  const TableModel* table = model.FindTable(change.physical_table);
  const bool has_id = table != nullptr && table->kind == TableKind::kTable;
  std::optional<std::int64_t> record;
  bool found = false;
  CAIRN_TRY(connection.Execute("SELECT " + std::string(has_id ? "\"id\"" : "1") + " FROM " +
                                   Q(change.physical_table) + " WHERE " + Q(change.column) +
                                   " IS NOT NULL" + (has_id ? " ORDER BY \"id\"" : "") + " LIMIT 1",
                               {}, [&](const db::Row& row) {
                                 found = true;
                                 if (has_id) record = row.GetInt64(0);
                               }));
  if (!found) return {};
  return UnconvertibleError(change.table + "." + change.column, nullptr, nullptr, record,
                            "its column changes to another kind of value");
}

// Where a conversion's values are before the migration's renames (a dry run applies none).
std::pair<std::string, std::string> NamesBeforeRenames(const MigrateOptions& options,
                                                       const FieldConversion& conversion) {
  std::string table = conversion.table;
  std::string column = conversion.column;
  for (const ColumnRename& rename : options.column_renames) {
    if (rename.table == table && rename.to == column) column = rename.from;
  }
  for (const TableRename& rename : options.table_renames) {
    if (rename.to == table) table = rename.from;
  }
  return {table, column};
}

struct PendingConversion {
  const FieldConversion* conversion;
  std::vector<ConvertedValue> values;
};

// Every conversion's values, converted and checked before anything is planned.
Result<std::vector<PendingConversion>> ConvertAll(db::Connection& connection,
                                                  const db::LiveSchema& live,
                                                  const MigrateOptions& options) {
  std::vector<PendingConversion> pending;
  for (const FieldConversion& conversion : options.conversions) {
    const auto [table, column] = options.dry_run ? NamesBeforeRenames(options, conversion)
                                                 : std::pair{conversion.table, conversion.column};
    const db::LiveTable* live_table = live.FindTable(table);
    if (live_table == nullptr || live_table->FindColumn(column) == nullptr) continue;
    CAIRN_ASSIGN_OR_RETURN(auto values, ConvertStoredValues(connection, conversion, table, column));
    pending.push_back({&conversion, std::move(values)});
  }
  return pending;
}

bool Converts(const std::vector<PendingConversion>& pending, const DestructiveChange& change) {
  for (const PendingConversion& item : pending) {
    if (item.conversion->table == change.physical_table &&
        item.conversion->column == change.column) {
      return true;
    }
  }
  return false;
}

std::string_view DeferredKind(DestructiveChange::Kind kind) {
  switch (kind) {
    case DestructiveChange::Kind::kDropTable:
      return "table";
    case DestructiveChange::Kind::kDropJunction:
      return "junction";
    case DestructiveChange::Kind::kDropColumn:
    case DestructiveChange::Kind::kRetype:
      break;
  }
  return "column";
}

Result<std::vector<DeferredDrop>> ReadLedger(db::Connection& connection) {
  std::vector<DeferredDrop> drops;
  CAIRN_TRY(connection.Execute(
      "SELECT \"table_name\", \"column_name\", \"kind\", \"label\" FROM "
      "\"_cairn_deferred_drops\" ORDER BY \"table_name\", \"column_name\"",
      {}, [&](const db::Row& row) {
        drops.push_back({std::string(row.GetText(0)), std::string(row.GetText(1)),
                         std::string(row.GetText(2)), std::string(row.GetText(3))});
      }));
  return drops;
}

// The ledger after this migration: earlier removals still absent from the model, and the new.
Status WriteDeferred(db::Connection& connection, const SchemaModel& model,
                     const std::vector<DeferredDrop>& earlier,
                     const std::vector<DeferredDrop>& added, MigrationReport& report) {
  CAIRN_TRY(connection.Execute("DELETE FROM \"_cairn_deferred_drops\"", {}));
  std::set<std::pair<std::string, std::string>> seen;
  for (const auto* list : {&earlier, &added}) {
    for (const DeferredDrop& drop : *list) {
      const TableModel* table = model.FindTable(drop.table);
      const bool back = drop.column.empty()
                            ? table != nullptr
                            : table != nullptr && table->FindColumn(drop.column) != nullptr;
      if (back || !seen.insert({drop.table, drop.column}).second) continue;
      CAIRN_TRY(connection.Execute(
          "INSERT INTO \"_cairn_deferred_drops\" (\"table_name\", \"column_name\", \"kind\", "
          "\"label\") VALUES (?, ?, ?, ?)",
          {drop.table, drop.column, drop.kind, drop.label}));
      report.deferred.push_back(drop);
    }
  }
  return {};
}

}  // namespace

Result<std::vector<DeferredDrop>> ReadDeferredDrops(db::Connection& connection) {
  CAIRN_ASSIGN_OR_RETURN(const db::LiveSchema live,
                         connection.dialect().introspector().Read(connection));
  if (live.FindTable(kDeferredTable) == nullptr) return std::vector<DeferredDrop>{};
  return ReadLedger(connection);
}

Result<MigrationReport> Migrate(db::Connection& connection, const SchemaModel& model,
                                const MigrateOptions& options) {
  const db::Dialect& dialect = connection.dialect();
  if (const auto lock = dialect.MigrationLockSql()) CAIRN_TRY(connection.Execute(*lock, {}));
  MigrationReport report;
  std::vector<DeferredDrop> earlier;
  std::vector<DeferredDrop> added;
  if (!options.dry_run && (!options.table_renames.empty() || !options.column_renames.empty())) {
    CAIRN_ASSIGN_OR_RETURN(const db::LiveSchema before, dialect.introspector().Read(connection));
    CAIRN_TRY(ApplyRenames(connection, before, options, report));
  }
  if (options.defer_removals && !options.dry_run) {
    CAIRN_TRY(connection.Execute(std::string(kDeferredTableSql), {}));
    CAIRN_ASSIGN_OR_RETURN(earlier, ReadLedger(connection));
  }
  CAIRN_ASSIGN_OR_RETURN(const db::LiveSchema live, dialect.introspector().Read(connection));
  CAIRN_ASSIGN_OR_RETURN(ManagedState managed, LoadManagedState(connection, live));
  CAIRN_ASSIGN_OR_RETURN(const std::vector<PendingConversion> conversions,
                         ConvertAll(connection, live, options));
  MigrationPlan plan = PlanMigration(dialect, model, live, managed, options.allow_destructive);
  if (options.defer_removals && !plan.destructive.empty()) {
    bool retyped = false;
    for (const DestructiveChange& change : plan.destructive) {
      if (change.kind == DestructiveChange::Kind::kRetype) {
        if (!Converts(conversions, change))
          CAIRN_TRY(CheckRetypeIsEmpty(connection, model, change));
        retyped = true;
        continue;
      }
      managed.deferred.insert({change.physical_table, change.column});
      added.push_back({change.physical_table, change.column, std::string(DeferredKind(change.kind)),
                       change.column.empty() ? change.table : change.table + "." + change.column});
    }
    // Planned again: the removals are now kept, and an emptied column may change its type.
    plan = PlanMigration(dialect, model, live, managed, retyped);
    plan.destructive.clear();
  }
  if (!plan.destructive.empty() && !options.allow_destructive) {
    return DestructiveChangesError(plan.destructive);
  }

  std::string all;
  for (const auto& step : plan.steps) {
    report.statements.push_back(step.sql);
    report.descriptions.push_back(step.description);
    all += step.sql;
    all += '\n';
  }
  for (const PendingConversion& item : conversions) {
    const FieldConversion& conversion = *item.conversion;
    report.statements.push_back("UPDATE " + Q(conversion.table) + " SET " + Q(conversion.column) +
                                " = ? WHERE \"id\" = ?");
    report.descriptions.push_back("convert the " + std::to_string(item.values.size()) +
                                  " values of field " + Q(conversion.label) + " from " +
                                  std::string(config::FieldTypeName(conversion.from.type)) +
                                  " to " + std::string(config::FieldTypeName(conversion.to.type)));
    all += report.statements.back() + '\n';
  }
  report.destructive = std::move(plan.destructive);
  report.checksum = Fnv1aHex(all);
  if (options.dry_run) {
    report.deferred = std::move(added);  // what this migration would keep for prune
    return report;
  }

  for (const auto& step : plan.steps) CAIRN_TRY(RunStep(connection, step));
  for (const PendingConversion& item : conversions) {
    CAIRN_TRY(WriteConvertedValues(connection, *item.conversion, item.values));
  }
  CAIRN_TRY(SyncBookkeeping(connection, model, managed));
  CAIRN_TRY(dialect.live_row_counts().Sync(connection, CountedTables(model)));
  if (options.defer_removals) CAIRN_TRY(WriteDeferred(connection, model, earlier, added, report));
  if (report.changed()) CAIRN_TRY(WriteLedger(connection, report));
  return report;
}

Result<MigrationReport> PruneDeferred(db::Connection& connection, const SchemaModel& model) {
  const db::Dialect& dialect = connection.dialect();
  if (const auto lock = dialect.MigrationLockSql()) CAIRN_TRY(connection.Execute(*lock, {}));
  CAIRN_ASSIGN_OR_RETURN(const db::LiveSchema live, dialect.introspector().Read(connection));
  if (live.FindTable(kDeferredTable) == nullptr) return MigrationReport{};
  CAIRN_ASSIGN_OR_RETURN(const std::vector<DeferredDrop> drops, ReadLedger(connection));
  CAIRN_ASSIGN_OR_RETURN(ManagedState managed, LoadManagedState(connection, live));
  managed.deferred.clear();
  // Columns first (the planner drops every live column the model lacks, rebuilding on SQLite)…
  MigrationPlan plan = PlanMigration(dialect, model, live, managed, true);
  MigrationReport report;
  std::string all;
  for (const auto& step : plan.steps) {
    CAIRN_TRY(RunStep(connection, step));
    report.statements.push_back(step.sql);
    report.descriptions.push_back(step.description);
    all += step.sql + '\n';
  }
  // … then whole tables, junction tables before the tables they point at.
  for (const std::string_view kind : {"junction", "table"}) {
    for (const DeferredDrop& drop : drops) {
      if (drop.kind != kind || live.FindTable(drop.table) == nullptr) continue;
      if (model.FindTable(drop.table) != nullptr) continue;
      std::string sql = dialect.DropTable(db::Identifier(drop.table));
      CAIRN_TRY(connection.ExecuteScript(sql));
      report.descriptions.push_back("drop " + std::string(kind) + " " + Q(drop.label));
      all += sql + '\n';
      report.statements.push_back(std::move(sql));
    }
  }
  for (const DeferredDrop& drop : drops) report.deferred.push_back(drop);  // what was pruned
  CAIRN_TRY(connection.Execute("DELETE FROM \"_cairn_deferred_drops\"", {}));
  CAIRN_TRY(SyncBookkeeping(connection, model, managed));
  report.checksum = Fnv1aHex(all);
  if (report.changed()) CAIRN_TRY(WriteLedger(connection, report));
  return report;
}

Result<MigrationReport> MigrateToConfig(db::Database& database, const config::AppConfig& config,
                                        const MigrateOptions& options) {
  CAIRN_ASSIGN_OR_RETURN(const SchemaModel model, BuildSchemaModel(config));
  MigrationReport report;
  CAIRN_TRY(database.Transaction(db::Access::kSchema, [&](db::Connection& connection) -> Status {
    CAIRN_ASSIGN_OR_RETURN(report, Migrate(connection, model, options));
    return {};
  }));
  return report;
}

}  // namespace cairn::schema
