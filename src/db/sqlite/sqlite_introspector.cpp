// SQLite's catalog: sqlite_schema and the table-valued pragmas.
#include "db/sqlite/sqlite_schema_objects.hpp"

namespace cairn::db::sqlite {
namespace {

class SqliteIntrospectorImpl final : public Introspector {
 public:
  Result<LiveSchema> Read(Connection& connection) const override {
    LiveSchema schema;
    CAIRN_TRY(connection.Execute(
        "SELECT name FROM sqlite_schema WHERE type = 'table' AND name NOT LIKE 'sqlite\\_%' "
        "ESCAPE '\\' ORDER BY name",
        {}, [&](const Row& row) { schema.tables.push_back({std::string(row.GetText(0))}); }));
    for (auto& table : schema.tables) {
      const std::string name = table.name;
      CAIRN_TRY(connection.Execute(
          "SELECT name, type, \"notnull\" FROM pragma_table_info(?) ORDER BY cid", {name},
          [&](const Row& row) {
            table.columns.push_back(
                {std::string(row.GetText(0)), AsciiLower(row.GetText(1)), row.GetBool(2)});
          }));
      CAIRN_TRY(connection.Execute(
          "SELECT name, \"unique\" FROM pragma_index_list(?) ORDER BY name", {name},
          [&](const Row& row) {
            table.indexes.push_back({std::string(row.GetText(0)), {}, row.GetBool(1)});
          }));
      for (auto& index : table.indexes) {
        const std::string index_name = index.name;
        CAIRN_TRY(connection.Execute("SELECT name FROM pragma_index_info(?) ORDER BY seqno",
                                     {index_name}, [&](const Row& row) {
                                       index.columns.emplace_back(row.IsNull(0) ? std::string_view()
                                                                                : row.GetText(0));
                                     }));
      }
    }
    return schema;
  }
};

}  // namespace

const Introspector& SqliteIntrospector() {
  static const SqliteIntrospectorImpl introspector;
  return introspector;
}

}  // namespace cairn::db::sqlite
