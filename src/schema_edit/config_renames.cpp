#include "schema_edit/config_renames.hpp"

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

}  // namespace

Renames RenamesBetween(const config::AppConfig& before, const config::AppConfig& after) {
  Renames renames;
  for (const config::Table& table : after.tables) {
    const config::Table* old = Predecessor(before, table);
    if (old == nullptr) continue;
    if (old->sql_name != table.sql_name) renames.tables.push_back({old->sql_name, table.sql_name});
    for (const config::Field& field : table.fields) {
      if (field.id == 0) continue;
      for (const config::Field& old_field : old->fields) {
        if (old_field.id != field.id) continue;
        const auto from = schema::ColumnNameOf(old_field);
        const auto to = schema::ColumnNameOf(field);
        if (from && to && *from != *to) renames.columns.push_back({table.sql_name, *from, *to});
      }
    }
  }
  return renames;
}

}  // namespace cairn::schema_edit
