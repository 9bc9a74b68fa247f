// Writing the activity log inside the caller's transaction: one row per event, many rows per
// INSERT for batches.
#include <algorithm>
#include <stdexcept>
#include <vector>

#include "activity/activity.hpp"
#include "activity/limits.hpp"
#include "common/time.hpp"

namespace cairn::activity {
namespace {

// Absent and empty text both become NULL; `limit` cuts overlong text (0: no limit).
db::Value Text(const std::optional<std::string>& text, std::size_t limit = 0) {
  if (!text || text->empty()) return db::Null{};
  std::string_view view(*text);
  if (limit > 0 && view.size() > limit) {
    view = view.substr(0, limit);
    // Never end inside a UTF-8 sequence: drop continuation bytes and the lead byte before them.
    while (!view.empty() && (static_cast<unsigned char>(view.back()) & 0xC0) == 0x80) {
      view.remove_suffix(1);
    }
    if (!view.empty() && static_cast<unsigned char>(view.back()) >= 0xC0) view.remove_suffix(1);
  }
  return view;
}

constexpr std::string_view kInsert =
    R"(INSERT INTO "_cairn_activity" ("action", "table_name", "record_id", "user_id", )"
    R"("created_at", "changes", "ip_address", "user_agent", "metadata") VALUES )";
constexpr std::string_view kRow = "(?, ?, ?, ?, ?, ?, ?, ?, ?)";
// Rows per INSERT: 9 values each stays far below both databases' parameter limits.
constexpr std::size_t kRowsPerStatement = 250;

void AppendParams(const ActivityEntry& entry, std::int64_t now, std::vector<db::Value>& params) {
  // An entry without an action is a programming error, not input to refuse.
  if (entry.action.empty()) throw std::invalid_argument("activity entry without an action");
  params.emplace_back(std::string_view(entry.action));
  params.push_back(Text(entry.table_name));
  params.push_back(entry.record_id ? db::Value(*entry.record_id) : db::Value(db::Null{}));
  params.push_back(Text(entry.user_id));
  params.emplace_back(now);
  params.push_back(Text(entry.changes_json));
  params.push_back(Text(entry.ip_address, kMaxIpAddressLength));
  params.push_back(Text(entry.user_agent, kMaxUserAgentLength));
  params.push_back(Text(entry.metadata_json));
}

}  // namespace

Status RecordActivity(db::Connection& connection, const ActivityEntry& entry) {
  return RecordActivities(connection, std::span<const ActivityEntry>(&entry, 1));
}

Status RecordActivities(db::Connection& connection, std::span<const ActivityEntry> entries) {
  const std::int64_t now = time::NowMillis();
  std::vector<db::Value> params;
  std::string sql;
  for (std::size_t first = 0; first < entries.size(); first += kRowsPerStatement) {
    const auto chunk = entries.subspan(first, std::min(kRowsPerStatement, entries.size() - first));
    params.clear();
    params.reserve(chunk.size() * 9);
    sql.assign(kInsert);
    for (std::size_t i = 0; i < chunk.size(); ++i) {
      if (i > 0) sql += ", ";
      sql += kRow;
      AppendParams(chunk[i], now, params);
    }
    CAIRN_TRY(connection.Execute(sql, params));
  }
  return {};
}

Status ForgetActor(db::Connection& connection, std::string_view user_id) {
  CAIRN_TRY(connection.Execute(
      // Where the person acted from is theirs too: the address and user agent go with the id.
      R"(UPDATE "_cairn_activity" SET "user_id" = NULL, "ip_address" = NULL, "user_agent" = NULL )"
      R"(WHERE "user_id" = ?)",
      {user_id}));
  return {};
}

}  // namespace cairn::activity
