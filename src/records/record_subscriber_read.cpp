// RecordService::ReadAsSubscriber and MatchesAsSubscriber: the read path of a list (visibility,
// the filter compiled by records/query, readable and selected fields, attachment links)
// narrowed to the ids of a dispatch round's changes, for the messages sent to realtime
// subscribers (D53).
#include <string>
#include <vector>

#include "db/dialect.hpp"
#include "records/id_chunks.hpp"
#include "records/query/filter.hpp"
#include "records/record_service.hpp"
#include "records/record_writes.hpp"
#include "records/selected_fields.hpp"

namespace cairn::records {
namespace {

// A select-list column: 1 when `condition` lets the row through, else 0. Conditions go in the
// select list, never in WHERE: with only the ids there the primary key drives the read however
// stale the planner's statistics are (with `"deleted_at" IS NULL` in WHERE, PostgreSQL took the
// deleted_at index on a fast-growing table and read every live row for each round).
std::string MatchColumn(const query::Condition& condition) {
  return condition.sql.empty() ? "1" : "CASE WHEN " + condition.sql + " THEN 1 ELSE 0 END";
}

}  // namespace

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
  const std::string select = "SELECT " + reader.columns_sql() + ", " + MatchColumn(condition) +
                             " FROM " + reader.table_sql() + " WHERE ";
  CAIRN_TRY(database_.Transaction(db::Access::kRead, [&](db::Connection& connection) -> Status {
    records.clear();
    return ForIdChunks(
        connection, select, "", condition.params, ids,
        [&](const db::Row& row) {
          const bool live = row.IsNull(RecordReader::kDeletedAtColumn);
          if (!live || row.GetInt64(row.ColumnCount() - 1) != 1) return;
          std::string& record = records[row.GetInt64(RecordReader::kIdColumn)];
          reader.AppendRecord(row, &selected, record, nullptr);
        },
        kSubscriberReadChunk);
  }));
  return records;
}

Result<RecordService::SubscriberMatches> RecordService::MatchesAsSubscriber(
    const config::Table& table, std::string_view role, std::span<const std::int64_t> ids,
    const std::string& filter) {
  const access::TableAccess& access = access_.For(table, role);
  if (!access.Can(access::Action::kRead)) return detail::TableNotFound();
  const RecordReader& reader = ReaderOf(table);
  CAIRN_ASSIGN_OR_RETURN(query::Condition condition,
                         query::CompileFilter(filter, table, access, database_.dialect()));
  // One row per id still stored: whether the filter lets it through.
  SubscriberMatches matched;
  if (ids.empty()) return matched;
  const std::string select =
      "SELECT \"id\", " + MatchColumn(condition) + " FROM " + reader.table_sql() + " WHERE ";
  CAIRN_TRY(database_.Transaction(db::Access::kRead, [&](db::Connection& connection) -> Status {
    matched.clear();
    return ForIdChunks(
        connection, select, "", condition.params, ids,
        [&](const db::Row& row) { matched[row.GetInt64(0)] = row.GetInt64(1) == 1; },
        kSubscriberReadChunk);
  }));
  return matched;
}

}  // namespace cairn::records
