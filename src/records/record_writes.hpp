// Steps shared by the single and the batch record operations, each run inside the caller's
// write transaction. Internal to records/.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "access/access_index.hpp"
#include "access/table_access.hpp"
#include "activity/activity.hpp"
#include "common/result.hpp"
#include "config/model.hpp"
#include "db/database.hpp"
#include "records/actor.hpp"
#include "records/record_input.hpp"
#include "records/record_reader.hpp"

namespace cairn::records::detail {

Error RecordNotFound();
Error TableNotFound();
Error Denied(std::string_view what);

// The record as it is now, read inside the write transaction (locked on PostgreSQL).
struct Snapshot {
  bool found = false;
  std::int64_t id = 0;
  bool deleted = false;
  std::int64_t updated_at = 0;
  std::string fields_json;  // every field: the activity log's before/after
  std::string record_json;  // the caller's view
  std::string flat_json;    // the caller's view, flat (upsert only: Shape::kWithFlat)
};
enum class Shape { kRecord, kWithFlat };
Result<Snapshot> ReadSnapshot(db::Connection& connection, const RecordReader& reader,
                              const access::TableAccess& access, std::int64_t id, bool for_update,
                              Shape shape = Shape::kRecord);

// ReadSnapshot of many records at once (a few statements however many ids), by id; ids of no
// record have no entry.
Result<std::unordered_map<std::int64_t, Snapshot>> ReadSnapshots(db::Connection& connection,
                                                                 const RecordReader& reader,
                                                                 const access::TableAccess& access,
                                                                 std::span<const std::int64_t> ids);

// `{"before":…,"after":…}`; an empty side is null.
std::string Changes(const std::string& before, const std::string& after);
// The activity entry of one record event (its history, D35), and writing it.
activity::ActivityEntry ChangeEntry(const config::Table& table, const Actor& actor,
                                    std::string_view action, std::int64_t id, std::string changes);
Status LogChange(db::Connection& connection, const config::Table& table, const Actor& actor,
                 std::string_view action, std::int64_t id, std::string changes);
// A unique violation is the caller's mistake: 400 naming the field (D31), not a conflict.
// `path` prefixes the field (`fields`, `records[3].fields`).
Status UniqueAsValidation(Status status, std::string_view path = "fields");

// Relationship values (many-to-one and many-to-many) must name live records of the related
// table that `role` may read (D8): otherwise a 400 naming each such field under `path` and the
// ids that failed. Hidden and missing records answer alike.
Status CheckReferences(db::Connection& connection, const config::AppConfig& config,
                       const access::AccessIndex& access, std::string_view role,
                       const std::vector<FieldWrite>& writes, std::string_view path);

// INSERT with authorship stamps, then the many-to-many links; returns the new record as
// ReadSnapshot would (read back by the INSERT itself when it writes no links).
Result<Snapshot> InsertRecord(db::Connection& connection, const RecordReader& reader,
                              const access::TableAccess& access, const Actor& actor,
                              const std::vector<FieldWrite>& writes, Shape shape = Shape::kRecord);
// InsertRecord of every item, in order: runs of items that write the same fields (and no
// many-to-many links) share one multi-row INSERT, so a batch costs a few statements, not one per
// record.
Result<std::vector<Snapshot>> InsertRecords(db::Connection& connection, const RecordReader& reader,
                                            const access::TableAccess& access, const Actor& actor,
                                            std::span<const std::vector<FieldWrite>> items);
// UPDATE of the given fields plus updated_at (strictly after `previous_updated_at`, so
// optimistic locking always sees a change) and updated_by; many-to-many links written are
// replaced. Returns the record after it, as ReadSnapshot would (read back by the UPDATE itself
// when it writes no links).
Result<Snapshot> UpdateRecord(db::Connection& connection, const RecordReader& reader,
                              const access::TableAccess& access, const Actor& actor,
                              std::int64_t id, const std::vector<FieldWrite>& writes,
                              std::int64_t previous_updated_at, Shape shape = Shape::kRecord);

// The trash: deleted_at/by set on every id (a few statements however many); RestoreRow clears
// them and counts as an update.
Status SoftDeleteRows(db::Connection& connection, const RecordReader& reader, const Actor& actor,
                      std::span<const std::int64_t> ids);
Status RestoreRow(db::Connection& connection, const RecordReader& reader, const Actor& actor,
                  std::int64_t id, std::int64_t previous_updated_at);
// Gone for good (permanent delete).
Status PurgeRow(db::Connection& connection, const RecordReader& reader, std::int64_t id);

}  // namespace cairn::records::detail
