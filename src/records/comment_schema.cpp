#include "records/comment_schema.hpp"

#include <string>

namespace cairn::records {
namespace {

// Only the id's type differs between the databases (an auto-assigned integer key that is never
// reused, so ids stay in insertion order: a record's comments list oldest first by id).
// "user_id" is the author, null once the account is erased (ForgetCommentAuthor).
std::string SchemaSql(const db::Dialect& dialect) {
  std::string sql = R"SQL(CREATE TABLE IF NOT EXISTS "_cairn_comments" (
  "id" )SQL";
  sql += dialect.ColumnTypeSql({db::ColumnKind::kId});
  sql += R"SQL(,
  "table_name" TEXT NOT NULL,
  "record_id" BIGINT NOT NULL,
  "user_id" TEXT,
  "content" TEXT NOT NULL,
  "created_at" BIGINT NOT NULL,
  "updated_at" BIGINT NOT NULL
);
CREATE INDEX IF NOT EXISTS "_cairn_comments_record" ON "_cairn_comments" ("table_name", "record_id", "id");
)SQL";
  return sql;
}

}  // namespace

Status EnsureCommentSchema(db::Database& database) {
  return database.Transaction(db::Access::kSchema, [&](db::Connection& connection) -> Status {
    if (auto lock = connection.dialect().MigrationLockSql()) {
      CAIRN_TRY(connection.Execute(*lock, {}));
    }
    return connection.ExecuteScript(SchemaSql(connection.dialect()));
  });
}

}  // namespace cairn::records
