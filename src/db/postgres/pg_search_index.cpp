// `q` on PostgreSQL: a pg_trgm GIN index per searchable column, serving the ILIKE '%q%' scan
// (db/search_index.hpp).
#include "common/crypto.hpp"
#include "common/log.hpp"
#include "db/postgres/pg_schema_objects.hpp"

namespace cairn::db::postgres {
namespace {

constexpr std::string_view kPrefix = "_cairn_trgm_";

Status LockMigrations(Connection& connection) {
  if (auto lock = connection.dialect().MigrationLockSql()) CAIRN_TRY(connection.Execute(*lock, {}));
  return {};
}

// pg_trgm is a contrib extension: without the right to create it, `q` runs unindexed. It is
// database-wide, so it goes to `public` rather than to this app's schema, which may be dropped.
// Returns the schema that holds it.
Result<std::string> InstallExtension(Database& database) {
  std::string extension_schema;
  const auto install = [&](Connection& connection) -> Status {
    CAIRN_TRY(LockMigrations(connection));
    CAIRN_TRY(connection.ExecuteScript("CREATE EXTENSION IF NOT EXISTS pg_trgm SCHEMA public"));
    CAIRN_TRY(connection.Execute(
        "SELECT n.nspname FROM pg_extension e JOIN pg_namespace n ON n.oid = e.extnamespace "
        "WHERE e.extname = 'pg_trgm'",
        {}, [&](const Row& row) { extension_schema = row.GetText(0); }));
    if (extension_schema.empty()) return Error::Unavailable("pg_trgm is not installed");
    return {};
  };
  // A second try: nodes with other schemas may race to create it, and one of them loses.
  Status status = database.Transaction(Access::kSchema, install);
  if (!status.ok()) status = database.Transaction(Access::kSchema, install);
  if (!status.ok()) return std::move(status).error();
  return extension_schema;
}

// `extension_schema` holds pg_trgm: its operator class is named through it, whatever the search
// path.
Status CreateIndexes(Connection& connection, std::span<const SearchTable> tables,
                     const std::string& extension_schema) {
  const std::string operator_class = Identifier(extension_schema).quoted() + ".gin_trgm_ops";
  for (const SearchTable& table : tables) {
    for (const SearchColumn& column : table.columns) {
      const std::string quoted = Identifier(column.name).quoted();
      const std::string name =
          std::string(kPrefix) + crypto::Sha256Hex(table.name + '\0' + column.name).substr(0, 16);
      // The expression matches the query's: JSONB is searched as text.
      const std::string expression = column.kind == ColumnKind::kJson
                                         ? "(" + Dialect::Postgres().JsonAsText(quoted) + ")"
                                         : quoted;
      CAIRN_TRY(connection.ExecuteScript("CREATE INDEX IF NOT EXISTS " + Identifier(name).quoted() +
                                         " ON " + Identifier(table.name).quoted() + " USING gin (" +
                                         expression + " " + operator_class + ")"));
    }
  }
  return {};
}

class PgSearchIndexImpl final : public SearchIndex {
 public:
  Status Sync(Database& database, std::span<const SearchTable> tables) const override {
    auto extension_schema = InstallExtension(database);
    if (!extension_schema.ok()) {
      log::Warn(
          "search: the pg_trgm extension is not available, so `q` scans instead of using an "
          "index: " +
          extension_schema.error().message);
      return {};
    }
    return database.Transaction(Access::kSchema, [&](Connection& connection) -> Status {
      CAIRN_TRY(LockMigrations(connection));
      return CreateIndexes(connection, tables, *extension_schema);
    });
  }

  void AppendMatch(const SearchTable& /*table*/, std::span<const SearchColumn> searched,
                   std::string_view q, std::string& sql,
                   std::vector<Value>& params) const override {
    AppendScanMatch(Dialect::Postgres(), searched, q, sql, params);
  }
};

}  // namespace

const SearchIndex& PgSearchIndex() {
  static const PgSearchIndexImpl index;
  return index;
}

}  // namespace cairn::db::postgres
