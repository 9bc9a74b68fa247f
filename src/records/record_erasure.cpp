#include "records/record_erasure.hpp"

#include <string>

#include "schema/physical_model.hpp"

namespace cairn::records {

Status ForgetRecordAuthor(db::Connection& connection, const config::AppConfig& config,
                          std::string_view user_id) {
  const std::string_view columns[] = {schema::kCreatedByColumn, schema::kUpdatedByColumn,
                                      schema::kDeletedByColumn};
  for (const config::Table& table : config.tables) {
    // One statement (one scan) per table: each column is nulled where it names the user.
    std::string set;
    std::string where;
    for (const std::string_view column : columns) {
      const std::string name = db::Identifier(column).quoted();
      if (!set.empty()) {
        set += ", ";
        where += " OR ";
      }
      set += name + " = CASE WHEN " + name + " = ? THEN NULL ELSE " + name + " END";
      where += name + " = ?";
    }
    const std::string sql =
        "UPDATE " + db::Identifier(table.sql_name).quoted() + " SET " + set + " WHERE " + where;
    CAIRN_TRY(connection.Execute(sql, {user_id, user_id, user_id, user_id, user_id, user_id}));
  }
  return {};
}

}  // namespace cairn::records
