#include "db/database.hpp"
#include "db/db_error.hpp"
#include "db/postgres/open_postgres.hpp"
#include "db/sqlite/open_sqlite.hpp"

namespace cairn::db {

const Dialect& Dialect::For(Backend backend) {
  return backend == Backend::kPostgres ? Postgres() : Sqlite();
}

Result<std::unique_ptr<Database>> OpenDatabase(const DatabaseOptions& options) {
  if (options.url.empty()) return sqlite::OpenSqliteDatabase(options);
  const std::string_view url = options.url;
  if (url.starts_with("postgres://") || url.starts_with("postgresql://")) {
    return postgres::OpenPostgresDatabase(options);
  }
  Error error = MakeDbError(DbErrorKind::kUnavailable, "unsupported DATABASE_URL scheme");
  error.message = "DATABASE_URL must start with postgres:// or postgresql://";
  return error;
}

}  // namespace cairn::db
