#include "schema/introspect.hpp"

#include <algorithm>
#include <map>

namespace cairn::schema {
namespace {

std::string Lower(std::string_view text) {
  std::string out(text);
  for (char& c : out) {
    if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
  }
  return out;
}

Result<LiveSchema> IntrospectSqlite(db::Connection& connection) {
  LiveSchema schema;
  CAIRN_TRY(connection.Execute(
      "SELECT name FROM sqlite_schema WHERE type = 'table' AND name NOT LIKE 'sqlite\\_%' "
      "ESCAPE '\\' ORDER BY name",
      {}, [&](const db::Row& row) { schema.tables.push_back({std::string(row.GetText(0))}); }));
  for (auto& table : schema.tables) {
    const std::string name = table.name;
    CAIRN_TRY(
        connection.Execute("SELECT name, type, \"notnull\" FROM pragma_table_info(?) ORDER BY cid",
                           {name}, [&](const db::Row& row) {
                             table.columns.push_back({std::string(row.GetText(0)),
                                                      Lower(row.GetText(1)), row.GetBool(2)});
                           }));
    CAIRN_TRY(connection.Execute(
        "SELECT name, \"unique\" FROM pragma_index_list(?) ORDER BY name", {name},
        [&](const db::Row& row) {
          table.indexes.push_back({std::string(row.GetText(0)), {}, row.GetBool(1)});
        }));
    for (auto& index : table.indexes) {
      const std::string index_name = index.name;
      CAIRN_TRY(connection.Execute("SELECT name FROM pragma_index_info(?) ORDER BY seqno",
                                   {index_name}, [&](const db::Row& row) {
                                     index.columns.emplace_back(row.IsNull(0) ? std::string_view()
                                                                              : row.GetText(0));
                                   }));
    }
  }
  return schema;
}

Result<LiveSchema> IntrospectPostgres(db::Connection& connection) {
  LiveSchema schema;
  std::map<std::string, LiveTable> tables;
  CAIRN_TRY(
      connection.Execute("SELECT table_name FROM information_schema.tables "
                         "WHERE table_schema = current_schema() AND table_type = 'BASE TABLE'",
                         {}, [&](const db::Row& row) {
                           const std::string name(row.GetText(0));
                           tables[name].name = name;
                         }));
  CAIRN_TRY(connection.Execute(
      "SELECT table_name, column_name, data_type, is_nullable FROM information_schema.columns "
      "WHERE table_schema = current_schema() ORDER BY table_name, ordinal_position",
      {}, [&](const db::Row& row) {
        const auto it = tables.find(std::string(row.GetText(0)));
        if (it == tables.end()) return;  // a view
        it->second.columns.push_back(
            {std::string(row.GetText(1)), Lower(row.GetText(2)), row.GetText(3) == "NO"});
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
      {}, [&](const db::Row& row) {
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

}  // namespace

const LiveColumn* LiveTable::FindColumn(std::string_view column) const {
  for (const auto& c : columns) {
    if (c.name == column) return &c;
  }
  return nullptr;
}

const LiveIndex* LiveTable::FindIndex(std::string_view index) const {
  for (const auto& i : indexes) {
    if (i.name == index) return &i;
  }
  return nullptr;
}

const LiveTable* LiveSchema::FindTable(std::string_view table) const {
  for (const auto& t : tables) {
    if (t.name == table) return &t;
  }
  return nullptr;
}

Result<LiveSchema> Introspect(db::Connection& connection) {
  if (connection.dialect().is_postgres()) return IntrospectPostgres(connection);
  return IntrospectSqlite(connection);
}

}  // namespace cairn::schema
