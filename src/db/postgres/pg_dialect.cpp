#include "db/dialect.hpp"
#include "db/postgres/pg_schema_objects.hpp"

namespace cairn::db {

const Dialect& Dialect::Postgres() {
  static const Dialect dialect(Backend::kPostgres, postgres::PgSearchIndex(),
                               postgres::PgLiveRowCounts(), postgres::PgIntrospector());
  return dialect;
}

}  // namespace cairn::db
