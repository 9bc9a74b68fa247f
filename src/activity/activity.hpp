// The activity log (audit trail, D50): immutable entries for record changes, auth events and
// admin actions, written inside the transaction of the change they describe and read by admins
// through /api/activity. No HTTP types here; api/activity_api.cpp maps them onto the wire.
//
// Entries never hold passwords or tokens: callers put ids, roles and reasons in `metadata`.
// The actor is a user id; reads join the user's name and email from the auth tables, and when
// the account is erased the reference is nulled (ForgetActor) while the entry stays (D50 rules
// 2 and 3).
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "activity/limits.hpp"
#include "common/result.hpp"
#include "db/database.hpp"

namespace cairn::activity {

// One event to record. Empty strings are stored as null.
struct ActivityEntry {
  std::string action;  // create, update, delete, restore, sign_in, user.ban, … (D50)
  std::optional<std::string> table_name;
  std::optional<std::int64_t> record_id;
  std::optional<std::string> user_id;       // the actor; absent for the system
  std::optional<std::string> changes_json;  // {"before":…,"after":…}; valid JSON text
  std::optional<std::string> ip_address;
  std::optional<std::string> user_agent;     // cut to kMaxUserAgentLength
  std::optional<std::string> metadata_json;  // a JSON object; valid JSON text
};

// Writes one entry, stamped now. Call it inside the write transaction of the change it
// describes, so that both commit or neither does.
Status RecordActivity(db::Connection& connection, const ActivityEntry& entry);
// The same for many entries (a batch's), a few hundred rows per statement.
Status RecordActivities(db::Connection& connection, std::span<const ActivityEntry> entries);

// Nulls the actor reference of every entry by `user_id` (the account is being erased), with the
// address and user agent it acted from; the entries themselves stay. Call it inside the transaction
// that deletes the user.
Status ForgetActor(db::Connection& connection, std::string_view user_id);

// --- Reading ------------------------------------------------------------------------------------

// Where actor names come from. kJoinAuthUsers needs the auth tables, which exist only when the
// config has an `auth` section; kIdsOnly reads the stored ids alone (no name, no email).
enum class Actors { kJoinAuthUsers, kIdsOnly };

struct ActivityItem {
  std::int64_t id = 0;
  std::string action;
  std::optional<std::string> table_name;
  std::optional<std::int64_t> record_id;
  std::int64_t created_at = 0;  // epoch millis
  // The actor. With kJoinAuthUsers all three are present together, or absent when nobody acted
  // (the system) or the account is gone; with kIdsOnly only user_id is read.
  std::optional<std::string> user_id;
  std::optional<std::string> user_name;
  std::optional<std::string> user_email;
  std::optional<std::string> changes_json;  // filled by GetActivity and ListRecordHistory
};

struct ActivityDetail {
  ActivityItem item;
  std::optional<std::string> ip_address;
  std::optional<std::string> user_agent;
  std::optional<std::string> metadata_json;
};

// Filters of the list (D50). Every filter given must hold; times are inclusive bounds.
struct ActivityQuery {
  int page = 1;                             // from 1
  int page_size = kDefaultPageSize;         // 1 to kMaxPageSize
  std::optional<std::string> table_name;    // exact table name
  std::optional<std::string> action;        // exact action
  std::optional<std::string> user_id;       // the actor
  std::optional<std::int64_t> from_millis;  // created at or after
  std::optional<std::int64_t> to_millis;    // created at or before
};

struct ActivityPage {
  std::vector<ActivityItem> entries;  // newest first
  std::int64_t total = 0;             // entries matching the filters, all pages
};

// The page of entries matching `query`, newest first. A page past the end is empty (with the
// real total). A page or page size out of range is a 400 naming `page` or `pageSize`.
Result<ActivityPage> ListActivity(db::Database& database, const ActivityQuery& query,
                                  Actors actors = Actors::kJoinAuthUsers);
// One entry with everything it holds, or nothing when no entry has this id.
Result<std::optional<ActivityDetail>> GetActivity(db::Database& database, std::int64_t id,
                                                  Actors actors = Actors::kJoinAuthUsers);
// The record events (create, update, delete, restore, permanent_delete) of one record, newest
// first, with their changes (D35).
Result<ActivityPage> ListRecordHistory(db::Database& database, std::string_view table_name,
                                       std::int64_t record_id, int limit, int offset,
                                       Actors actors = Actors::kJoinAuthUsers);

}  // namespace cairn::activity
