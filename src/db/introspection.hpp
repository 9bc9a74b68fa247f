// What the live database holds: tables, columns and indexes of the current schema (SQLite: the
// main database; PostgreSQL: current_schema()). Each backend reads its own catalog.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "common/result.hpp"
#include "db/database.hpp"

namespace cairn::db {

struct LiveColumn {
  std::string name;
  std::string type;  // lowercase: SQLite's declared type, PostgreSQL's data_type
  bool not_null = false;
};

struct LiveIndex {
  std::string name;
  std::vector<std::string> columns;  // key columns in order (empty entries for expressions)
  bool unique = false;
};

struct LiveTable {
  std::string name;
  std::vector<LiveColumn> columns;  // in table order
  std::vector<LiveIndex> indexes;   // including the backend's own (primary key, …)

  const LiveColumn* FindColumn(std::string_view column) const;
  const LiveIndex* FindIndex(std::string_view index) const;
};

struct LiveSchema {
  std::vector<LiveTable> tables;  // sorted by name
  const LiveTable* FindTable(std::string_view table) const;
};

class Introspector {
 public:
  virtual ~Introspector() = default;
  virtual Result<LiveSchema> Read(Connection& connection) const = 0;
};

// `text` in ASCII lowercase (catalogs report type names in either case).
std::string AsciiLower(std::string_view text);

}  // namespace cairn::db
