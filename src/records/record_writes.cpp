#include "records/record_writes.hpp"

#include <algorithm>
#include <span>
#include <unordered_map>
#include <unordered_set>

#include <boost/json/parse.hpp>

#include "common/time.hpp"
#include "db/dialect.hpp"
#include "records/id_chunks.hpp"
#include "schema/physical_model.hpp"

namespace cairn::records::detail {

Error RecordNotFound() {
  return Error::NotFound("Record not found");
}

Error TableNotFound() {
  return Error::NotFound("Table not found");
}

Error Denied(std::string_view what) {
  return Error::Forbidden("You may not " + std::string(what) + " records of this table");
}

namespace {

void FillSnapshot(const db::Row& row, const RecordReader& reader, const access::TableAccess& access,
                  Shape shape, Snapshot& snapshot) {
  snapshot.found = true;
  snapshot.id = row.GetInt64(RecordReader::kIdColumn);
  snapshot.deleted = !row.IsNull(RecordReader::kDeletedAtColumn);
  snapshot.updated_at = row.GetTimestampMillis(RecordReader::kUpdatedAtColumn);
  reader.AppendAllFields(row, snapshot.fields_json);
  reader.AppendRecord(row, &access.ReadableFields(), snapshot.record_json);
  if (shape == Shape::kWithFlat)
    reader.AppendFlat(row, access.ReadableFields(), snapshot.flat_json);
}

}  // namespace

Result<Snapshot> ReadSnapshot(db::Connection& connection, const RecordReader& reader,
                              const access::TableAccess& access, std::int64_t id, bool for_update,
                              Shape shape) {
  std::string sql = reader.select_by_id_sql();
  if (for_update) sql += connection.dialect().ForUpdate();
  Snapshot snapshot;
  CAIRN_TRY(connection.Execute(
      sql, {id}, [&](const db::Row& row) { FillSnapshot(row, reader, access, shape, snapshot); }));
  return snapshot;
}

Result<std::unordered_map<std::int64_t, Snapshot>> ReadSnapshots(
    db::Connection& connection, const RecordReader& reader, const access::TableAccess& access,
    std::span<const std::int64_t> ids) {
  std::unordered_map<std::int64_t, Snapshot> snapshots;
  snapshots.reserve(ids.size());
  const std::string head =
      "SELECT " + reader.columns_sql() + " FROM " + reader.table_sql() + " WHERE ";
  CAIRN_TRY(ForIdChunks(connection, head, connection.dialect().ForUpdate(), {}, ids,
                        [&](const db::Row& row) {
                          Snapshot& snapshot = snapshots[row.GetInt64(RecordReader::kIdColumn)];
                          if (!snapshot.found) {
                            FillSnapshot(row, reader, access, Shape::kRecord, snapshot);
                          }
                        }));
  return snapshots;
}

std::string Changes(const std::string& before, const std::string& after) {
  return "{\"before\":" + (before.empty() ? std::string("null") : before) +
         ",\"after\":" + (after.empty() ? std::string("null") : after) + "}";
}

activity::ActivityEntry ChangeEntry(const config::Table& table, const Actor& actor,
                                    std::string_view action, std::int64_t id, std::string changes) {
  activity::ActivityEntry entry;
  entry.action = std::string(action);
  entry.table_name = table.name;
  entry.record_id = id;
  entry.user_id = actor.user_id;
  entry.changes_json = std::move(changes);
  entry.ip_address = actor.ip_address;
  entry.user_agent = actor.user_agent;
  return entry;
}

Status LogChange(db::Connection& connection, const config::Table& table, const Actor& actor,
                 std::string_view action, std::int64_t id, std::string changes) {
  return activity::RecordActivity(connection,
                                  ChangeEntry(table, actor, action, id, std::move(changes)));
}

Status UniqueAsValidation(Status status, std::string_view path) {
  if (status.ok() || db::ErrorKindOf(status.error()) != db::DbErrorKind::kUnique) return status;
  std::vector<FieldError> errors;
  for (const FieldError& column : status.error().errors) {
    errors.push_back(
        {std::string(path) + "." + column.field, "must be unique: another record has this value"});
  }
  if (errors.empty()) errors.push_back({std::string(path), "a unique value is already taken"});
  return Error::Validation("Invalid record", std::move(errors));
}

namespace {

// The ids of a many-to-many write: the codec's JSON integer array, or none for null.
std::vector<std::int64_t> LinkedIds(const db::Value& value) {
  std::vector<std::int64_t> ids;
  const auto* text = std::get_if<db::Json>(&value);
  if (text == nullptr) return ids;
  boost::system::error_code ec;
  const boost::json::value parsed = boost::json::parse(text->text, ec);
  if (ec || !parsed.is_array()) return ids;
  for (const boost::json::value& id : parsed.get_array()) {
    if (id.is_int64()) ids.push_back(id.get_int64());
  }
  return ids;
}

bool IsRelationship(const config::Field& field, config::RelationType relation) {
  return field.type == config::FieldType::kRelationship && field.relation_type == relation;
}

// Which of `ids` are live records of `related` (one statement per kMaxIdsPerStatement ids). The
// trash check is read, not put in WHERE, so the primary key drives the statement however stale
// the planner's statistics.
Result<std::vector<std::int64_t>> MissingRecords(db::Connection& connection,
                                                 const config::Table& related,
                                                 const std::vector<std::int64_t>& ids) {
  std::unordered_set<std::int64_t> found;
  CAIRN_TRY(ForIdChunks(
      connection,
      "SELECT \"id\", \"deleted_at\" FROM " + db::Identifier(related.sql_name).quoted() + " WHERE ",
      "", {}, ids, [&](const db::Row& row) {
        if (row.IsNull(1)) found.insert(row.GetInt64(0));
      }));
  std::vector<std::int64_t> missing;
  for (const std::int64_t id : ids) {
    if (!found.contains(id)) missing.push_back(id);
  }
  return missing;
}

std::string JoinIds(const std::vector<std::int64_t>& ids) {
  std::string out;
  for (const std::int64_t id : ids) {
    if (!out.empty()) out += ", ";
    out += std::to_string(id);
  }
  return out;
}

// Writes the links of each many-to-many field in `writes` (an update replaces them).
Status WriteLinks(db::Connection& connection, const RecordReader& reader, std::int64_t id,
                  const std::vector<FieldWrite>& writes, bool replace) {
  for (const FieldWrite& write : writes) {
    const RecordReader::LinkField* link = reader.LinkOf(*write.field);
    if (link == nullptr) continue;
    if (replace) {
      CAIRN_TRY(connection.Execute("DELETE FROM " + link->junction_sql + " WHERE \"source_id\" = ?",
                                   {id}));
    }
    const std::vector<std::int64_t> targets = LinkedIds(write.value);
    if (targets.empty()) continue;
    std::string sql =
        "INSERT INTO " + link->junction_sql + " (\"source_id\", \"target_id\") VALUES ";
    std::vector<db::Value> params;
    params.reserve(targets.size() * 2);
    for (const std::int64_t target : targets) {
      sql += params.empty() ? "(?, ?)" : ", (?, ?)";
      params.emplace_back(id);
      params.emplace_back(target);
    }
    CAIRN_TRY(connection.Execute(sql, params));
  }
  return {};
}

}  // namespace

Status CheckReferences(db::Connection& connection, const config::AppConfig& config,
                       const access::AccessIndex& access, std::string_view role,
                       const std::vector<FieldWrite>& writes, std::string_view path) {
  std::vector<FieldError> errors;
  for (const FieldWrite& write : writes) {
    const config::Field& field = *write.field;
    std::vector<std::int64_t> ids;
    if (IsRelationship(field, config::RelationType::kManyToOne)) {
      if (const auto* id = std::get_if<std::int64_t>(&write.value)) ids.push_back(*id);
    } else if (IsRelationship(field, config::RelationType::kManyToMany)) {
      ids = LinkedIds(write.value);
    }
    if (ids.empty()) continue;  // null or []: no link
    // A table the caller cannot read hides all of its records: they answer as missing.
    const config::Table* related = config.FindTable(field.related_table);
    std::vector<std::int64_t> missing = ids;
    if (related != nullptr && access.For(*related, role).Can(access::Action::kRead)) {
      CAIRN_ASSIGN_OR_RETURN(missing, MissingRecords(connection, *related, ids));
    }
    if (!missing.empty()) {
      errors.push_back({std::string(path) + "." + field.name,
                        std::string(missing.size() == 1 ? "no record " : "no records ") +
                            JoinIds(missing) + " in " + field.related_table});
    }
  }
  if (!errors.empty()) return Error::Validation("Invalid record", std::move(errors));
  return {};
}

namespace {

// created_at, updated_at, created_by, updated_by: the values every INSERT starts with.
constexpr std::size_t kStampColumns = 4;
// Bound values in one multi-row INSERT: far below both databases' limits (SQLite 32766,
// PostgreSQL 65535).
constexpr std::size_t kMaxValuesPerInsert = 8192;
constexpr std::size_t kMaxRowsPerInsert = 128;

bool WritesLinks(const std::vector<FieldWrite>& writes) {
  return std::ranges::any_of(
      writes, [](const FieldWrite& write) { return !schema::ColumnNameOf(*write.field); });
}

bool SameFields(const std::vector<FieldWrite>& a, const std::vector<FieldWrite>& b) {
  return std::ranges::equal(
      a, b, [](const FieldWrite& x, const FieldWrite& y) { return x.field == y.field; });
}

// `INSERT INTO t ("created_at", …, <columns of writes>) VALUES ` (many-to-many fields have no
// column: their links go to a junction table).
std::string InsertHead(const RecordReader& reader, const std::vector<FieldWrite>& writes) {
  std::string sql = "INSERT INTO " + reader.table_sql() +
                    " (\"created_at\", \"updated_at\", \"created_by\", \"updated_by\"";
  for (const FieldWrite& write : writes) {
    if (const auto column = schema::ColumnNameOf(*write.field)) {
      sql += ", " + db::Identifier(*column).quoted();
    }
  }
  return sql + ") VALUES ";
}

// One row's `(?, …)` and its values.
void AppendInsertRow(const Actor& actor, std::int64_t now, const std::vector<FieldWrite>& writes,
                     std::string& sql, std::vector<db::Value>& params) {
  params.insert(params.end(), {db::Timestamp{now}, db::Timestamp{now},
                               std::string_view(actor.user_id), std::string_view(actor.user_id)});
  sql += "(?, ?, ?, ?";
  for (const FieldWrite& write : writes) {
    if (!schema::ColumnNameOf(*write.field)) continue;
    sql += ", ?";
    params.push_back(write.value);
  }
  sql += ")";
}

// Items that write the same columns and no links, in one INSERT … RETURNING: the rows as
// written, without a second statement (a new row has no related rows yet). Ids grow in VALUES
// order on both databases, so sorting by id gives the rows back in the items' order.
Status InsertRows(db::Connection& connection, const RecordReader& reader,
                  const access::TableAccess& access, const Actor& actor,
                  std::span<const std::vector<FieldWrite>> items, std::span<Snapshot> created,
                  Shape shape) {
  const std::int64_t now = time::NowMillis();
  std::string sql = InsertHead(reader, items.front());
  std::vector<db::Value> params;
  params.reserve(items.size() * (kStampColumns + items.front().size()));
  for (std::size_t i = 0; i < items.size(); ++i) {
    if (i > 0) sql += ", ";
    AppendInsertRow(actor, now, items[i], sql, params);
  }
  sql += " RETURNING " + reader.columns_sql();
  std::size_t returned = 0;
  CAIRN_TRY(connection.Execute(sql, params, [&](const db::Row& row) {
    if (returned < created.size()) {
      FillSnapshot(row, reader, access, shape, created[returned]);
    }
    ++returned;
  }));
  if (returned != created.size()) {
    return Error::Internal("An INSERT of " + std::to_string(created.size()) + " rows returned " +
                           std::to_string(returned));
  }
  std::ranges::sort(created, {}, &Snapshot::id);
  return {};
}

}  // namespace

Result<Snapshot> InsertRecord(db::Connection& connection, const RecordReader& reader,
                              const access::TableAccess& access, const Actor& actor,
                              const std::vector<FieldWrite>& writes, Shape shape) {
  if (!WritesLinks(writes)) {
    Snapshot created;
    CAIRN_TRY(InsertRows(connection, reader, access, actor, std::span(&writes, 1),
                         std::span(&created, 1), shape));
    return created;
  }
  std::string sql = InsertHead(reader, writes);
  std::vector<db::Value> params;
  params.reserve(kStampColumns + writes.size());
  AppendInsertRow(actor, time::NowMillis(), writes, sql, params);
  sql += connection.dialect().ReturningId();
  std::int64_t id = 0;
  CAIRN_TRY(connection.Execute(sql, params, [&](const db::Row& row) { id = row.GetInt64(0); }));
  CAIRN_TRY(WriteLinks(connection, reader, id, writes, false));
  return ReadSnapshot(connection, reader, access, id, false, shape);
}

Result<std::vector<Snapshot>> InsertRecords(db::Connection& connection, const RecordReader& reader,
                                            const access::TableAccess& access, const Actor& actor,
                                            std::span<const std::vector<FieldWrite>> items) {
  std::vector<Snapshot> created(items.size());
  std::size_t first = 0;
  while (first < items.size()) {
    const std::vector<FieldWrite>& writes = items[first];
    if (WritesLinks(writes)) {
      CAIRN_ASSIGN_OR_RETURN(created[first],
                             InsertRecord(connection, reader, access, actor, writes));
      ++first;
      continue;
    }
    const std::size_t max_rows = std::clamp<std::size_t>(
        kMaxValuesPerInsert / (kStampColumns + writes.size()), 1, kMaxRowsPerInsert);
    std::size_t end = first + 1;
    while (end < items.size() && end - first < max_rows && SameFields(writes, items[end])) ++end;
    // Powers of two only: few distinct statements, so they stay in the prepared-statement cache.
    const std::size_t rows = std::bit_floor(end - first);
    CAIRN_TRY(InsertRows(connection, reader, access, actor, items.subspan(first, rows),
                         std::span(created).subspan(first, rows), Shape::kRecord));
    first += rows;
  }
  return created;
}

Result<Snapshot> UpdateRecord(db::Connection& connection, const RecordReader& reader,
                              const access::TableAccess& access, const Actor& actor,
                              std::int64_t id, const std::vector<FieldWrite>& writes,
                              std::int64_t previous_updated_at, Shape shape) {
  const std::int64_t now = std::max(time::NowMillis(), previous_updated_at + 1);
  std::string sql = "UPDATE " + reader.table_sql() + " SET \"updated_at\" = ?, \"updated_by\" = ?";
  std::vector<db::Value> params{db::Timestamp{now}, std::string_view(actor.user_id)};
  for (const FieldWrite& write : writes) {
    const auto column = schema::ColumnNameOf(*write.field);
    if (!column) continue;  // many-to-many: the junction table, below
    sql += ", " + db::Identifier(*column).quoted() + " = ?";
    params.push_back(write.value);
  }
  sql += " WHERE \"id\" = ?";
  params.emplace_back(id);
  if (!WritesLinks(writes)) {
    // The row as written, without a second statement (its links are untouched).
    sql += " RETURNING " + reader.columns_sql();
    Snapshot updated;
    CAIRN_TRY(connection.Execute(sql, params, [&](const db::Row& row) {
      FillSnapshot(row, reader, access, shape, updated);
    }));
    return updated;
  }
  CAIRN_TRY(connection.Execute(sql, params));
  CAIRN_TRY(WriteLinks(connection, reader, id, writes, true));
  return ReadSnapshot(connection, reader, access, id, false, shape);
}

Status SoftDeleteRows(db::Connection& connection, const RecordReader& reader, const Actor& actor,
                      std::span<const std::int64_t> ids) {
  return ForIdChunks(
      connection,
      "UPDATE " + reader.table_sql() + " SET \"deleted_at\" = ?, \"deleted_by\" = ? WHERE ", "",
      {db::Timestamp{time::NowMillis()}, std::string_view(actor.user_id)}, ids, {});
}

Status RestoreRow(db::Connection& connection, const RecordReader& reader, const Actor& actor,
                  std::int64_t id, std::int64_t previous_updated_at) {
  CAIRN_TRY(connection.Execute(
      "UPDATE " + reader.table_sql() +
          " SET \"deleted_at\" = NULL, \"deleted_by\" = NULL, \"updated_at\" = ?, "
          "\"updated_by\" = ? WHERE \"id\" = ?",
      {db::Timestamp{std::max(time::NowMillis(), previous_updated_at + 1)},
       std::string_view(actor.user_id), id}));
  return {};
}

Status PurgeRow(db::Connection& connection, const RecordReader& reader, std::int64_t id) {
  CAIRN_TRY(connection.Execute("DELETE FROM " + reader.table_sql() + " WHERE \"id\" = ?", {id}));
  return {};
}

}  // namespace cairn::records::detail
