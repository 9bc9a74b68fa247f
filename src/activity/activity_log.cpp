// Writing the activity log: one INSERT per event, inside the caller's transaction.
#include <stdexcept>

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

}  // namespace

Status RecordActivity(db::Connection& connection, const ActivityEntry& entry) {
  // An entry without an action is a programming error, not input to refuse.
  if (entry.action.empty()) throw std::invalid_argument("activity entry without an action");
  const db::Value record_id = entry.record_id ? db::Value(*entry.record_id) : db::Value(db::Null{});
  CAIRN_TRY(connection.Execute(
      R"(INSERT INTO "_cairn_activity" ("action", "table_name", "record_id", "user_id", )"
      R"("created_at", "changes", "ip_address", "user_agent", "metadata") )"
      R"(VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?))",
      {std::string_view(entry.action), Text(entry.table_name), record_id, Text(entry.user_id),
       time::NowMillis(), Text(entry.changes_json), Text(entry.ip_address, kMaxIpAddressLength),
       Text(entry.user_agent, kMaxUserAgentLength), Text(entry.metadata_json)}));
  return {};
}

Status ForgetActor(db::Connection& connection, std::string_view user_id) {
  CAIRN_TRY(connection.Execute(
      R"(UPDATE "_cairn_activity" SET "user_id" = NULL WHERE "user_id" = ?)", {user_id}));
  return {};
}

}  // namespace cairn::activity
