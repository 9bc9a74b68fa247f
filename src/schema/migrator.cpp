#include "schema/migrator.hpp"

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

}  // namespace

Result<MigrationReport> Migrate(db::Connection& connection, const SchemaModel& model,
                                const MigrateOptions& options) {
  const db::Dialect& dialect = connection.dialect();
  if (const auto lock = dialect.MigrationLockSql()) CAIRN_TRY(connection.Execute(*lock, {}));
  CAIRN_ASSIGN_OR_RETURN(const db::LiveSchema live, dialect.introspector().Read(connection));
  CAIRN_ASSIGN_OR_RETURN(const ManagedState managed, LoadManagedState(connection, live));
  MigrationPlan plan = PlanMigration(dialect, model, live, managed, options.allow_destructive);
  if (!plan.destructive.empty() && !options.allow_destructive) {
    return DestructiveChangesError(plan.destructive);
  }

  MigrationReport report;
  std::string all;
  for (const auto& step : plan.steps) {
    report.statements.push_back(step.sql);
    report.descriptions.push_back(step.description);
    all += step.sql;
    all += '\n';
  }
  report.destructive = std::move(plan.destructive);
  report.checksum = Fnv1aHex(all);
  if (options.dry_run) return report;

  for (const auto& step : plan.steps) CAIRN_TRY(RunStep(connection, step));
  CAIRN_TRY(SyncBookkeeping(connection, model, managed));
  CAIRN_TRY(dialect.live_row_counts().Sync(connection, CountedTables(model)));
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
