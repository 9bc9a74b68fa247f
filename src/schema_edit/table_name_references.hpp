// Rows outside a record table that name it by its config name: its records' comments
// (`_cairn_comments`) and the activity entries a record's history is read from
// (`_cairn_activity`). A table renamed under the same id (D51) takes them along.
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "common/result.hpp"
#include "db/database.hpp"

namespace cairn::schema_edit {

// Renames the references from each `first` to its `second` (inside the publish transaction).
Status RenameTableReferences(db::Connection& connection,
                             const std::vector<std::pair<std::string, std::string>>& renames);

}  // namespace cairn::schema_edit
