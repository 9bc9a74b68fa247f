// Renames under the same id (D51: a field or table keeps its id across versions, so renaming it
// keeps its data): which physical tables and columns of `before` are called otherwise in `after`.
#pragma once

#include <vector>

#include "config/model.hpp"
#include "schema/migrator.hpp"

namespace cairn::schema_edit {

struct Renames {
  std::vector<schema::TableRename> tables;
  std::vector<schema::ColumnRename> columns;
};

Renames RenamesBetween(const config::AppConfig& before, const config::AppConfig& after);

}  // namespace cairn::schema_edit
