#include "schema_edit/config_renames.hpp"

#include "records/field_codec.hpp"
#include "schema/physical_model.hpp"

namespace cairn::schema_edit {
namespace {

// The table of `before` that `table` continues: the same id, or (without ids) the same name.
const config::Table* Predecessor(const config::AppConfig& before, const config::Table& table) {
  for (const config::Table& candidate : before.tables) {
    if (table.id != 0 ? candidate.id == table.id : candidate.sql_name == table.sql_name) {
      return &candidate;
    }
  }
  return nullptr;
}

// The field of `old_table` that `field` continues: the same id, or (without one) the same name.
const config::Field* PredecessorField(const config::Table& old_table, const config::Field& field) {
  for (const config::Field& candidate : old_table.fields) {
    if (field.id != 0 ? candidate.id == field.id : candidate.name == field.name) return &candidate;
  }
  return nullptr;
}

// A relationship's related table by the name the field gives (its name or physical name).
const config::Table* Related(const config::AppConfig& config, const config::Field& field) {
  for (const config::Table& table : config.tables) {
    if (table.name == field.related_table || table.sql_name == field.related_table) return &table;
  }
  return nullptr;
}

// Both fields relate to the same table (which may have been renamed in between).
bool SameRelatedTable(const config::AppConfig& before, const config::Field& old_field,
                      const config::AppConfig& after, const config::Field& field) {
  const config::Table* old_related = Related(before, old_field);
  const config::Table* related = Related(after, field);
  return old_related != nullptr && related != nullptr &&
         Predecessor(before, *related) == old_related;
}

bool IsManyToMany(const config::Field& field) {
  return field.type == config::FieldType::kRelationship &&
         field.relation_type == config::RelationType::kManyToMany;
}

}  // namespace

Renames RenamesBetween(const config::AppConfig& before, const config::AppConfig& after) {
  Renames renames;
  std::vector<schema::TableRename> junctions;
  for (const config::Table& table : after.tables) {
    const config::Table* old = Predecessor(before, table);
    if (old == nullptr) continue;
    if (old->sql_name != table.sql_name) renames.tables.push_back({old->sql_name, table.sql_name});
    if (old->name != table.name) renames.table_names.emplace_back(old->name, table.name);
    for (const config::Field& field : table.fields) {
      const config::Field* old_field = PredecessorField(*old, field);
      if (old_field == nullptr) continue;
      // A many-to-many field's links live in a table named after its table and field.
      if (IsManyToMany(field) && IsManyToMany(*old_field) &&
          SameRelatedTable(before, *old_field, after, field)) {
        const std::string from = schema::JunctionTableName(*old, *old_field);
        const std::string to = schema::JunctionTableName(table, field);
        if (from != to) junctions.push_back({from, to});
        continue;
      }
      if (field.id == 0) continue;  // found by its name: its column keeps the name
      const auto from = schema::ColumnNameOf(*old_field);
      const auto to = schema::ColumnNameOf(field);
      if (from && to && *from != *to) renames.columns.push_back({table.sql_name, *from, *to});
    }
  }
  // After the record tables: a junction's new name may be free only once they moved.
  renames.tables.insert(renames.tables.end(), junctions.begin(), junctions.end());
  return renames;
}

std::vector<schema::FieldConversion> ConversionsBetween(const config::AppConfig& before,
                                                        const config::AppConfig& after) {
  std::vector<schema::FieldConversion> conversions;
  for (const config::Table& table : after.tables) {
    const config::Table* old = Predecessor(before, table);
    if (old == nullptr) continue;
    for (const config::Field& field : table.fields) {
      const config::Field* old_field = PredecessorField(*old, field);
      if (old_field == nullptr) continue;
      const auto from_column = schema::ColumnNameOf(*old_field);
      const auto to_column = schema::ColumnNameOf(field);
      // Only a value in a column of the field's own continues (not a system column's).
      if (!from_column || !to_column || schema::SystemColumnOf(old_field->type) ||
          schema::SystemColumnOf(field.type)) {
        continue;
      }
      const bool same_type =
          old_field->type == field.type &&
          records::CodecOf(*old_field).Column(*old_field) == records::CodecOf(field).Column(field);
      const bool same_reference = field.type != config::FieldType::kRelationship ||
                                  SameRelatedTable(before, *old_field, after, field);
      if (same_type && same_reference) continue;
      conversions.push_back(
          {table.sql_name, *to_column, table.name + "." + field.name, *old_field, field});
    }
  }
  return conversions;
}

}  // namespace cairn::schema_edit
