// Builds config::AppConfig values directly (no loader), for database and schema tests.
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "config/model.hpp"

namespace cairn::test {

inline config::Field MakeField(std::string name, config::FieldType type) {
  config::Field field;
  field.name = std::move(name);
  field.type = type;
  return field;
}

inline config::Field Unique(config::Field field) {
  field.unique = true;
  return field;
}

inline config::Field Indexed(config::Field field) {
  field.indexed = true;
  return field;
}

inline config::Field DecimalField(std::string name, int scale,
                                  config::FieldType type = config::FieldType::kDecimal) {
  config::Field field = MakeField(std::move(name), type);
  field.scale = scale;
  return field;
}

inline config::Field Relationship(std::string name, std::string related,
                                  config::RelationType relation = config::RelationType::kManyToOne,
                                  config::OnDelete on_delete = config::OnDelete::kSetNull) {
  config::Field field = MakeField(std::move(name), config::FieldType::kRelationship);
  field.related_table = std::move(related);
  field.relation_type = relation;
  field.on_delete = on_delete;
  return field;
}

// sql_name and slug as the loader derives them (D7).
inline config::Table MakeTable(std::string name, std::vector<config::Field> fields,
                               std::vector<config::IndexSpec> indexes = {}) {
  config::Table table;
  table.name = std::move(name);
  for (const char c : table.name) {
    const char lower = (c >= 'A' && c <= 'Z') ? static_cast<char>(c - 'A' + 'a') : c;
    table.sql_name += (c == ' ' || c == '-') ? '_' : lower;
    const bool alnum = (lower >= 'a' && lower <= 'z') || (lower >= '0' && lower <= '9');
    table.slug += alnum ? lower : '-';
  }
  table.fields = std::move(fields);
  table.indexes = std::move(indexes);
  return table;
}

inline config::AppConfig MakeConfig(std::vector<config::Table> tables) {
  config::AppConfig app;
  app.name = "test-app";
  std::int64_t id = 0;
  for (auto& table : tables) table.id = ++id;
  app.tables = std::move(tables);
  return app;
}

}  // namespace cairn::test
