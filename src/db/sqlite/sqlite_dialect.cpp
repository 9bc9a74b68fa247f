#include "db/dialect.hpp"
#include "db/sqlite/sqlite_schema_objects.hpp"

namespace cairn::db {

const Dialect& Dialect::Sqlite() {
  static const Dialect dialect(Backend::kSqlite, sqlite::SqliteSearchIndex(),
                               sqlite::SqliteLiveRowCounts(), sqlite::SqliteIntrospector());
  return dialect;
}

}  // namespace cairn::db
