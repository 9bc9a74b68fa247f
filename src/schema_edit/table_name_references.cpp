#include "schema_edit/table_name_references.hpp"

#include "db/introspection.hpp"

namespace cairn::schema_edit {
namespace {

// The tables with a `table_name` column holding config table names.
constexpr std::string_view kReferencingTables[] = {"_cairn_comments", "_cairn_activity"};

}  // namespace

Status RenameTableReferences(db::Connection& connection,
                             const std::vector<std::pair<std::string, std::string>>& renames) {
  if (renames.empty()) return {};
  CAIRN_ASSIGN_OR_RETURN(const db::LiveSchema live,
                         connection.dialect().introspector().Read(connection));
  for (const std::string_view table : kReferencingTables) {
    if (live.FindTable(table) == nullptr) continue;
    const std::string sql = "UPDATE " + db::Identifier(table).quoted() +
                            " SET \"table_name\" = ? WHERE \"table_name\" = ?";
    for (const auto& [from, to] : renames) CAIRN_TRY(connection.Execute(sql, {to, from}));
  }
  return {};
}

}  // namespace cairn::schema_edit
