// RecordService::ReadAsSubscriber: the read path of a list (visibility, the filter compiled by
// records/query, readable and selected fields, attachment links) narrowed to the ids of a
// dispatch round's changes, for the messages sent to realtime subscribers (D53).
#include <algorithm>
#include <string>
#include <vector>

#include "db/dialect.hpp"
#include "records/query/filter.hpp"
#include "records/record_service.hpp"
#include "records/record_writes.hpp"
#include "records/selected_fields.hpp"

namespace cairn::records {

Result<RecordService::SubscriberRecords> RecordService::ReadAsSubscriber(
    const config::Table& table, std::string_view role, std::span<const std::int64_t> ids,
    const std::optional<std::string>& filter, const std::optional<std::string>& fields) {
  const access::TableAccess& access = access_.For(table, role);
  if (!access.Can(access::Action::kRead)) return detail::TableNotFound();
  const RecordReader& reader = ReaderOf(table);
  query::Condition condition;
  if (filter) {
    CAIRN_ASSIGN_OR_RETURN(condition,
                           query::CompileFilter(*filter, table, access, database_.dialect()));
  }
  const std::vector<const config::Field*> selected =
      fields ? detail::SelectedFields(access, *fields) : access.ReadableFields();
  SubscriberRecords records;
  if (ids.empty()) return records;
  CAIRN_TRY(database_.Transaction(db::Access::kRead, [&](db::Connection& connection) -> Status {
    records.clear();
    for (std::size_t start = 0; start < ids.size(); start += kSubscriberReadChunk) {
      const std::span<const std::int64_t> chunk =
          ids.subspan(start, std::min(kSubscriberReadChunk, ids.size() - start));
      std::string sql =
          "SELECT " + reader.columns_sql() + " FROM " + reader.table_sql() + " WHERE \"id\" IN (";
      std::vector<db::Value> params;
      params.reserve(chunk.size() + condition.params.size());
      for (std::int64_t id : chunk) {
        sql += params.empty() ? "?" : ", ?";
        params.emplace_back(id);
      }
      sql += ") AND \"deleted_at\" IS NULL";
      if (!condition.sql.empty()) {
        sql += " AND (" + condition.sql + ")";
        params.insert(params.end(), condition.params.begin(), condition.params.end());
      }
      CAIRN_TRY(connection.Execute(sql, params, [&](const db::Row& row) {
        std::string& record = records[row.GetInt64(RecordReader::kIdColumn)];
        reader.AppendRecord(row, &selected, record, nullptr);
      }));
    }
    return {};
  }));
  return records;
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
