// The full-text index behind `q` (D37), one implementation per backend, kept in step with every
// write by the database itself. It speaks in tables and columns; records/search_index.cpp says
// which columns of which table are searchable.
//   SQLite: one FTS5 table per table (tokenize='trigram': substring matches of 3+ characters,
//     case-insensitive), external content over the table, and triggers on insert, delete and
//     updates of the indexed columns. Its name carries a fingerprint of its columns, so a
//     config change swaps it for a new one, rebuilt from the table.
//   PostgreSQL: a pg_trgm GIN index per column, which serves the same ILIKE '%q%' the query
//     runs (when the extension cannot be created, search still works, without the index).
#pragma once

#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "common/result.hpp"
#include "db/database.hpp"

namespace cairn::db {

struct SearchColumn {
  std::string name;
  ColumnKind kind = ColumnKind::kText;  // kJson: matched within its serialized text
};

// A table and its searchable columns, in table order.
struct SearchTable {
  std::string name;
  std::vector<SearchColumn> columns;
};

class SearchIndex {
 public:
  virtual ~SearchIndex() = default;

  // Creates, repairs and drops the index structures so that they match `tables` (tables
  // without searchable columns are left out); run at startup, after the schema migration.
  virtual Status Sync(Database& database, std::span<const SearchTable> tables) const = 0;

  // Appends to `sql` a condition, true for the rows of `table` where one of `searched` (a
  // subset of table.columns, which the index covers) contains `q` ignoring case, and appends
  // its values to `params`. `searched` is not empty.
  virtual void AppendMatch(const SearchTable& table, std::span<const SearchColumn> searched,
                           std::string_view q, std::string& sql,
                           std::vector<Value>& params) const = 0;
};

// The condition every backend can fall back to: `searched` scanned with a case-insensitive LIKE
// '%q%' (the form PostgreSQL's trigram indexes serve).
void AppendScanMatch(const Dialect& dialect, std::span<const SearchColumn> searched,
                     std::string_view q, std::string& sql, std::vector<Value>& params);

}  // namespace cairn::db
