#include "schema/physical_model.hpp"

#include <algorithm>
#include <cstdint>
#include <map>

#include "records/field_codec.hpp"

namespace cairn::schema {
namespace {

using config::FieldType;

std::string Lower(std::string_view text) {
  std::string out(text);
  for (char& c : out) {
    if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
  }
  return out;
}

// The related table of a relationship: by name as written, then case-insensitively, then by
// physical name (the config loader has already checked that it exists).
const config::Table* FindRelated(const config::AppConfig& config, std::string_view name) {
  for (const auto& table : config.tables) {
    if (table.name == name) return &table;
  }
  const std::string lower = Lower(name);
  for (const auto& table : config.tables) {
    if (Lower(table.name) == lower || table.sql_name == name) return &table;
  }
  return nullptr;
}

// `prefix` cut so that `prefix_<16 hex>` fits the identifier limit when needed.
std::string Shortened(std::string readable, std::string_view hash_input, bool always_hash) {
  const std::string hash = Fnv1aHex(hash_input).substr(0, 8);
  if (!always_hash && readable.size() <= db::kMaxIdentifierBytes) return readable;
  const std::size_t room = db::kMaxIdentifierBytes - hash.size() - 1;
  if (readable.size() > room) readable.resize(room);
  return readable + "_" + hash;
}

ColumnModel SystemColumn(std::string_view name, db::ColumnKind kind) {
  return ColumnModel{std::string(name), {kind, 0}};
}

std::string JoinLabels(const std::vector<std::string>& names) {
  std::string out;
  for (const auto& name : names) {
    if (!out.empty()) out += ", ";
    out += name;
  }
  return out;
}

void AddIndex(TableModel& table, std::vector<std::string> columns, bool unique,
              std::string fields_label) {
  IndexModel index{ManagedIndexName(table.name, columns, unique), std::move(columns), unique,
                   std::move(fields_label)};
  for (const auto& existing : table.indexes) {
    if (existing.name == index.name) return;
  }
  table.indexes.push_back(std::move(index));
}

// A non-unique index also holds deleted_at, so that counting and filtering live rows by its
// columns reads the index alone instead of visiting each row for its deleted_at.
std::vector<std::string> WithDeletedAt(std::vector<std::string> columns) {
  columns.emplace_back(kDeletedAtColumn);
  return columns;
}

}  // namespace

std::string Fnv1aHex(std::string_view text) {
  std::uint64_t hash = 14695981039346656037ULL;
  for (const char c : text) {
    hash ^= static_cast<unsigned char>(c);
    hash *= 1099511628211ULL;
  }
  static constexpr char kDigits[] = "0123456789abcdef";
  std::string out(16, '0');
  for (int i = 15; i >= 0; --i, hash >>= 4) out[static_cast<std::size_t>(i)] = kDigits[hash & 15];
  return out;
}

std::string ColumnModel::Signature() const {
  if (!references.empty()) return "ref(" + references + ")";
  switch (type.kind) {
    case db::ColumnKind::kId:
      return "id";
    case db::ColumnKind::kInt64:
      return "int64";
    case db::ColumnKind::kDouble:
      return "double";
    case db::ColumnKind::kText:
      return "text";
    case db::ColumnKind::kBool:
      return "bool";
    case db::ColumnKind::kTimestamp:
      return "timestamp";
    case db::ColumnKind::kDecimal:
      return "decimal(" + std::to_string(type.scale) + ")";
    case db::ColumnKind::kJson:
      return "json";
    case db::ColumnKind::kBlob:
      return "blob";
  }
  return "text";
}

const ColumnModel* TableModel::FindColumn(std::string_view column) const {
  for (const auto& c : columns) {
    if (c.name == column) return &c;
  }
  return nullptr;
}

const TableModel* SchemaModel::FindTable(std::string_view name) const {
  for (const auto& t : tables) {
    if (t.name == name) return &t;
  }
  return nullptr;
}

std::optional<std::string_view> SystemColumnOf(FieldType type) {
  switch (type) {
    case FieldType::kCreatedBy:
      return kCreatedByColumn;
    case FieldType::kUpdatedBy:
      return kUpdatedByColumn;
    case FieldType::kDeletedBy:
      return kDeletedByColumn;
    case FieldType::kUpdatedAt:
      return kUpdatedAtColumn;
    default:
      return std::nullopt;
  }
}

std::optional<std::string> ColumnNameOf(const config::Field& field) {
  if (const auto system = SystemColumnOf(field.type)) return std::string(*system);
  if (field.type == FieldType::kRelationship &&
      field.relation_type != config::RelationType::kManyToOne) {
    return std::nullopt;
  }
  return field.name;
}

std::string JunctionTableName(const config::Table& table, const config::Field& field) {
  return Shortened(table.sql_name + "__" + field.name, table.sql_name + '\0' + field.name, false);
}

std::string ManagedIndexName(std::string_view table, const std::vector<std::string>& columns,
                             bool unique) {
  std::string readable = std::string(kManagedIndexPrefix) + std::string(table);
  std::string hash_input(table);
  for (const auto& column : columns) {
    readable += '_';
    readable += column;
    hash_input += '\0';
    hash_input += column;
  }
  hash_input += unique ? std::string_view("\0unique", 7) : std::string_view("\0index", 6);
  return Shortened(std::move(readable), hash_input, true);
}

std::string_view OnDeleteSql(config::OnDelete on_delete) {
  switch (on_delete) {
    case config::OnDelete::kRestrict:
      return "RESTRICT";
    case config::OnDelete::kCascade:
      return "CASCADE";
    case config::OnDelete::kSetNull:
      return "SET NULL";
  }
  return "SET NULL";
}

std::string ColumnDefinition(const db::Dialect& dialect, const ColumnModel& column,
                             bool with_reference) {
  std::string out = db::Identifier(column.name).quoted();
  out += ' ';
  out += dialect.ColumnTypeSql(column.type);
  if (column.not_null) out += " NOT NULL";
  if (with_reference && !column.references.empty()) {
    out += " REFERENCES " + db::Identifier(column.references).quoted() + " (\"id\") ON DELETE ";
    out += OnDeleteSql(column.on_delete);
  }
  return out;
}

Result<SchemaModel> BuildSchemaModel(const config::AppConfig& config) {
  SchemaModel model;
  std::vector<TableModel> junctions;
  std::map<std::string, std::string> owners;  // physical name → label, to catch collisions
  const auto claim = [&](const std::string& name, const std::string& label) -> Status {
    const auto [it, inserted] = owners.emplace(name, label);
    if (!inserted) {
      return Error::Validation("tables \"" + it->second + "\" and \"" + label +
                               "\" would both be stored as \"" + name + "\"; rename one of them");
    }
    return {};
  };

  for (const auto& table : config.tables) {
    TableModel t{table.sql_name, table.name, TableKind::kTable};
    CAIRN_TRY(claim(t.name, t.label));
    t.columns.push_back(SystemColumn(kIdColumn, db::ColumnKind::kId));
    t.columns.push_back(SystemColumn(kCreatedAtColumn, db::ColumnKind::kTimestamp));
    t.columns.push_back(SystemColumn(kUpdatedAtColumn, db::ColumnKind::kTimestamp));
    t.columns.push_back(SystemColumn(kDeletedAtColumn, db::ColumnKind::kTimestamp));
    t.columns.push_back(SystemColumn(kCreatedByColumn, db::ColumnKind::kText));
    t.columns.push_back(SystemColumn(kUpdatedByColumn, db::ColumnKind::kText));
    t.columns.push_back(SystemColumn(kDeletedByColumn, db::ColumnKind::kText));
    AddIndex(t, {std::string(kDeletedAtColumn)}, false, std::string(kDeletedAtColumn));

    for (const auto& field : table.fields) {
      const std::string where = "field \"" + field.name + "\" of table \"" + table.name + "\"";
      const config::Table* related = nullptr;
      if (field.type == FieldType::kRelationship) {
        related = FindRelated(config, field.related_table);
        if (related == nullptr) {
          return Error::Validation(where + " refers to unknown table \"" + field.related_table +
                                   "\"");
        }
      }
      if (field.type == FieldType::kRelationship &&
          field.relation_type == config::RelationType::kManyToMany) {
        TableModel j{JunctionTableName(table, field), table.name + "." + field.name,
                     TableKind::kJunction};
        j.columns.push_back(ColumnModel{std::string(kJunctionSourceColumn),
                                        {db::ColumnKind::kInt64},
                                        true,
                                        table.sql_name,
                                        config::OnDelete::kCascade});
        j.columns.push_back(ColumnModel{std::string(kJunctionTargetColumn),
                                        {db::ColumnKind::kInt64},
                                        true,
                                        related->sql_name,
                                        config::OnDelete::kCascade});
        j.primary_key = {std::string(kJunctionSourceColumn), std::string(kJunctionTargetColumn)};
        AddIndex(j, {std::string(kJunctionTargetColumn)}, false,
                 std::string(kJunctionTargetColumn));
        junctions.push_back(std::move(j));
        continue;
      }
      const auto column_name = ColumnNameOf(field);
      const auto column_type = records::CodecOf(field).Column(field);
      if (!column_name || !column_type) continue;  // one-to-many: computed from the other side
      if (column_type->kind == db::ColumnKind::kDecimal &&
          (field.scale < 0 || field.scale > db::kMaxDecimalScale)) {
        return Error::Validation(where + " has scale " + std::to_string(field.scale) +
                                 "; at most " + std::to_string(db::kMaxDecimalScale) +
                                 " decimal places are stored exactly");
      }
      if (!SystemColumnOf(field.type) && t.FindColumn(*column_name) == nullptr) {
        ColumnModel column{*column_name, *column_type};
        if (related != nullptr) {
          column.references = related->sql_name;
          column.on_delete = field.on_delete;
        }
        t.columns.push_back(std::move(column));
      }
      if (field.unique) {
        AddIndex(t, {*column_name}, true, field.name);
      } else if (field.indexed || related != nullptr) {  // references are indexed for joins
        AddIndex(t, WithDeletedAt({*column_name}), false, field.name);
      }
    }

    for (const auto& spec : table.indexes) {
      std::vector<std::string> columns;
      for (const auto& field_name : spec.fields) {
        const config::Field* field = nullptr;
        for (const auto& f : table.fields) {
          if (f.name == field_name) field = &f;
        }
        const auto column = field != nullptr ? ColumnNameOf(*field) : std::nullopt;
        if (!column) {
          return Error::Validation("an index of table \"" + table.name + "\" names field \"" +
                                   field_name + "\", which has no column of its own");
        }
        columns.push_back(*column);
      }
      if (!columns.empty()) {
        AddIndex(t, spec.unique ? std::move(columns) : WithDeletedAt(std::move(columns)),
                 spec.unique, JoinLabels(spec.fields));
      }
    }
    model.tables.push_back(std::move(t));
  }
  for (auto& j : junctions) {
    CAIRN_TRY(claim(j.name, j.label));
    model.tables.push_back(std::move(j));
  }
  return model;
}

}  // namespace cairn::schema
