// The retention purge of the trash (ECO_RETENTION_PURGE_DAYS, D19a): the permanent-delete path
// of record_service.cpp, run by the purge job with nobody as the actor.
#include <vector>

#include "access/table_access.hpp"
#include "activity/activity.hpp"
#include "records/comment_service.hpp"
#include "records/record_service.hpp"
#include "records/record_writes.hpp"

namespace cairn::records {

using namespace detail;

Status RecordService::PurgeTrash(db::Connection& connection, const config::Table& table,
                                 std::int64_t deleted_before, int limit, TrashPurge& progress) {
  const RecordReader& reader = ReaderOf(table);
  // The snapshot in the activity entry holds every field whoever reads it later (D21 strips
  // fields per reader), so the admin's view reads them all.
  const access::TableAccess& access = access_.For(table, access::kAdminRole);
  const db::Value cutoff = db::Timestamp{deleted_before};
  std::vector<std::int64_t> ids;
  CAIRN_TRY(
      connection.Execute("SELECT \"id\" FROM " + reader.table_sql() +
                             " WHERE \"deleted_at\" < ? AND \"id\" > ? ORDER BY \"id\" LIMIT ?",
                         {cutoff, progress.last_id, static_cast<std::int64_t>(limit)},
                         [&](const db::Row& row) { ids.push_back(row.GetInt64(0)); }));
  progress.examined = static_cast<std::int64_t>(ids.size());
  progress.purged = 0;
  std::vector<activity::ActivityEntry> entries;
  for (const std::int64_t id : ids) {
    progress.last_id = id;
    CAIRN_ASSIGN_OR_RETURN(Snapshot before, ReadSnapshot(connection, reader, access, id, true));
    if (!before.found || !before.deleted) continue;  // restored meanwhile
    // Still in the trash since before the horizon (a restore and a new delete move deleted_at).
    CAIRN_ASSIGN_OR_RETURN(std::int64_t removed,
                           connection.Execute("DELETE FROM " + reader.table_sql() +
                                                  " WHERE \"id\" = ? AND \"deleted_at\" < ?",
                                              {id, cutoff}));
    if (removed == 0) continue;
    CAIRN_TRY(DeleteCommentsOf(connection, table.name, id));
    activity::ActivityEntry entry =
        ChangeEntry(table, Actor{}, "permanent_delete", id, Changes(before.fields_json, {}));
    entry.metadata_json = R"({"reason":"retention"})";
    entries.push_back(std::move(entry));
    ++progress.purged;
  }
  return activity::RecordActivities(connection, entries);
}

}  // namespace cairn::records
