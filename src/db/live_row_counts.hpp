// The number of live (not soft-deleted) rows of a table, one implementation per backend. The
// tables are the ones with a `deleted_at` column that the migration manages.
//   SQLite: nothing kept; a bare COUNT(*) walks the smallest b-tree in memory.
//   PostgreSQL: counters kept by triggers (postgres/pg_live_row_counts.cpp), because its exact
//     COUNT(*) visits every row (100 000 rows in milliseconds).
#pragma once

#include <functional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "common/result.hpp"
#include "db/database.hpp"

namespace cairn::db {

// A statement yielding one integer, with its parameters.
struct LiveRowCountQuery {
  std::string sql;
  std::vector<Value> params;
};

class LiveRowCounts {
 public:
  virtual ~LiveRowCounts() = default;

  // Makes the counting follow `tables` (physical names): installs it on tables that lack it
  // (new, rebuilt, or from before counters) and counts them afresh, forgets tables no longer
  // listed. Run inside the migration's transaction.
  virtual Status Sync(Connection& connection, std::span<const std::string> tables) const = 0;

  // Runs `work`, statements of one write transaction on `connection`, with the counting
  // deferred to one counter write per table at its end (batches).
  virtual Status WithDeferred(Connection& connection,
                              const std::function<Status()>& work) const = 0;

  // The live rows of `table` (a physical name).
  virtual LiveRowCountQuery Count(std::string_view table) const = 0;
};

}  // namespace cairn::db
