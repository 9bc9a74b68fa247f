#include "activity/activity_schema.hpp"

#include <string>

namespace cairn::activity {
namespace {

// Only the id's type differs between the databases (an auto-assigned integer key that is never
// reused, so ids stay in insertion order); the rest means the same on both.
std::string SchemaSql(const db::Dialect& dialect) {
  std::string sql = R"SQL(CREATE TABLE IF NOT EXISTS "_cairn_activity" (
  "id" )SQL";
  sql += dialect.ColumnTypeSql({db::ColumnKind::kId});
  sql += R"SQL(,
  "action" TEXT NOT NULL,
  "table_name" TEXT,
  "record_id" BIGINT,
  "user_id" TEXT,
  "created_at" BIGINT NOT NULL,
  "changes" TEXT,
  "ip_address" TEXT,
  "user_agent" TEXT,
  "metadata" TEXT
);
CREATE INDEX IF NOT EXISTS "_cairn_activity_created" ON "_cairn_activity" ("created_at", "id");
CREATE INDEX IF NOT EXISTS "_cairn_activity_table" ON "_cairn_activity" ("table_name", "created_at");
CREATE INDEX IF NOT EXISTS "_cairn_activity_record" ON "_cairn_activity" ("table_name", "record_id");
CREATE INDEX IF NOT EXISTS "_cairn_activity_action" ON "_cairn_activity" ("action");
CREATE INDEX IF NOT EXISTS "_cairn_activity_user" ON "_cairn_activity" ("user_id");
)SQL";
  return sql;
}

}  // namespace

Status EnsureActivitySchema(db::Database& database) {
  return database.Transaction(db::Access::kSchema, [&](db::Connection& connection) -> Status {
    if (auto lock = connection.dialect().MigrationLockSql()) {
      CAIRN_TRY(connection.Execute(*lock, {}));
    }
    return connection.ExecuteScript(SchemaSql(connection.dialect()));
  });
}

}  // namespace cairn::activity
