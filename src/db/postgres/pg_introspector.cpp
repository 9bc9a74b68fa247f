// PostgreSQL's catalog: information_schema for tables and columns, pg_index for index keys.
#include <map>

#include "db/postgres/pg_schema_objects.hpp"

namespace cairn::db::postgres {
namespace {

class PgIntrospectorImpl final : public Introspector {
 public:
  Result<LiveSchema> Read(Connection& connection) const override {
    LiveSchema schema;
    std::map<std::string, LiveTable> tables;
    CAIRN_TRY(
        connection.Execute("SELECT table_name FROM information_schema.tables "
                           "WHERE table_schema = current_schema() AND table_type = 'BASE TABLE'",
                           {}, [&](const Row& row) {
                             const std::string name(row.GetText(0));
                             tables[name].name = name;
                           }));
    CAIRN_TRY(connection.Execute(
        "SELECT table_name, column_name, data_type, is_nullable FROM information_schema.columns "
        "WHERE table_schema = current_schema() ORDER BY table_name, ordinal_position",
        {}, [&](const Row& row) {
          const auto it = tables.find(std::string(row.GetText(0)));
          if (it == tables.end()) return;  // a view
          it->second.columns.push_back(
              {std::string(row.GetText(1)), AsciiLower(row.GetText(2)), row.GetText(3) == "NO"});
        }));
    CAIRN_TRY(connection.Execute(
        "SELECT t.relname, i.relname, ix.indisunique, a.attname "
        "FROM pg_index ix "
        "JOIN pg_class i ON i.oid = ix.indexrelid "
        "JOIN pg_class t ON t.oid = ix.indrelid "
        "JOIN pg_namespace n ON n.oid = t.relnamespace "
        "CROSS JOIN LATERAL unnest(ix.indkey::int2[]) WITH ORDINALITY AS k(attnum, ord) "
        "LEFT JOIN pg_attribute a ON a.attrelid = t.oid AND a.attnum = k.attnum "
        "WHERE n.nspname = current_schema() "
        "ORDER BY t.relname, i.relname, k.ord",
        {}, [&](const Row& row) {
          const auto it = tables.find(std::string(row.GetText(0)));
          if (it == tables.end()) return;
          auto& indexes = it->second.indexes;
          const std::string_view index_name = row.GetText(1);
          if (indexes.empty() || indexes.back().name != index_name) {
            indexes.push_back({std::string(index_name), {}, row.GetBool(2)});
          }
          indexes.back().columns.emplace_back(row.IsNull(3) ? std::string_view() : row.GetText(3));
        }));
    for (auto& [name, table] : tables) schema.tables.push_back(std::move(table));
    return schema;
  }
};

}  // namespace

const Introspector& PgIntrospector() {
  static const PgIntrospectorImpl introspector;
  return introspector;
}

}  // namespace cairn::db::postgres
