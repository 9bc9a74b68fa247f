#include "records/record_reader.hpp"

#include <algorithm>

#include "common/json.hpp"
#include "common/time.hpp"
#include "db/dialect.hpp"
#include "records/field_codec.hpp"
#include "schema/physical_model.hpp"

namespace cairn::records {
namespace {

constexpr std::string_view kSystemColumns[] = {
    "id", "created_at", "updated_at", "created_by", "updated_by", "deleted_at", "deleted_by"};

void AppendTimestamp(const db::Row& row, int column, std::string& out) {
  if (row.IsNull(column)) {
    out += "null";
    return;
  }
  out.push_back('"');
  time::AppendIso(out, row.GetTimestampMillis(column));
  out.push_back('"');
}

void AppendText(const db::Row& row, int column, std::string& out) {
  if (row.IsNull(column)) {
    out += "null";
  } else {
    json::AppendString(out, row.GetText(column));
  }
}

}  // namespace

RecordReader::RecordReader(const config::AppConfig& config, const config::Table& table,
                           const db::Dialect& dialect, const AttachmentFiles* files)
    : files_(files), table_sql_(db::Identifier(table.sql_name).quoted()) {
  for (std::string_view column : kSystemColumns) {
    if (!columns_sql_.empty()) columns_sql_ += ", ";
    columns_sql_ += db::Identifier(column).quoted();
  }
  int next = static_cast<int>(std::size(kSystemColumns));
  for (const config::Field& field : table.fields) {
    const auto column = schema::ColumnNameOf(field);
    if (!column) continue;
    columns_sql_ += ", ";
    columns_sql_ += db::Identifier(*column).quoted();
    stored_.push_back({&field, next++, true});
  }
  // Relationships without a column: ids of live related records, ascending. Inner tables are
  // aliased so that a table related to itself still reaches the outer row.
  const std::string outer_id = table_sql_ + ".\"id\"";
  for (const config::Field& field : table.fields) {
    if (field.type != config::FieldType::kRelationship ||
        field.relation_type == config::RelationType::kManyToOne) {
      continue;
    }
    const config::Table* related = config.FindTable(field.related_table);
    if (related == nullptr) continue;  // semantic checks reject this long before
    const std::string related_sql = db::Identifier(related->sql_name).quoted();
    std::string subquery;
    if (field.relation_type == config::RelationType::kManyToMany) {
      links_.push_back({&field, db::Identifier(schema::JunctionTableName(table, field)).quoted()});
      subquery = dialect.JsonArrayAggregate(
          "j.\"target_id\"", " FROM " + links_.back().junction_sql + " AS j JOIN " + related_sql +
                                 " AS r ON r.\"id\" = j.\"target_id\" WHERE j.\"source_id\" = " +
                                 outer_id + " AND r.\"deleted_at\" IS NULL");
    } else {
      const config::Field* key = related->FindField(field.foreign_key);
      const auto key_column = key ? schema::ColumnNameOf(*key) : std::nullopt;
      if (!key_column) continue;  // semantic checks reject this long before
      subquery =
          dialect.JsonArrayAggregate("c.\"id\"", " FROM " + related_sql + " AS c WHERE c." +
                                                     db::Identifier(*key_column).quoted() + " = " +
                                                     outer_id + " AND c.\"deleted_at\" IS NULL");
    }
    columns_sql_ += ", " + subquery;
    stored_.push_back({&field, next++, field.relation_type == config::RelationType::kManyToMany});
  }
  select_by_id_sql_ = "SELECT " + columns_sql_ + " FROM " + table_sql_ + " WHERE \"id\" = ?";
  select_live_by_id_sql_ = select_by_id_sql_ + " AND \"deleted_at\" IS NULL";
}

void RecordReader::AppendField(const StoredField& stored, const db::Row& row, std::string& out,
                               const AttachmentFiles* files, DisplayContext* display) const {
  json::AppendString(out, stored.field->name);
  out.push_back(':');
  const FieldCodec& codec = CodecOf(*stored.field);
  if (display != nullptr) {
    codec.AppendDisplay(*stored.field, row, stored.column, *display, out);
  } else if (files != nullptr) {
    codec.AppendReadJson(*stored.field, row, stored.column, *files, out);
  } else {
    codec.AppendJson(*stored.field, row, stored.column, out);
  }
}

const RecordReader::LinkField* RecordReader::LinkOf(const config::Field& field) const {
  for (const LinkField& link : links_) {
    if (link.field == &field) return &link;
  }
  return nullptr;
}

void RecordReader::AppendAllFields(const db::Row& row, std::string& out) const {
  out.push_back('{');
  bool first = true;
  for (const StoredField& stored : stored_) {
    if (!stored.in_history) continue;
    if (!first) out.push_back(',');
    first = false;
    AppendField(stored, row, out, nullptr);
  }
  out.push_back('}');
}

void RecordReader::AppendFlat(const db::Row& row, const std::vector<const config::Field*>& readable,
                              std::string& out) const {
  out += R"({"id":)";
  out += std::to_string(row.GetInt64(kIdColumn));
  for (const StoredField& stored : stored_) {
    if (std::find(readable.begin(), readable.end(), stored.field) == readable.end()) continue;
    out.push_back(',');
    AppendField(stored, row, out, files_);
  }
  out.push_back('}');
}

void RecordReader::AppendRecord(const db::Row& row,
                                const std::vector<const config::Field*>* readable, std::string& out,
                                DisplayContext* display) const {
  out += R"({"id":")";
  out += std::to_string(row.GetInt64(kIdColumn));
  out += R"(","fields":{)";
  bool first = true;
  for (const StoredField& stored : stored_) {
    if (readable != nullptr &&
        std::find(readable->begin(), readable->end(), stored.field) == readable->end()) {
      continue;
    }
    if (!first) out.push_back(',');
    first = false;
    AppendField(stored, row, out, files_, display);
  }
  out += R"(},"createdBy":)";
  AppendText(row, 3, out);
  out += R"(,"createdAt":)";
  AppendTimestamp(row, 1, out);
  out += R"(,"updatedBy":)";
  AppendText(row, 4, out);
  out += R"(,"updatedAt":)";
  AppendTimestamp(row, kUpdatedAtColumn, out);
  out += R"(,"deletedBy":)";
  AppendText(row, 6, out);
  out += R"(,"deletedAt":)";
  AppendTimestamp(row, kDeletedAtColumn, out);
  out.push_back('}');
}

}  // namespace cairn::records
