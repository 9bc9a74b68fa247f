// Upsert of RecordService (D33): match on the given fields among live records; none → create,
// one → update, more → 409. The single and the batch form share one transaction step.
#include <optional>

#include "common/time.hpp"
#include "db/live_row_counts.hpp"
#include "records/limits.hpp"
#include "records/pending_changes.hpp"
#include "records/record_service.hpp"
#include "records/record_writes.hpp"
#include "schema/physical_model.hpp"

namespace cairn::records {
namespace {

using access::Action;
using namespace detail;

struct UpsertItem {
  std::vector<FieldWrite> create_writes;  // with defaults, for a new record
  std::optional<Error> create_error;      // why it cannot be created (a required field missing)
  std::vector<FieldWrite> update_writes;  // the given fields only
  std::vector<db::Value> match_values;    // in match field order
};

// The match fields: names of readable stored fields.
Result<std::vector<const config::Field*>> MatchFields(const config::Table& table,
                                                      const access::TableAccess& access,
                                                      const boost::json::object& body) {
  const char* key = body.contains("matchFields") ? "matchFields" : "fieldsToMergeOn";
  const auto* names = body.if_contains(key);
  if (names == nullptr || !names->is_array() || names->get_array().empty()) {
    return Error::Validation("Invalid upsert", {{"matchFields",
                                                 "must be a non-empty array of field names "
                                                 "(alias fieldsToMergeOn)"}});
  }
  std::vector<const config::Field*> fields;
  std::vector<FieldError> errors;
  for (std::size_t i = 0; i < names->get_array().size(); ++i) {
    const auto& name = names->get_array()[i];
    const config::Field* field = name.is_string() ? table.FindField(name.get_string()) : nullptr;
    if (field == nullptr || !access.CanReadField(*field) || !schema::ColumnNameOf(*field)) {
      errors.push_back({std::string(key) + "[" + std::to_string(i) + "]", "unknown field"});
      continue;
    }
    fields.push_back(field);
  }
  if (!errors.empty()) return Error::Validation("Invalid upsert", std::move(errors));
  return fields;
}

Result<UpsertItem> ParseItem(const config::Table& table, const access::TableAccess& access,
                             const std::vector<const config::Field*>& match,
                             const boost::json::value* fields, const json::NumberTexts& numbers,
                             const std::string& path, const AttachmentFiles* files) {
  UpsertItem item;
  CAIRN_ASSIGN_OR_RETURN(item.update_writes, ParseFieldWrites(table, access, fields, numbers,
                                                              WriteKind::kUpdate, path, files));
  // Creation also needs the required fields; that only matters when nothing matches.
  auto create = ParseFieldWrites(table, access, fields, numbers, WriteKind::kCreate, path, files);
  if (create.ok()) {
    item.create_writes = std::move(create).value();
  } else if (create.error().code != ErrorCode::kValidation) {
    return std::move(create).error();
  } else {
    item.create_error = create.error();
  }
  std::vector<FieldError> errors;
  for (const config::Field* field : match) {
    const auto found = std::find_if(item.update_writes.begin(), item.update_writes.end(),
                                    [&](const FieldWrite& write) { return write.field == field; });
    if (found == item.update_writes.end()) {
      errors.push_back({path + "." + field->name, "is a match field, so it must be given"});
      continue;
    }
    item.match_values.push_back(found->value);
  }
  if (!errors.empty()) return Error::Validation("Invalid upsert", std::move(errors));
  return item;
}

}  // namespace

Result<std::string> RecordService::Upsert(const config::Table& table, const Actor& actor,
                                          const boost::json::value& body,
                                          const json::NumberTexts& numbers) {
  const access::TableAccess& access = access_.For(table, actor.role);
  if (!access.Can(Action::kRead)) return TableNotFound();
  if (!body.is_object()) return Error::Validation("The body must be an object");
  const auto& object = body.get_object();
  CAIRN_ASSIGN_OR_RETURN(auto match, MatchFields(table, access, object));
  const boost::json::array* batch = nullptr;
  if (const auto* records = object.if_contains("records")) {
    if (!records->is_array() || records->get_array().empty()) {
      return Error::Validation("Invalid upsert", {{"records", "must be a non-empty array"}});
    }
    if (records->get_array().size() > kMaxBatchItems) {
      return Error::PayloadTooLarge("A batch holds at most " + std::to_string(kMaxBatchItems) +
                                    " items");
    }
    batch = &records->get_array();
  }
  std::vector<UpsertItem> items;
  std::vector<FieldError> errors;
  const RequestFiles files(files_);
  const std::size_t count = batch ? batch->size() : 1;
  for (std::size_t i = 0; i < count; ++i) {
    const boost::json::value& holder = batch ? (*batch)[i] : body;
    const auto* fields = holder.is_object() ? holder.get_object().if_contains("fields") : nullptr;
    const std::string path =
        batch ? "records[" + std::to_string(i) + "].fields" : std::string("fields");
    auto item = ParseItem(table, access, match, fields, numbers, path, files.get());
    if (!item.ok()) {
      if (item.error().code != ErrorCode::kValidation) return std::move(item).error();
      for (auto& error : item.error().errors) errors.push_back(std::move(error));
      continue;
    }
    items.push_back(std::move(item).value());
  }
  if (!errors.empty()) return Error::Validation("Invalid upsert", std::move(errors));

  const RecordReader& reader = ReaderOf(table);
  std::string find = "SELECT \"id\" FROM " + reader.table_sql() + " WHERE \"deleted_at\" IS NULL";
  for (const config::Field* field : match) {
    find += " AND " + db::Identifier(*schema::ColumnNameOf(*field)).quoted() + " = ?";
  }
  find += " LIMIT 2";
  struct Outcome {
    std::int64_t id;
    bool created;
    std::string flat;
  };
  std::vector<Outcome> outcomes;
  PendingChanges changes(changes_);
  CAIRN_TRY(UniqueAsValidation(
      database_.Transaction(db::Access::kWrite, [&](db::Connection& connection) -> Status {
        outcomes.clear();
        changes.Reset();
        const auto upsert_all = [&]() -> Status {
          std::vector<activity::ActivityEntry> entries;  // written together at the end
          entries.reserve(items.size());
          for (const UpsertItem& item : items) {
            std::vector<std::int64_t> found;
            CAIRN_TRY(connection.Execute(find, item.match_values, [&](const db::Row& row) {
              found.push_back(row.GetInt64(0));
            }));
            if (found.size() > 1) {
              return Error::Conflict("More than one record matches the match fields");
            }
            if (found.empty()) {
              if (!access.Can(Action::kCreate)) return Denied("create");
              if (item.create_error) return *item.create_error;
              CAIRN_TRY(CheckReferences(connection, config_, access_, actor.role,
                                        item.create_writes, "fields"));
              CAIRN_ASSIGN_OR_RETURN(Snapshot after,
                                     InsertRecord(connection, reader, access, actor,
                                                  item.create_writes, Shape::kWithFlat));
              changes.Add(table, ChangeKind::kInsert, after.id);
              entries.push_back(
                  ChangeEntry(table, actor, "create", after.id, Changes({}, after.fields_json)));
              outcomes.push_back({after.id, true, std::move(after.flat_json)});
              continue;
            }
            if (!access.Can(Action::kUpdate)) return Denied("update");
            const std::int64_t id = found.front();
            CAIRN_ASSIGN_OR_RETURN(Snapshot before,
                                   ReadSnapshot(connection, reader, access, id, true));
            CAIRN_TRY(CheckReferences(connection, config_, access_, actor.role, item.update_writes,
                                      "fields"));
            CAIRN_ASSIGN_OR_RETURN(
                Snapshot after,
                UpdateRecord(connection, reader, access, actor, id, item.update_writes,
                             before.updated_at, Shape::kWithFlat));
            changes.Add(table, ChangeKind::kUpdate, id, before.fields_json);
            entries.push_back(ChangeEntry(table, actor, "update", id,
                                          Changes(before.fields_json, after.fields_json)));
            outcomes.push_back({id, false, std::move(after.flat_json)});
          }
          return activity::RecordActivities(connection, entries);
        };
        return batch ? connection.dialect().live_row_counts().WithDeferred(connection, upsert_all)
                     : upsert_all();
      })));
  changes.Publish();
  if (!batch) {
    const Outcome& outcome = outcomes.front();
    return R"({"id":)" + std::to_string(outcome.id) + R"(,"operation":")" +
           (outcome.created ? "created" : "updated") + R"(","record":)" + outcome.flat + "}";
  }
  std::string out = R"({"records":[)";
  std::size_t created = 0;
  for (std::size_t i = 0; i < outcomes.size(); ++i) {
    if (i > 0) out.push_back(',');
    out += outcomes[i].flat;
    created += outcomes[i].created ? 1 : 0;
  }
  out += R"(],"created":)" + std::to_string(created) + R"(,"updated":)" +
         std::to_string(outcomes.size() - created) + "}";
  return out;
}

}  // namespace cairn::records
