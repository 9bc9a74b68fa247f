#include "records/search_index.hpp"

#include "records/field_codec.hpp"
#include "schema/physical_model.hpp"

namespace cairn::records {

db::SearchColumn SearchColumnOf(const config::Field& field) {
  return {*schema::ColumnNameOf(field), CodecOf(field).Column(field)->kind};
}

db::SearchTable SearchTableOf(const config::Table& table) {
  db::SearchTable out{table.sql_name, {}};
  for (const config::Field& field : table.fields) {
    if (CodecOf(field).Searchable()) out.columns.push_back(SearchColumnOf(field));
  }
  return out;
}

Status EnsureSearchIndexes(db::Database& database, const config::AppConfig& config) {
  std::vector<db::SearchTable> tables;
  for (const config::Table& table : config.tables) {
    db::SearchTable searched = SearchTableOf(table);
    if (!searched.columns.empty()) tables.push_back(std::move(searched));
  }
  return database.dialect().search_index().Sync(database, tables);
}

}  // namespace cairn::records
