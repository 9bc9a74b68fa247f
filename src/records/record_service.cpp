#include "records/record_service.hpp"

#include <algorithm>

#include <boost/json.hpp>

#include "activity/activity.hpp"
#include "common/json.hpp"
#include "common/time.hpp"
#include "db/dialect.hpp"
#include "records/attachment_links.hpp"
#include "records/comment_service.hpp"
#include "records/pending_changes.hpp"
#include "records/record_input.hpp"
#include "records/record_reader.hpp"
#include "records/record_writes.hpp"
#include "schema/physical_model.hpp"

namespace cairn::records {
namespace {

using access::Action;
using namespace detail;

bool IsAttachment(const config::Field& field) {
  return field.type == config::FieldType::kAttachment ||
         field.type == config::FieldType::kMultipleAttachments;
}

// The stored `fields` of a history entry without the keys the caller may not read (D21), and
// with attachment links when `files` is given (D45: links are minted now, never stored).
void AppendReadable(const config::Table& table, const boost::json::value& fields,
                    const access::TableAccess& access, const AttachmentFiles* files,
                    std::string& out, const std::vector<std::string>* only = nullptr) {
  if (!fields.is_object()) {
    out += "null";
    return;
  }
  out.push_back('{');
  bool first = true;
  for (const auto& [key, value] : fields.get_object()) {
    if (!access.CanReadField(key)) continue;
    if (only != nullptr && std::find(only->begin(), only->end(), key) == only->end()) continue;
    if (!first) out.push_back(',');
    first = false;
    json::AppendString(out, key);
    out.push_back(':');
    const config::Field* field = files != nullptr ? table.FindField(key) : nullptr;
    if (field != nullptr && IsAttachment(*field) && !value.is_null()) {
      AppendAttachmentsWithLinks(value, field->bucket, *files, out);
    } else {
      json::Append(out, value);
    }
  }
  out.push_back('}');
}

}  // namespace

RecordService::RecordService(db::Database& database, const config::AppConfig& config,
                             const access::AccessIndex& access, const AttachmentFiles* files,
                             ChangeSink* changes)
    : database_(database), config_(config), access_(access), files_(files), changes_(changes) {
  for (const config::Table& table : config.tables) {
    readers_.emplace(&table, RecordReader(config, table, database.dialect(), files));
  }
}

const RecordReader& RecordService::ReaderOf(const config::Table& table) const {
  return readers_.at(&table);
}

void RecordService::AppendStoredFields(const config::Table& table, std::string_view role,
                                       std::string_view stored_fields_json,
                                       const std::vector<std::string>* only,
                                       std::string& out) const {
  boost::system::error_code ec;
  const boost::json::value fields = boost::json::parse(stored_fields_json, ec);
  AppendReadable(table, ec ? boost::json::value() : fields, access_.For(table, role), files_, out,
                 only);
}

Result<std::string> RecordService::Create(const config::Table& table, const Actor& actor,
                                          const boost::json::value& body,
                                          const json::NumberTexts& numbers) {
  const access::TableAccess& access = access_.For(table, actor.role);
  if (!access.Can(Action::kRead)) return TableNotFound();
  if (!access.Can(Action::kCreate)) return Denied("create");
  const boost::json::value* fields =
      body.is_object() ? body.get_object().if_contains("fields") : nullptr;
  const RequestFiles files(files_);
  CAIRN_ASSIGN_OR_RETURN(auto writes, ParseFieldWrites(table, access, fields, numbers,
                                                       WriteKind::kCreate, "fields", files.get()));
  const RecordReader& reader = ReaderOf(table);
  std::string record;
  PendingChanges changes(changes_);
  CAIRN_TRY(UniqueAsValidation(
      database_.Transaction(db::Access::kWrite, [&](db::Connection& connection) -> Status {
        changes.Reset();
        CAIRN_TRY(CheckReferences(connection, config_, access_, actor.role, writes, "fields"));
        CAIRN_ASSIGN_OR_RETURN(Snapshot created,
                               InsertRecord(connection, reader, access, actor, writes));
        record = std::move(created.record_json);
        changes.Add(table, ChangeKind::kInsert, created.id);
        return LogChange(connection, table, actor, "create", created.id,
                         Changes({}, created.fields_json));
      })));
  changes.Publish();
  return record;
}

Result<std::string> RecordService::Get(const config::Table& table, const Actor& actor,
                                       std::int64_t id, const ReadFormat& format) {
  const access::TableAccess& access = access_.For(table, actor.role);
  if (!access.Can(Action::kRead)) return TableNotFound();
  const RecordReader& reader = ReaderOf(table);
  std::optional<DisplayContext> display;
  if (format.display) {
    CAIRN_ASSIGN_OR_RETURN(display, DisplayContext::Make(format.timezone, files_));
  }
  std::string record;
  CAIRN_TRY(database_.Transaction(db::Access::kRead, [&](db::Connection& connection) -> Status {
    CAIRN_TRY(connection.Execute(reader.select_live_by_id_sql(), {id}, [&](const db::Row& row) {
      reader.AppendRecord(row, &access.ReadableFields(), record, display ? &*display : nullptr);
    }));
    return {};
  }));
  if (record.empty()) return RecordNotFound();
  return record;
}

Result<std::string> RecordService::Update(const config::Table& table, const Actor& actor,
                                          std::int64_t id, const boost::json::value& body,
                                          const json::NumberTexts& numbers) {
  const access::TableAccess& access = access_.For(table, actor.role);
  if (!access.Can(Action::kRead)) return TableNotFound();
  const boost::json::object* object = body.is_object() ? &body.get_object() : nullptr;
  std::optional<std::int64_t> expected_updated_at;
  if (const auto* stamp = object ? object->if_contains("updatedAt") : nullptr) {
    const auto parsed = stamp->is_string() ? time::ParseIso(stamp->get_string()) : std::nullopt;
    if (!parsed) {
      return Error::Validation("Invalid record",
                               {{"updatedAt", "must be the record's updatedAt timestamp"}});
    }
    expected_updated_at = *parsed;
  }
  // Parsed before the transaction (file storage may block), answered in its order: a missing
  // record and a refused update come first.
  const boost::json::value* fields = object ? object->if_contains("fields") : nullptr;
  const RequestFiles files(files_);
  auto parsed_writes =
      ParseFieldWrites(table, access, fields, numbers, WriteKind::kUpdate, "fields", files.get());
  if (!parsed_writes.ok() && parsed_writes.error().code != ErrorCode::kValidation) {
    return parsed_writes.error();  // file storage failed
  }
  const RecordReader& reader = ReaderOf(table);
  std::string record;
  PendingChanges changes(changes_);
  CAIRN_TRY(UniqueAsValidation(
      database_.Transaction(db::Access::kWrite, [&](db::Connection& connection) -> Status {
        changes.Reset();
        CAIRN_ASSIGN_OR_RETURN(Snapshot before, ReadSnapshot(connection, reader, access, id, true));
        if (!before.found || before.deleted) return RecordNotFound();
        if (!access.Can(Action::kUpdate)) return Denied("update");
        if (!parsed_writes.ok()) return parsed_writes.error();
        const std::vector<FieldWrite>& writes = parsed_writes.value();
        if (expected_updated_at && *expected_updated_at != before.updated_at) {
          return Error::Conflict("The record was changed since it was read (updatedAt differs)");
        }
        CAIRN_TRY(CheckReferences(connection, config_, access_, actor.role, writes, "fields"));
        CAIRN_ASSIGN_OR_RETURN(Snapshot after, UpdateRecord(connection, reader, access, actor, id,
                                                            writes, before.updated_at));
        record = std::move(after.record_json);
        changes.Add(table, ChangeKind::kUpdate, id, before.fields_json);
        return LogChange(connection, table, actor, "update", id,
                         Changes(before.fields_json, after.fields_json));
      })));
  changes.Publish();
  return record;
}

Status RecordService::Delete(const config::Table& table, const Actor& actor, std::int64_t id,
                             bool permanent) {
  const access::TableAccess& access = access_.For(table, actor.role);
  if (!access.Can(Action::kRead)) return TableNotFound();
  const RecordReader& reader = ReaderOf(table);
  PendingChanges changes(changes_);
  CAIRN_TRY(database_.Transaction(db::Access::kWrite, [&](db::Connection& connection) -> Status {
    changes.Reset();
    CAIRN_ASSIGN_OR_RETURN(Snapshot before, ReadSnapshot(connection, reader, access, id, true));
    // A record already in the trash was visible to no subscriber: its purge is no event.
    if (before.found && !before.deleted) {
      changes.Add(table, ChangeKind::kDelete, id, before.fields_json);
    }
    // Soft-deleting a deleted record is a 404 (D32); a permanent delete reaches the trash too.
    if (!before.found || (before.deleted && !permanent)) return RecordNotFound();
    if (permanent) {
      if (!access.Can(Action::kPermanentDelete)) return Denied("permanently delete");
      CAIRN_TRY(PurgeRow(connection, reader, id));
      CAIRN_TRY(DeleteCommentsOf(connection, table.name, id));
      return LogChange(connection, table, actor, "permanent_delete", id,
                       Changes(before.fields_json, {}));
    }
    if (!access.Can(Action::kDelete)) return Denied("delete");
    CAIRN_TRY(SoftDeleteRows(connection, reader, actor, std::span(&id, 1)));
    return LogChange(connection, table, actor, "delete", id, Changes(before.fields_json, {}));
  }));
  changes.Publish();
  return {};
}

Result<std::string> RecordService::Restore(const config::Table& table, const Actor& actor,
                                           std::int64_t id) {
  const access::TableAccess& access = access_.For(table, actor.role);
  if (!access.Can(Action::kRead)) return TableNotFound();
  const RecordReader& reader = ReaderOf(table);
  std::string record;
  PendingChanges changes(changes_);
  CAIRN_TRY(database_.Transaction(db::Access::kWrite, [&](db::Connection& connection) -> Status {
    changes.Reset();
    CAIRN_ASSIGN_OR_RETURN(Snapshot before, ReadSnapshot(connection, reader, access, id, true));
    if (!before.found) return RecordNotFound();
    if (!access.Can(Action::kRestore)) return Denied("restore");
    if (!before.deleted) {
      return Error::Validation("The record is not deleted", {{"id", "is not in the trash"}});
    }
    CAIRN_TRY(RestoreRow(connection, reader, actor, id, before.updated_at));
    CAIRN_ASSIGN_OR_RETURN(Snapshot after, ReadSnapshot(connection, reader, access, id, false));
    record = std::move(after.record_json);
    // Back from the trash: subscribers see it appear.
    changes.Add(table, ChangeKind::kInsert, id);
    return LogChange(connection, table, actor, "restore", id, Changes({}, after.fields_json));
  }));
  changes.Publish();
  return record;
}

Result<std::string> RecordService::History(const config::Table& table, const Actor& actor,
                                           std::int64_t id, const HistoryOptions& options) {
  const access::TableAccess& access = access_.For(table, actor.role);
  if (!access.Can(Action::kRead)) return TableNotFound();
  // History outlives nothing: a permanently deleted record answers 404 like one that never
  // existed (its purged values stay only in the admin's activity log). A record in the trash
  // keeps its history, which tells who deleted it.
  bool exists = false;
  CAIRN_TRY(database_.Transaction(db::Access::kRead, [&](db::Connection& connection) -> Status {
    CAIRN_TRY(
        connection.Execute("SELECT 1 FROM " + ReaderOf(table).table_sql() + " WHERE \"id\" = ?",
                           {id}, [&](const db::Row&) { exists = true; }));
    return {};
  }));
  if (!exists) return RecordNotFound();
  CAIRN_ASSIGN_OR_RETURN(auto page, activity::ListRecordHistory(database_, table.name, id,
                                                                options.limit, options.offset));
  std::string out = R"({"history":[)";
  bool first = true;
  for (const auto& entry : page.entries) {
    if (!first) out.push_back(',');
    first = false;
    out += R"({"id":")" + std::to_string(entry.id) + R"(","action":)";
    json::AppendString(out, entry.action);
    out += R"(,"createdAt":")";
    time::AppendIso(out, entry.created_at);
    out += R"(","user":)";
    if (entry.user_id) {
      out += R"({"id":)";
      json::AppendString(out, *entry.user_id);
      out += R"(,"name":)";
      json::AppendString(out, entry.user_name.value_or(""));
      out += R"(,"email":)";
      json::AppendString(out, entry.user_email.value_or(""));
      out.push_back('}');
    } else {
      out += "null";
    }
    boost::system::error_code ec;
    const boost::json::value changes = boost::json::parse(entry.changes_json.value_or("{}"), ec);
    out += R"(,"changes":{"before":)";
    AppendReadable(table,
                   changes.is_object() && changes.get_object().contains("before")
                       ? changes.get_object().at("before")
                       : boost::json::value(),
                   access, files_, out);
    out += R"(,"after":)";
    AppendReadable(table,
                   changes.is_object() && changes.get_object().contains("after")
                       ? changes.get_object().at("after")
                       : boost::json::value(),
                   access, files_, out);
    out += "}}";
  }
  out += R"(],"pagination":{"total":)" + std::to_string(page.total) + R"(,"limit":)" +
         std::to_string(options.limit) + R"(,"offset":)" + std::to_string(options.offset) + "}}";
  return out;
}

}  // namespace cairn::records
