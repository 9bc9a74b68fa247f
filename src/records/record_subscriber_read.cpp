// RecordService::ReadAsSubscriber: the read path of a list (visibility, the filter compiled by
// records/query, readable and selected fields, attachment links) narrowed to one id, for the
// changes sent to realtime subscribers (D53).
#include <string>
#include <vector>

#include "db/dialect.hpp"
#include "records/query/filter.hpp"
#include "records/record_service.hpp"
#include "records/record_writes.hpp"
#include "records/selected_fields.hpp"

namespace cairn::records {

Result<std::optional<std::string>> RecordService::ReadAsSubscriber(
    const config::Table& table, std::string_view role, std::int64_t id,
    const std::optional<std::string>& filter, const std::optional<std::string>& fields) {
  const access::TableAccess& access = access_.For(table, role);
  if (!access.Can(access::Action::kRead)) return detail::TableNotFound();
  const RecordReader& reader = ReaderOf(table);
  std::string where = " WHERE \"id\" = ? AND \"deleted_at\" IS NULL";
  std::vector<db::Value> params{id};
  if (filter) {
    CAIRN_ASSIGN_OR_RETURN(query::Condition condition,
                           query::CompileFilter(*filter, table, access, database_.dialect()));
    if (!condition.sql.empty()) {
      where += " AND (" + condition.sql + ")";
      for (db::Value& value : condition.params) params.push_back(std::move(value));
    }
  }
  const std::vector<const config::Field*> selected =
      fields ? detail::SelectedFields(access, *fields) : access.ReadableFields();
  std::string record;
  CAIRN_TRY(database_.Transaction(db::Access::kRead, [&](db::Connection& connection) -> Status {
    record.clear();
    CAIRN_TRY(connection.Execute(
        "SELECT " + reader.columns_sql() + " FROM " + reader.table_sql() + where, params,
        [&](const db::Row& row) { reader.AppendRecord(row, &selected, record, nullptr); }));
    return {};
  }));
  if (record.empty()) return std::optional<std::string>();
  return std::optional<std::string>(std::move(record));
}

Result<std::optional<bool>> RecordService::MatchesAsSubscriber(const config::Table& table,
                                                               std::string_view role,
                                                               std::int64_t id,
                                                               const std::string& filter) {
  const access::TableAccess& access = access_.For(table, role);
  if (!access.Can(access::Action::kRead)) return detail::TableNotFound();
  const RecordReader& reader = ReaderOf(table);
  CAIRN_ASSIGN_OR_RETURN(query::Condition condition,
                         query::CompileFilter(filter, table, access, database_.dialect()));
  // One row per id: whether it exists, and whether the filter lets it through.
  std::string matches =
      condition.sql.empty() ? "1" : "CASE WHEN " + condition.sql + " THEN 1 ELSE 0 END";
  std::vector<db::Value> params = std::move(condition.params);
  params.emplace_back(id);
  std::optional<bool> matched;
  CAIRN_TRY(database_.Transaction(db::Access::kRead, [&](db::Connection& connection) -> Status {
    matched.reset();
    CAIRN_TRY(connection.Execute(
        "SELECT " + matches + " FROM " + reader.table_sql() + " WHERE \"id\" = ?", params,
        [&](const db::Row& row) { matched = row.GetInt64(0) == 1; }));
    return {};
  }));
  return matched;
}

}  // namespace cairn::records
