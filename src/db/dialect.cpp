#include "db/dialect.hpp"

#include <stdexcept>

namespace cairn::db {
namespace {

std::string QuoteName(std::string_view name) {
  std::string out;
  out.reserve(name.size() + 2);
  out += '"';
  for (const char c : name) {
    if (c == '"') out += '"';
    out += c;
  }
  out += '"';
  return out;
}

const char* InvalidIdentifierReason(std::string_view name) {
  if (name.empty()) return "an identifier may not be empty";
  if (name.find('\0') != std::string_view::npos) return "an identifier may not contain NUL";
  return nullptr;
}

}  // namespace

Identifier::Identifier(std::string_view name) {
  if (const char* reason = InvalidIdentifierReason(name)) throw std::invalid_argument(reason);
  name_ = std::string(name);
  quoted_ = QuoteName(name);
}

Result<Identifier> Identifier::Parse(std::string_view name) {
  if (const char* reason = InvalidIdentifierReason(name)) return Error::Validation(reason);
  return Identifier(name);
}

std::string_view Dialect::name() const {
  return is_postgres() ? "postgres" : "sqlite";
}

std::string Dialect::TranslatePlaceholders(std::string_view sql) const {
  if (!is_postgres()) return std::string(sql);
  std::string out;
  out.reserve(sql.size() + 16);
  int next = 1;
  std::size_t i = 0;
  // Copies a quoted run ('…' or "…", the quote doubled inside) starting at sql[i].
  const auto copy_quoted = [&](char quote) {
    out += sql[i++];
    while (i < sql.size()) {
      const char c = sql[i++];
      out += c;
      if (c == quote) {
        if (i < sql.size() && sql[i] == quote) {
          out += sql[i++];
        } else {
          return;
        }
      }
    }
  };
  while (i < sql.size()) {
    const char c = sql[i];
    if (c == '\'' || c == '"') {
      copy_quoted(c);
    } else if (c == '-' && i + 1 < sql.size() && sql[i + 1] == '-') {
      const std::size_t end = sql.find('\n', i);
      const std::size_t stop = end == std::string_view::npos ? sql.size() : end;
      out.append(sql.substr(i, stop - i));
      i = stop;
    } else if (c == '/' && i + 1 < sql.size() && sql[i + 1] == '*') {
      const std::size_t end = sql.find("*/", i + 2);
      const std::size_t stop = end == std::string_view::npos ? sql.size() : end + 2;
      out.append(sql.substr(i, stop - i));
      i = stop;
    } else if (c == '?') {
      out += '$';
      out += std::to_string(next++);
      ++i;
    } else {
      out += c;
      ++i;
    }
  }
  return out;
}

std::string Dialect::UpsertClause(std::span<const Identifier> conflict_columns,
                                  std::span<const Identifier> update_columns) const {
  std::string out = " ON CONFLICT (";
  for (std::size_t i = 0; i < conflict_columns.size(); ++i) {
    if (i > 0) out += ", ";
    conflict_columns[i].AppendTo(out);
  }
  out += ')';
  if (update_columns.empty()) {
    out += " DO NOTHING";
    return out;
  }
  out += " DO UPDATE SET ";
  for (std::size_t i = 0; i < update_columns.size(); ++i) {
    if (i > 0) out += ", ";
    update_columns[i].AppendTo(out);
    out += " = excluded.";
    update_columns[i].AppendTo(out);
  }
  return out;
}

std::string_view Dialect::ForUpdate() const {
  return is_postgres() ? " FOR UPDATE" : "";
}

std::string Dialect::JsonArrayAggregate(std::string_view value_sql,
                                        std::string_view from_where_sql) const {
  std::string out;
  if (is_postgres()) {
    out.append("(SELECT json_agg(").append(value_sql).append(" ORDER BY ").append(value_sql);
    out.append(")").append(from_where_sql).append(")");
    return out;
  }
  // SQLite before 3.44 has no ORDER BY inside aggregates; an ordered subquery is kept in order
  // (the flattener never merges an ORDER BY subquery into an aggregate).
  out.append("(SELECT json_group_array(\"v\") FROM (SELECT ").append(value_sql);
  out.append(" AS \"v\"").append(from_where_sql).append(" ORDER BY 1))");
  return out;
}

std::string_view Dialect::CreateUnloggedTable() const {
  return is_postgres() ? "CREATE UNLOGGED TABLE" : "CREATE TABLE";
}

std::string_view Dialect::BytewiseTextType() const {
  return is_postgres() ? "TEXT COLLATE \"C\"" : "TEXT";
}

std::vector<std::string> Dialect::UncompressedBlobColumn(const Identifier& table,
                                                         const Identifier& column) const {
  if (!is_postgres()) return {};
  return {"ALTER TABLE " + table.quoted() + " ALTER COLUMN " + column.quoted() +
          " SET STORAGE EXTERNAL"};
}

std::string_view Dialect::SessionId() const {
  return is_postgres() ? "pg_backend_pid()" : "0";
}

std::string Dialect::SessionAlive(std::string_view column_sql) const {
  if (!is_postgres()) return "0 = 1";
  return "EXISTS (SELECT 1 FROM pg_stat_activity WHERE pid = " + std::string(column_sql) + ")";
}

std::string Dialect::NotIndexed(std::string_view column_sql) const {
  return (is_postgres() ? "" : "+") + std::string(column_sql);
}

std::string_view Dialect::CaseInsensitiveLike() const {
  return is_postgres() ? "ILIKE" : "LIKE";
}

std::string Dialect::EscapeLike(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (const char c : text) {
    if (c == '%' || c == '_' || c == '\\') out += '\\';
    out += c;
  }
  return out;
}

std::string Dialect::StringLiteral(std::string_view text) {
  std::string out = "'";
  for (const char c : text) {
    if (c == '\'') out += '\'';
    out += c;
  }
  out += '\'';
  return out;
}

std::string_view Dialect::BoolLiteral(bool value) const {
  if (is_postgres()) return value ? "TRUE" : "FALSE";
  return value ? "1" : "0";
}

std::string Dialect::JsonArrayContainsText(std::string_view column_sql) const {
  std::string out;
  if (is_postgres()) {
    out += '(';
    out += column_sql;
    out += ") @> jsonb_build_array(CAST(? AS text))";
  } else {
    out += "EXISTS (SELECT 1 FROM json_each(";
    out += column_sql;
    out += ") WHERE json_each.value = ?)";
  }
  return out;
}

std::string Dialect::JsonAsText(std::string_view column_sql) const {
  std::string out(column_sql);
  if (is_postgres()) out += "::text";
  return out;
}

std::string Dialect::JsonArrayLength(std::string_view column_sql) const {
  std::string out = is_postgres() ? "jsonb_array_length(" : "json_array_length(";
  out += column_sql;
  out += ')';
  return out;
}

std::string Dialect::ColumnTypeSql(ColumnType type) const {
  const bool pg = is_postgres();
  switch (type.kind) {
    case ColumnKind::kId:
      return pg ? "BIGINT GENERATED BY DEFAULT AS IDENTITY PRIMARY KEY"
                : "INTEGER PRIMARY KEY AUTOINCREMENT";
    case ColumnKind::kInt64:
      return pg ? "BIGINT" : "INTEGER";
    case ColumnKind::kDouble:
      return pg ? "DOUBLE PRECISION" : "REAL";
    case ColumnKind::kText:
      return "TEXT";
    case ColumnKind::kBool:
      return pg ? "BOOLEAN" : "INTEGER";
    case ColumnKind::kTimestamp:
      return pg ? "TIMESTAMPTZ(3)" : "INTEGER";
    case ColumnKind::kDecimal:
      return pg ? "NUMERIC(38, " + std::to_string(type.scale) + ")" : "INTEGER";
    case ColumnKind::kJson:
      return pg ? "JSONB" : "TEXT";
    case ColumnKind::kBlob:
      return pg ? "BYTEA" : "BLOB";
  }
  return "TEXT";
}

std::string_view Dialect::IntrospectedTypeName(ColumnType type) const {
  const bool pg = is_postgres();
  switch (type.kind) {
    case ColumnKind::kId:
    case ColumnKind::kInt64:
      return pg ? "bigint" : "integer";
    case ColumnKind::kDouble:
      return pg ? "double precision" : "real";
    case ColumnKind::kText:
      return "text";
    case ColumnKind::kBool:
      return pg ? "boolean" : "integer";
    case ColumnKind::kTimestamp:
      return pg ? "timestamp with time zone" : "integer";
    case ColumnKind::kDecimal:
      return pg ? "numeric" : "integer";
    case ColumnKind::kJson:
      return pg ? "jsonb" : "text";
    case ColumnKind::kBlob:
      return pg ? "bytea" : "blob";
  }
  return "text";
}

std::string Dialect::DropTable(const Identifier& table) const {
  std::string out = "DROP TABLE " + table.quoted();
  if (is_postgres()) out += " CASCADE";
  return out;
}

std::optional<std::string> Dialect::MigrationLockSql() const {
  if (!is_postgres()) return std::nullopt;
  // Two-key form: a fixed class id for cairn migrations, and the schema the session works in,
  // so that nodes sharing a schema serialize while separate schemas (tests) do not.
  return std::string("SELECT pg_advisory_xact_lock(1667330414, hashtext(current_schema()))");
}

std::optional<std::string> Dialect::TryJobLockSql() const {
  if (!is_postgres()) return std::nullopt;
  // A class id of its own (the migration's plus one), so a job never waits for a migration.
  return std::string(
      "SELECT pg_try_advisory_xact_lock(1667330415, hashtext(current_schema() || ':' || ?))");
}

std::vector<std::string> Dialect::CopyIdSequence(std::string_view from, std::string_view to) const {
  if (is_postgres()) return {};  // never rebuilds tables
  return {"DELETE FROM sqlite_sequence WHERE name = " + StringLiteral(to),
          "INSERT INTO sqlite_sequence (name, seq) SELECT " + StringLiteral(to) +
              ", seq FROM sqlite_sequence WHERE name = " + StringLiteral(from)};
}

}  // namespace cairn::db
