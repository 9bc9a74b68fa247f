#include "records/search_index.hpp"

#include <set>

#include "common/crypto.hpp"
#include "common/log.hpp"
#include "db/dialect.hpp"
#include "schema/physical_model.hpp"

namespace cairn::records {
namespace {

constexpr std::string_view kSqlitePrefix = "_cairn_search_";
constexpr std::string_view kPostgresPrefix = "_cairn_trgm_";

std::vector<std::string> SearchableColumns(const config::Table& table) {
  std::vector<std::string> columns;
  for (const config::Field& field : table.fields) {
    if (IsSearchable(field)) columns.push_back(*schema::ColumnNameOf(field));
  }
  return columns;
}

std::string Fingerprint(const config::Table& table, const std::vector<std::string>& columns) {
  std::string input = table.sql_name;
  for (const std::string& column : columns) input += '\0' + column;
  return crypto::Sha256Hex(input).substr(0, 12);
}

std::optional<std::string> IndexName(const config::Table& table) {
  const std::vector<std::string> columns = SearchableColumns(table);
  if (columns.empty()) return std::nullopt;
  return std::string(kSqlitePrefix) + Fingerprint(table, columns);
}

// `"a", "b"` and `new."a", new."b"` (or old.).
std::string Columns(const std::vector<std::string>& columns, std::string_view row = {}) {
  std::string out;
  for (const std::string& column : columns) {
    if (!out.empty()) out += ", ";
    out += std::string(row) + db::Identifier(column).quoted();
  }
  return out;
}

Result<std::set<std::string>> Existing(db::Connection& connection, std::string_view type) {
  std::set<std::string> names;
  CAIRN_TRY(connection.Execute(
      "SELECT \"name\" FROM sqlite_master WHERE \"type\" = ? AND \"name\" LIKE ? ESCAPE '\\'",
      {type, db::Dialect::EscapeLike(kSqlitePrefix) + "%"},
      [&](const db::Row& row) { names.emplace(row.GetText(0)); }));
  return names;
}

Status EnsureSqlite(db::Connection& connection, const config::AppConfig& config) {
  CAIRN_ASSIGN_OR_RETURN(const auto tables, Existing(connection, "table"));
  CAIRN_ASSIGN_OR_RETURN(const auto triggers, Existing(connection, "trigger"));
  std::set<std::string> wanted;
  for (const config::Table& table : config.tables) {
    const auto name = IndexName(table);
    if (!name) continue;
    wanted.insert(*name);
    const std::vector<std::string> columns = SearchableColumns(table);
    const std::string index = db::Identifier(*name).quoted();
    const std::string base = db::Identifier(table.sql_name).quoted();
    bool rebuild = false;
    if (!tables.contains(*name)) {
      std::string content = "'";  // the table's name as a string literal
      for (const char c : table.sql_name) content += c == '\'' ? "''" : std::string(1, c);
      CAIRN_TRY(connection.ExecuteScript("CREATE VIRTUAL TABLE " + index + " USING fts5(" +
                                         Columns(columns) + ", content=" + content +
                                         "', content_rowid='id', tokenize='trigram')"));
      rebuild = true;
    }
    // Triggers go with their table when the migrator rebuilds it: recreate and reindex.
    const std::string insert_new = "INSERT INTO " + index + " (rowid, " + Columns(columns) +
                                   ") VALUES (new.\"id\", " + Columns(columns, "new.") + ");";
    const std::string delete_old = "INSERT INTO " + index + " (" + index + ", rowid, " +
                                   Columns(columns) + ") VALUES ('delete', old.\"id\", " +
                                   Columns(columns, "old.") + ");";
    const std::pair<std::string, std::string> wanted_triggers[] = {
        {*name + "_insert", "AFTER INSERT ON " + base + " BEGIN " + insert_new + " END"},
        {*name + "_delete", "AFTER DELETE ON " + base + " BEGIN " + delete_old + " END"},
        {*name + "_update", "AFTER UPDATE OF " + Columns(columns) + " ON " + base + " BEGIN " +
                                delete_old + " " + insert_new + " END"},
    };
    for (const auto& [trigger, body] : wanted_triggers) {
      if (triggers.contains(trigger)) continue;
      CAIRN_TRY(connection.ExecuteScript("CREATE TRIGGER " + db::Identifier(trigger).quoted() +
                                         " " + body));
      rebuild = true;
    }
    if (rebuild) {
      CAIRN_TRY(
          connection.ExecuteScript("INSERT INTO " + index + " (" + index + ") VALUES ('rebuild')"));
    }
  }
  // Indexes of removed tables or of an older set of columns: their triggers first.
  for (const std::string& trigger : triggers) {
    if (!wanted.contains(trigger.substr(0, trigger.rfind('_')))) {
      CAIRN_TRY(connection.ExecuteScript("DROP TRIGGER " + db::Identifier(trigger).quoted()));
    }
  }
  for (const std::string& table : tables) {
    // FTS5 keeps its data in shadow tables named <index>_data, …; dropping the index drops them.
    if (table.size() == kSqlitePrefix.size() + 12 && !wanted.contains(table)) {
      CAIRN_TRY(connection.ExecuteScript("DROP TABLE " + db::Identifier(table).quoted()));
    }
  }
  return {};
}

// `extension_schema` holds pg_trgm: its operator class is named through it, whatever the search
// path.
Status EnsurePostgres(db::Connection& connection, const config::AppConfig& config,
                      const std::string& extension_schema) {
  const std::string operator_class = db::Identifier(extension_schema).quoted() + ".gin_trgm_ops";
  for (const config::Table& table : config.tables) {
    for (const config::Field& field : table.fields) {
      if (!IsSearchable(field)) continue;
      const std::string column = db::Identifier(*schema::ColumnNameOf(field)).quoted();
      const std::string name = std::string(kPostgresPrefix) +
                               crypto::Sha256Hex(table.sql_name + '\0' + field.name).substr(0, 16);
      // The expression matches the query's: JSONB multi-selects are searched as text.
      const std::string expression =
          field.type == config::FieldType::kMultiSelect ? "(" + column + "::text)" : column;
      CAIRN_TRY(connection.ExecuteScript("CREATE INDEX IF NOT EXISTS " +
                                         db::Identifier(name).quoted() + " ON " +
                                         db::Identifier(table.sql_name).quoted() + " USING gin (" +
                                         expression + " " + operator_class + ")"));
    }
  }
  return {};
}

}  // namespace

bool IsSearchable(const config::Field& field) {
  switch (field.type) {
    case config::FieldType::kSingleLineText:
    case config::FieldType::kLongText:
    case config::FieldType::kEmail:
    case config::FieldType::kUrl:
    case config::FieldType::kPhoneNumber:
    case config::FieldType::kSingleSelect:
    case config::FieldType::kMultiSelect:
      return true;
    default:
      return false;
  }
}

std::optional<std::string> SearchIndexSql(const config::Table& table) {
  const auto name = IndexName(table);
  if (!name) return std::nullopt;
  return db::Identifier(*name).quoted();
}

Status EnsureSearchIndexes(db::Database& database, const config::AppConfig& config) {
  if (!database.dialect().is_postgres()) {
    return database.Transaction(db::Access::kSchema, [&](db::Connection& connection) {
      return EnsureSqlite(connection, config);
    });
  }
  // pg_trgm is a contrib extension: without the right to create it, `q` runs unindexed. It is
  // database-wide, so it goes to `public` rather than to this app's schema, which may be dropped.
  std::string extension_schema;
  const auto install = [&](db::Connection& connection) -> Status {
    if (auto lock = connection.dialect().MigrationLockSql()) {
      CAIRN_TRY(connection.Execute(*lock, {}));
    }
    CAIRN_TRY(connection.ExecuteScript("CREATE EXTENSION IF NOT EXISTS pg_trgm SCHEMA public"));
    CAIRN_TRY(connection.Execute(
        "SELECT n.nspname FROM pg_extension e JOIN pg_namespace n ON n.oid = e.extnamespace "
        "WHERE e.extname = 'pg_trgm'",
        {}, [&](const db::Row& row) { extension_schema = row.GetText(0); }));
    if (extension_schema.empty()) return Error::Unavailable("pg_trgm is not installed");
    return {};
  };
  // A second try: nodes with other schemas may race to create it, and one of them loses.
  Status extension = database.Transaction(db::Access::kSchema, install);
  if (!extension.ok()) extension = database.Transaction(db::Access::kSchema, install);
  if (!extension.ok()) {
    log::Warn(
        "search: the pg_trgm extension is not available, so `q` scans instead of using an "
        "index: " +
        extension.error().message);
    return {};
  }
  return database.Transaction(db::Access::kSchema, [&](db::Connection& connection) -> Status {
    if (auto lock = connection.dialect().MigrationLockSql()) {
      CAIRN_TRY(connection.Execute(*lock, {}));
    }
    return EnsurePostgres(connection, config, extension_schema);
  });
}

}  // namespace cairn::records
