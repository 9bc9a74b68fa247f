#include "records/search_index.hpp"

#include "schema/physical_model.hpp"

namespace cairn::records {

bool IsSearchable(const config::Field& field) {
  switch (field.type) {
    case config::FieldType::kSingleLineText:
    case config::FieldType::kLongText:
    case config::FieldType::kEmail:
    case config::FieldType::kUrl:
    case config::FieldType::kPhoneNumber:
    case config::FieldType::kSingleSelect:
    case config::FieldType::kMultiSelect:
      return true;
    default:
      return false;
  }
}

db::SearchColumn SearchColumnOf(const config::Field& field) {
  return {*schema::ColumnNameOf(field), schema::ColumnTypeOf(field)->kind};
}

db::SearchTable SearchTableOf(const config::Table& table) {
  db::SearchTable out{table.sql_name, {}};
  for (const config::Field& field : table.fields) {
    if (IsSearchable(field)) out.columns.push_back(SearchColumnOf(field));
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
