// Reading the activity log: the admin list with its filters, one entry in full, and the history
// of one record. Each read is one read transaction (the count and the page agree).
#include <string>
#include <vector>

#include "activity/activity.hpp"
#include "activity/limits.hpp"

namespace cairn::activity {
namespace {

// The record events a record's history shows (D35).
constexpr std::string_view kRecordActionsSql =
    R"( AND a."action" IN ('create', 'update', 'delete', 'restore', 'permanent_delete'))";

// Column positions of the summary part every read selects.
enum Column : int {
  kId = 0,
  kAction,
  kTableName,
  kRecordId,
  kCreatedAt,
  kUserId,
  kUserName,
  kUserEmail,
  kSummaryColumns,  // what follows depends on the read
};

// `SELECT <summary columns>` plus `extra` columns, FROM the log (joined to its actors' accounts
// when they can be).
std::string SelectSql(Actors actors, std::string_view extra_columns) {
  std::string sql = R"(SELECT a."id", a."action", a."table_name", a."record_id", a."created_at", )";
  sql += actors == Actors::kJoinAuthUsers ? R"(u."id", u."name", u."email")"
                                          : R"(a."user_id", NULL, NULL)";
  sql += extra_columns;
  sql += R"( FROM "_cairn_activity" a)";
  if (actors == Actors::kJoinAuthUsers) {
    // LEFT: an entry whose actor is gone (or was nobody) stays, with no user (D50 rule 2).
    sql += R"( LEFT JOIN "_cairn_auth_users" u ON u."id" = a."user_id")";
  }
  return sql;
}

std::optional<std::string> OptionalText(const db::Row& row, int column) {
  if (row.IsNull(column)) return std::nullopt;
  return std::string(row.GetText(column));
}

ActivityItem ReadItem(const db::Row& row) {
  ActivityItem item;
  item.id = row.GetInt64(kId);
  item.action = std::string(row.GetText(kAction));
  item.table_name = OptionalText(row, kTableName);
  if (!row.IsNull(kRecordId)) item.record_id = row.GetInt64(kRecordId);
  item.created_at = row.GetInt64(kCreatedAt);
  item.user_id = OptionalText(row, kUserId);
  item.user_name = OptionalText(row, kUserName);
  item.user_email = OptionalText(row, kUserEmail);
  return item;
}

// ` WHERE …` for the list's filters (empty when there are none), with their values.
std::string WhereSql(const ActivityQuery& query, std::vector<db::Value>& params) {
  std::string where;
  const auto add = [&](std::string_view condition, db::Value value) {
    where += where.empty() ? " WHERE " : " AND ";
    where += condition;
    params.push_back(std::move(value));
  };
  if (query.table_name) add(R"(a."table_name" = ?)", std::string_view(*query.table_name));
  if (query.action) add(R"(a."action" = ?)", std::string_view(*query.action));
  if (query.user_id) add(R"(a."user_id" = ?)", std::string_view(*query.user_id));
  if (query.from_millis) add(R"(a."created_at" >= ?)", *query.from_millis);
  if (query.to_millis) add(R"(a."created_at" <= ?)", *query.to_millis);
  return where;
}

Error OutOfRange(std::string_view parameter, std::string message) {
  return Error::Validation("Invalid query parameter",
                           {{std::string(parameter), std::move(message)}});
}

// Newest first; the id breaks ties between entries of the same millisecond.
constexpr std::string_view kNewestFirst = R"( ORDER BY a."created_at" DESC, a."id" DESC)";

}  // namespace

Result<ActivityPage> ListActivity(db::Database& database, const ActivityQuery& query,
                                  Actors actors) {
  if (query.page < 1) return OutOfRange("page", "must be an integer of at least 1");
  if (query.page_size < 1 || query.page_size > kMaxPageSize) {
    return OutOfRange("pageSize", "must be an integer from 1 to " + std::to_string(kMaxPageSize));
  }
  std::vector<db::Value> params;
  const std::string where = WhereSql(query, params);
  std::string sql = SelectSql(actors, {});
  sql.append(where).append(kNewestFirst).append(" LIMIT ? OFFSET ?");
  std::vector<db::Value> page_params = params;
  page_params.emplace_back(static_cast<std::int64_t>(query.page_size));
  page_params.emplace_back(static_cast<std::int64_t>(query.page - 1) * query.page_size);

  ActivityPage page;
  CAIRN_TRY(database.Transaction(db::Access::kRead, [&](db::Connection& connection) -> Status {
    CAIRN_TRY(connection.Execute(R"(SELECT COUNT(*) FROM "_cairn_activity" a)" + where, params,
                                 [&](const db::Row& row) { page.total = row.GetInt64(0); }));
    // Past the last page there is nothing to read.
    if (static_cast<std::int64_t>(query.page - 1) * query.page_size >= page.total) return {};
    page.entries.reserve(static_cast<std::size_t>(query.page_size));
    CAIRN_TRY(connection.Execute(
        sql, page_params, [&](const db::Row& row) { page.entries.push_back(ReadItem(row)); }));
    return {};
  }));
  return page;
}

Result<std::optional<ActivityDetail>> GetActivity(db::Database& database, std::int64_t id,
                                                  Actors actors) {
  std::string sql =
      SelectSql(actors, R"(, a."changes", a."ip_address", a."user_agent", a."metadata")");
  sql += R"( WHERE a."id" = ?)";
  std::optional<ActivityDetail> detail;
  CAIRN_TRY(database.Transaction(db::Access::kRead, [&](db::Connection& connection) -> Status {
    CAIRN_TRY(connection.Execute(sql, {id}, [&](const db::Row& row) {
      ActivityDetail found;
      found.item = ReadItem(row);
      found.item.changes_json = OptionalText(row, kSummaryColumns);
      found.ip_address = OptionalText(row, kSummaryColumns + 1);
      found.user_agent = OptionalText(row, kSummaryColumns + 2);
      found.metadata_json = OptionalText(row, kSummaryColumns + 3);
      detail = std::move(found);
    }));
    return {};
  }));
  return detail;
}

Result<ActivityPage> ListRecordHistory(db::Database& database, std::string_view table_name,
                                       std::int64_t record_id, int limit, int offset,
                                       Actors actors) {
  if (limit < 0) return OutOfRange("limit", "must not be negative");
  if (offset < 0) return OutOfRange("offset", "must not be negative");
  std::string where = R"( WHERE a."table_name" = ? AND a."record_id" = ?)";
  where += kRecordActionsSql;
  std::string sql = SelectSql(actors, R"(, a."changes")");
  sql.append(where).append(kNewestFirst).append(" LIMIT ? OFFSET ?");
  ActivityPage page;
  CAIRN_TRY(database.Transaction(db::Access::kRead, [&](db::Connection& connection) -> Status {
    CAIRN_TRY(connection.Execute(R"(SELECT COUNT(*) FROM "_cairn_activity" a)" + where,
                                 {table_name, record_id},
                                 [&](const db::Row& row) { page.total = row.GetInt64(0); }));
    if (limit == 0 || offset >= page.total) return {};
    CAIRN_TRY(connection.Execute(sql,
                                 {table_name, record_id, static_cast<std::int64_t>(limit),
                                  static_cast<std::int64_t>(offset)},
                                 [&](const db::Row& row) {
                                   ActivityItem item = ReadItem(row);
                                   item.changes_json = OptionalText(row, kSummaryColumns);
                                   page.entries.push_back(std::move(item));
                                 }));
    return {};
  }));
  return page;
}

}  // namespace cairn::activity
