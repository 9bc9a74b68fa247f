// The physical model of the configured tables: which tables, columns and indexes the database
// must hold for an AppConfig (D4, D30). Records and queries use the same mapping (ColumnNameOf,
// JunctionTableName, …) so that storage and migration never disagree. Column types come from
// the field codecs (records::FieldCodec::Column).
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "common/result.hpp"
#include "config/model.hpp"
#include "db/dialect.hpp"

namespace cairn::schema {

// System columns of every table (D30).
inline constexpr std::string_view kIdColumn = "id";
inline constexpr std::string_view kCreatedAtColumn = "created_at";
inline constexpr std::string_view kUpdatedAtColumn = "updated_at";
inline constexpr std::string_view kDeletedAtColumn = "deleted_at";
inline constexpr std::string_view kCreatedByColumn = "created_by";
inline constexpr std::string_view kUpdatedByColumn = "updated_by";
inline constexpr std::string_view kDeletedByColumn = "deleted_by";
// Columns of a many-to-many junction table.
inline constexpr std::string_view kJunctionSourceColumn = "source_id";
inline constexpr std::string_view kJunctionTargetColumn = "target_id";
// Every managed index (and foreign-key constraint added after CREATE TABLE) is named cx_…;
// the migrator drops cx_ indexes the config no longer asks for and never touches others.
inline constexpr std::string_view kManagedIndexPrefix = "cx_";
// Tables cairn keeps for itself start with this prefix (config names start with a letter).
inline constexpr std::string_view kInternalTablePrefix = "_cairn_";

struct ColumnModel {
  std::string name;
  db::ColumnType type;
  bool not_null = false;
  // A reference to `references`("id") (many-to-one fields and junction columns).
  std::string references;  // physical table name; empty: none
  config::OnDelete on_delete = config::OnDelete::kSetNull;

  // What the column holds, recorded in _cairn_columns to detect type changes that the
  // physical type cannot show (SQLite stores ints, booleans, timestamps and decimals alike):
  // `id`, `int64`, `text`, `bool`, `timestamp`, `decimal(2)`, `json`, `ref(companies)`, …
  std::string Signature() const;
};

struct IndexModel {
  std::string name;  // cx_<table>_<columns>_<hash>, at most 63 bytes
  std::vector<std::string> columns;
  bool unique = false;
  std::string fields_label;  // config field names, for messages (`email`, `first, last`)
};

enum class TableKind { kTable, kJunction };

struct TableModel {
  std::string name;   // physical name (Table::sql_name, or the junction name)
  std::string label;  // for messages: the config table name, or `contacts.tags` for a junction
  TableKind kind = TableKind::kTable;
  std::vector<ColumnModel> columns;      // id first for tables
  std::vector<std::string> primary_key;  // junction: source_id, target_id
  std::vector<IndexModel> indexes;

  const ColumnModel* FindColumn(std::string_view column) const;
};

struct SchemaModel {
  std::vector<TableModel> tables;  // config tables in config order, then junction tables
  const TableModel* FindTable(std::string_view name) const;
};

// The model of `config`. Fails when two tables would share a physical name, a relationship
// names an unknown table, an index names an unknown field or a decimal scale is out of range.
Result<SchemaModel> BuildSchemaModel(const config::AppConfig& config);

// The system column a field type maps to (`created_by` for created-by, …), if any.
std::optional<std::string_view> SystemColumnOf(config::FieldType type);
// The column that holds a field's value: its system column, its own name, or none for
// one-to-many and many-to-many relationships.
std::optional<std::string> ColumnNameOf(const config::Field& field);
// `<table>__<field>`, shortened with a hash when longer than 63 bytes.
std::string JunctionTableName(const config::Table& table, const config::Field& field);
// A deterministic cx_ name for an index over `columns` of `table` (the hash covers the exact
// table, columns and uniqueness, so any change gives a new name).
std::string ManagedIndexName(std::string_view table, const std::vector<std::string>& columns,
                             bool unique);

// FNV-1a 64 of `text` as 16 hex digits (stable names and checksums; not for security).
std::string Fnv1aHex(std::string_view text);

// `"name" TYPE [NOT NULL] [REFERENCES "t" ("id") ON DELETE …]` for CREATE TABLE / ADD COLUMN.
std::string ColumnDefinition(const db::Dialect& dialect, const ColumnModel& column,
                             bool with_reference);
std::string_view OnDeleteSql(config::OnDelete on_delete);

}  // namespace cairn::schema
