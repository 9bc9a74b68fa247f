// Batch operations and upsert of RecordService (D33, D34): every item is checked first, then
// all are written in one transaction, so one bad item writes nothing.
#include <charconv>
#include <unordered_map>

#include "activity/activity.hpp"
#include "common/time.hpp"
#include "db/live_row_counts.hpp"
#include "records/comment_service.hpp"
#include "records/limits.hpp"
#include "records/pending_changes.hpp"
#include "records/record_service.hpp"
#include "records/record_writes.hpp"
#include "schema/physical_model.hpp"

namespace cairn::records {
namespace {

using access::Action;
using namespace detail;

std::string Indexed(std::string_view name, std::size_t index) {
  return std::string(name) + "[" + std::to_string(index) + "]";
}

// The array member `name` of the body, within the batch limit.
Result<const boost::json::array*> BatchItems(const boost::json::value& body,
                                             std::string_view name) {
  const auto* items = body.is_object() ? body.get_object().if_contains(name) : nullptr;
  if (items == nullptr || !items->is_array() || items->get_array().empty()) {
    return Error::Validation("Invalid batch", {{std::string(name), "must be a non-empty array"}});
  }
  if (items->get_array().size() > kMaxBatchItems) {
    return Error::PayloadTooLarge("A batch holds at most " + std::to_string(kMaxBatchItems) +
                                  " items; this one has " +
                                  std::to_string(items->get_array().size()));
  }
  return &items->get_array();
}

// A record id on the wire: "7" or 7.
std::optional<std::int64_t> RecordId(const boost::json::value& value) {
  if (value.is_int64() && value.get_int64() > 0) return value.get_int64();
  if (value.is_uint64() && value.get_uint64() <= INT64_MAX && value.get_uint64() > 0) {
    return static_cast<std::int64_t>(value.get_uint64());
  }
  if (!value.is_string()) return std::nullopt;
  const std::string_view text = value.get_string();
  std::int64_t id = 0;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), id);
  if (ec != std::errc() || end != text.data() + text.size() || id < 1) return std::nullopt;
  return id;
}

Result<std::vector<std::int64_t>> BatchIds(const boost::json::value& body) {
  CAIRN_ASSIGN_OR_RETURN(const boost::json::array* items, BatchItems(body, "ids"));
  std::vector<std::int64_t> ids;
  std::vector<FieldError> errors;
  for (std::size_t i = 0; i < items->size(); ++i) {
    if (auto id = RecordId((*items)[i])) {
      ids.push_back(*id);
    } else {
      errors.push_back({Indexed("ids", i), "must be a record id"});
    }
  }
  if (!errors.empty()) return Error::Validation("Invalid batch", std::move(errors));
  return ids;
}

// Where an item's error points: a 404 or 409 for item i carries its path.
Error AtItem(Error error, std::string path) {
  if (error.errors.empty()) error.errors.push_back({std::move(path), error.message});
  return error;
}

}  // namespace

Result<std::string> RecordService::CreateMany(const config::Table& table, const Actor& actor,
                                              const boost::json::value& body,
                                              const json::NumberTexts& numbers) {
  const access::TableAccess& access = access_.For(table, actor.role);
  if (!access.Can(Action::kRead)) return TableNotFound();
  if (!access.Can(Action::kCreate)) return Denied("create");
  CAIRN_ASSIGN_OR_RETURN(const boost::json::array* items, BatchItems(body, "records"));
  std::vector<std::vector<FieldWrite>> all_writes;
  all_writes.reserve(items->size());
  std::vector<FieldError> errors;
  const RequestFiles files(files_);
  for (std::size_t i = 0; i < items->size(); ++i) {
    const std::string path = Indexed("records", i) + ".fields";
    const auto& item = (*items)[i];
    const auto* fields = item.is_object() ? item.get_object().if_contains("fields") : nullptr;
    auto writes =
        ParseFieldWrites(table, access, fields, numbers, WriteKind::kCreate, path, files.get());
    if (!writes.ok()) {
      if (writes.error().code != ErrorCode::kValidation) return std::move(writes).error();
      for (auto& error : writes.error().errors) errors.push_back(std::move(error));
      continue;
    }
    all_writes.push_back(std::move(writes).value());
  }
  if (!errors.empty()) return Error::Validation("Invalid batch", std::move(errors));
  const RecordReader& reader = ReaderOf(table);
  std::string records = "[";
  PendingChanges changes(changes_);
  CAIRN_TRY(UniqueAsValidation(
      database_.Transaction(
          db::Access::kWrite,
          [&](db::Connection& connection) -> Status {
            records.resize(1);  // a retried transaction starts over
            changes.Reset();
            return connection.dialect().live_row_counts().WithDeferred(connection, [&]() -> Status {
              for (std::size_t i = 0; i < all_writes.size(); ++i) {
                CAIRN_TRY(CheckReferences(connection, config_, access_, actor.role, all_writes[i],
                                          Indexed("records", i) + ".fields"));
              }
              CAIRN_ASSIGN_OR_RETURN(std::vector<Snapshot> created,
                                     InsertRecords(connection, reader, access, actor, all_writes));
              std::vector<activity::ActivityEntry> entries;
              entries.reserve(created.size());
              for (const Snapshot& record : created) {
                if (records.size() > 1) records.push_back(',');
                records += record.record_json;
                changes.Add(table, ChangeKind::kInsert, record.id);
                entries.push_back(ChangeEntry(table, actor, "create", record.id,
                                              Changes({}, record.fields_json)));
              }
              return activity::RecordActivities(connection, entries);
            });
          }),
      "records"));
  changes.Publish();
  return R"({"created":)" + std::to_string(all_writes.size()) + R"(,"records":)" + records + "]}";
}

Result<std::string> RecordService::UpdateMany(const config::Table& table, const Actor& actor,
                                              const boost::json::value& body,
                                              const json::NumberTexts& numbers) {
  const access::TableAccess& access = access_.For(table, actor.role);
  if (!access.Can(Action::kRead)) return TableNotFound();
  CAIRN_ASSIGN_OR_RETURN(const boost::json::array* items, BatchItems(body, "records"));
  struct Item {
    std::int64_t id;
    std::vector<FieldWrite> writes;
    std::optional<std::int64_t> expected_updated_at;
  };
  std::vector<Item> parsed;
  std::vector<FieldError> errors;
  const RequestFiles files(files_);
  for (std::size_t i = 0; i < items->size(); ++i) {
    const std::string path = Indexed("records", i);
    const auto* object = (*items)[i].is_object() ? &(*items)[i].get_object() : nullptr;
    const auto* id_value = object ? object->if_contains("id") : nullptr;
    const auto id = id_value ? RecordId(*id_value) : std::nullopt;
    if (!id) {
      errors.push_back({path + ".id", "must be a record id"});
      continue;
    }
    Item item{*id, {}, {}};
    if (const auto* stamp = object->if_contains("updatedAt")) {
      item.expected_updated_at =
          stamp->is_string() ? time::ParseIso(stamp->get_string()) : std::nullopt;
      if (!item.expected_updated_at) {
        errors.push_back({path + ".updatedAt", "must be the record's updatedAt timestamp"});
      }
    }
    auto writes = ParseFieldWrites(table, access, object->if_contains("fields"), numbers,
                                   WriteKind::kUpdate, path + ".fields", files.get());
    if (!writes.ok()) {
      if (writes.error().code != ErrorCode::kValidation) return std::move(writes).error();
      for (auto& error : writes.error().errors) errors.push_back(std::move(error));
      continue;
    }
    item.writes = std::move(writes).value();
    parsed.push_back(std::move(item));
  }
  if (!errors.empty()) return Error::Validation("Invalid batch", std::move(errors));
  std::vector<std::int64_t> item_ids;
  item_ids.reserve(parsed.size());
  for (const Item& item : parsed) item_ids.push_back(item.id);
  const RecordReader& reader = ReaderOf(table);
  std::string records = "[";
  PendingChanges changes(changes_);
  CAIRN_TRY(UniqueAsValidation(
      database_.Transaction(
          db::Access::kWrite,
          [&](db::Connection& connection) -> Status {
            records.resize(1);
            changes.Reset();
            return connection.dialect().live_row_counts().WithDeferred(connection, [&]() -> Status {
              std::vector<activity::ActivityEntry> entries;  // written together at the end
              entries.reserve(parsed.size());
              CAIRN_ASSIGN_OR_RETURN(auto current,
                                     ReadSnapshots(connection, reader, access, item_ids));
              for (std::size_t i = 0; i < parsed.size(); ++i) {
                const Item& item = parsed[i];
                Snapshot& before = current[item.id];  // an id of no record: not found
                if (!before.found || before.deleted) {
                  return AtItem(RecordNotFound(), Indexed("records", i) + ".id");
                }
                if (!access.Can(Action::kUpdate)) return Denied("update");
                if (item.expected_updated_at && *item.expected_updated_at != before.updated_at) {
                  return AtItem(Error::Conflict("A record was changed since it was read"),
                                Indexed("records", i) + ".updatedAt");
                }
                CAIRN_TRY(CheckReferences(connection, config_, access_, actor.role, item.writes,
                                          Indexed("records", i) + ".fields"));
                CAIRN_ASSIGN_OR_RETURN(Snapshot after,
                                       UpdateRecord(connection, reader, access, actor, item.id,
                                                    item.writes, before.updated_at));
                if (records.size() > 1) records.push_back(',');
                records += after.record_json;
                changes.Add(table, ChangeKind::kUpdate, item.id, before.fields_json);
                entries.push_back(ChangeEntry(table, actor, "update", item.id,
                                              Changes(before.fields_json, after.fields_json)));
                before = std::move(after);  // a later item for the same record starts here
              }
              return activity::RecordActivities(connection, entries);
            });
          }),
      "records"));
  changes.Publish();
  return R"({"updated":)" + std::to_string(parsed.size()) + R"(,"records":)" + records + "]}";
}

Result<std::string> RecordService::DeleteMany(const config::Table& table, const Actor& actor,
                                              const boost::json::value& body) {
  const access::TableAccess& access = access_.For(table, actor.role);
  if (!access.Can(Action::kRead)) return TableNotFound();
  CAIRN_ASSIGN_OR_RETURN(auto ids, BatchIds(body));
  const auto* permanent_value = body.get_object().if_contains("permanent");
  if (permanent_value && !permanent_value->is_bool()) {
    return Error::Validation("Invalid batch", {{"permanent", "must be true or false"}});
  }
  const bool permanent = permanent_value && permanent_value->get_bool();
  const RecordReader& reader = ReaderOf(table);
  PendingChanges changes(changes_);
  CAIRN_TRY(database_.Transaction(db::Access::kWrite, [&](db::Connection& connection) -> Status {
    changes.Reset();
    return connection.dialect().live_row_counts().WithDeferred(connection, [&]() -> Status {
      std::vector<activity::ActivityEntry> entries;  // written together at the end
      entries.reserve(ids.size());
      // Soft deletes read every record at once and trash them at once; a purge can cascade to
      // other items, so each of those is read just before it goes.
      std::unordered_map<std::int64_t, Snapshot> current;
      if (!permanent) {
        CAIRN_ASSIGN_OR_RETURN(current, ReadSnapshots(connection, reader, access, ids));
      }
      std::vector<std::int64_t> trashed;
      trashed.reserve(permanent ? 0 : ids.size());
      for (std::size_t i = 0; i < ids.size(); ++i) {
        if (permanent) {
          CAIRN_ASSIGN_OR_RETURN(current[ids[i]],
                                 ReadSnapshot(connection, reader, access, ids[i], true));
        }
        Snapshot& before = current[ids[i]];  // an id of no record: not found
        if (!before.found || (before.deleted && !permanent)) {
          return AtItem(RecordNotFound(), Indexed("ids", i));
        }
        if (!access.Can(permanent ? Action::kPermanentDelete : Action::kDelete)) {
          return Denied(permanent ? "permanently delete" : "delete");
        }
        // A record already in the trash was visible to no subscriber: its purge is no event.
        if (!before.deleted) changes.Add(table, ChangeKind::kDelete, ids[i], before.fields_json);
        if (permanent) {
          CAIRN_TRY(PurgeRow(connection, reader, ids[i]));
          CAIRN_TRY(DeleteCommentsOf(connection, table.name, ids[i]));
        } else {
          trashed.push_back(ids[i]);
          before.deleted = true;  // the same id again is a record already in the trash
        }
        entries.push_back(ChangeEntry(table, actor, permanent ? "permanent_delete" : "delete",
                                      ids[i], Changes(before.fields_json, {})));
      }
      CAIRN_TRY(SoftDeleteRows(connection, reader, actor, trashed));
      return activity::RecordActivities(connection, entries);
    });
  }));
  changes.Publish();
  return R"({"deleted":)" + std::to_string(ids.size()) + "}";
}

Result<std::string> RecordService::RestoreMany(const config::Table& table, const Actor& actor,
                                               const boost::json::value& body) {
  const access::TableAccess& access = access_.For(table, actor.role);
  if (!access.Can(Action::kRead)) return TableNotFound();
  CAIRN_ASSIGN_OR_RETURN(auto ids, BatchIds(body));
  const RecordReader& reader = ReaderOf(table);
  PendingChanges changes(changes_);
  CAIRN_TRY(database_.Transaction(db::Access::kWrite, [&](db::Connection& connection) -> Status {
    changes.Reset();
    return connection.dialect().live_row_counts().WithDeferred(connection, [&]() -> Status {
      std::vector<activity::ActivityEntry> entries;  // written together at the end
      entries.reserve(ids.size());
      CAIRN_ASSIGN_OR_RETURN(auto current, ReadSnapshots(connection, reader, access, ids));
      for (std::size_t i = 0; i < ids.size(); ++i) {
        Snapshot& before = current[ids[i]];  // an id of no record: not found
        if (!before.found) return AtItem(RecordNotFound(), Indexed("ids", i));
        if (!access.Can(Action::kRestore)) return Denied("restore");
        if (!before.deleted) {
          return Error::Validation("Invalid batch", {{Indexed("ids", i), "is not in the trash"}});
        }
        CAIRN_TRY(RestoreRow(connection, reader, actor, ids[i], before.updated_at));
        CAIRN_ASSIGN_OR_RETURN(Snapshot after,
                               ReadSnapshot(connection, reader, access, ids[i], false));
        changes.Add(table, ChangeKind::kInsert, ids[i]);
        entries.push_back(
            ChangeEntry(table, actor, "restore", ids[i], Changes({}, after.fields_json)));
        before = std::move(after);  // the same id again is a record no longer in the trash
      }
      return activity::RecordActivities(connection, entries);
    });
  }));
  changes.Publish();
  return R"({"restored":)" + std::to_string(ids.size()) + "}";
}

}  // namespace cairn::records
