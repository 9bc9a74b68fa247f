// What a new version does to the data of the previous one, field by field and table by table
// (D51: a field or table keeps its id across versions, so renaming it keeps its data):
// which physical tables and columns of `before` are called otherwise in `after` (junction tables
// of many-to-many fields included), and which fields change their type over stored values.
#pragma once

#include <string>
#include <vector>

#include "config/model.hpp"
#include "schema/migrator.hpp"

namespace cairn::schema_edit {

struct Renames {
  std::vector<schema::TableRename> tables;  // record tables first, then junction tables
  std::vector<schema::ColumnRename> columns;
  // Config names of renamed record tables (from, to): what side tables (comments, the activity
  // log a record's history is read from) name them by.
  std::vector<std::pair<std::string, std::string>> table_names;
};

Renames RenamesBetween(const config::AppConfig& before, const config::AppConfig& after);

// The fields of `after` that continue a field of `before` (same id, or the same name without
// one) with another type, another column type or, for a reference, another related table.
std::vector<schema::FieldConversion> ConversionsBetween(const config::AppConfig& before,
                                                        const config::AppConfig& after);

}  // namespace cairn::schema_edit
