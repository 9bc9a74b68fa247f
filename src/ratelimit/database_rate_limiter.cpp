// The shared limiter: one row per key in `_cairn_rate_limits`, counted by ONE upsert per hit.
// INSERT … ON CONFLICT DO UPDATE is atomic on both backends (PostgreSQL locks the conflicting
// row and re-evaluates the update; SQLite has one writer), so concurrent hits from any number of
// nodes are each counted exactly once. The upsert is Count() of sliding_window.cpp in SQL.
#include <atomic>
#include <string>

#include "common/log.hpp"
#include "db/database.hpp"
#include "ratelimit/limits.hpp"
#include "ratelimit/rate_limiter.hpp"
#include "ratelimit/sliding_window.hpp"

namespace cairn::ratelimit {
namespace {

// `expires_at` (window_start + 2 windows) lets any node purge any row without knowing the limit
// it was counted under.
std::string CreateTableSql(const db::Dialect& dialect) {
  std::string sql(dialect.CreateUnloggedTable());
  sql += " IF NOT EXISTS \"_cairn_rate_limits\" (\"key\" ";
  sql += dialect.ColumnTypeSql({db::ColumnKind::kText});
  sql += " PRIMARY KEY";
  for (const char* column : {"window_start", "count", "previous_count", "expires_at"}) {
    sql += ", ";
    db::Identifier(column).AppendTo(sql);
    sql += ' ';
    sql += dialect.ColumnTypeSql({db::ColumnKind::kInt64});
    sql += " NOT NULL";
  }
  sql += ')';
  return sql;
}

// Parameters: key, window start, expires at, start of the window before. A stored window at or
// after ours (another node's clock is slightly ahead) is kept and counted into.
constexpr std::string_view kUpsertSql =
    "INSERT INTO \"_cairn_rate_limits\" "
    "(\"key\", \"window_start\", \"count\", \"previous_count\", \"expires_at\") "
    "VALUES (?, ?, 1, 0, ?) ON CONFLICT (\"key\") DO UPDATE SET "
    "\"count\" = CASE WHEN \"_cairn_rate_limits\".\"window_start\" >= excluded.\"window_start\" "
    "THEN \"_cairn_rate_limits\".\"count\" + 1 ELSE 1 END, "
    "\"previous_count\" = CASE "
    "WHEN \"_cairn_rate_limits\".\"window_start\" >= excluded.\"window_start\" "
    "THEN \"_cairn_rate_limits\".\"previous_count\" "
    "WHEN \"_cairn_rate_limits\".\"window_start\" = ? THEN \"_cairn_rate_limits\".\"count\" "
    "ELSE 0 END, "
    "\"window_start\" = CASE "
    "WHEN \"_cairn_rate_limits\".\"window_start\" >= excluded.\"window_start\" "
    "THEN \"_cairn_rate_limits\".\"window_start\" ELSE excluded.\"window_start\" END, "
    "\"expires_at\" = CASE "
    "WHEN \"_cairn_rate_limits\".\"window_start\" >= excluded.\"window_start\" "
    "THEN \"_cairn_rate_limits\".\"expires_at\" ELSE excluded.\"expires_at\" END "
    "RETURNING \"window_start\", \"count\", \"previous_count\"";

// A refused hit is taken back (rate_limiter.hpp), in the same transaction: only refusals pay
// for a second statement. Parameters: key, the window the upsert returned.
constexpr std::string_view kUncountSql =
    "UPDATE \"_cairn_rate_limits\" SET \"count\" = \"count\" - 1 "
    "WHERE \"key\" = ? AND \"window_start\" = ? AND \"count\" > 0";

constexpr std::string_view kPurgeSql =
    "DELETE FROM \"_cairn_rate_limits\" WHERE \"expires_at\" <= ?";

class DatabaseRateLimiter final : public RateLimiter {
 public:
  explicit DatabaseRateLimiter(db::Database& database) : database_(database) {}

  Result<Decision> Hit(std::string_view key, const Limit& limit, std::int64_t now_ms) override {
    const std::int64_t start = WindowStart(now_ms, limit.window_ms);
    const db::Value params[] = {key, start, ExpiresAt(start, limit.window_ms),
                                start - limit.window_ms};
    Decision decision;
    CAIRN_TRY(database_.Transaction(db::Access::kWrite, [&](db::Connection& connection) -> Status {
      WindowState state;
      bool returned = false;
      CAIRN_TRY(connection.Execute(kUpsertSql, params, [&](const db::Row& row) {
        state = WindowState{row.GetInt64(0), row.GetInt64(1), row.GetInt64(2)};
        returned = true;
      }));
      if (!returned) return Error::Internal("rate limit upsert returned no row");
      decision = Decide(state, limit, now_ms);
      if (!decision.allowed) {
        CAIRN_TRY(connection.Execute(kUncountSql, {db::Value(key), db::Value(state.window_start)}));
      }
      return {};
    }));
    MaybePurge(now_ms);
    return decision;
  }

 private:
  // Deletes expired rows once per kPurgeIntervalMs on this node (the first hit purges too,
  // clearing what a previous run left). A failed purge is logged and retried next interval.
  void MaybePurge(std::int64_t now_ms) {
    std::int64_t due = next_purge_ms_.load(std::memory_order_relaxed);
    if (now_ms < due) return;
    if (!next_purge_ms_.compare_exchange_strong(due, now_ms + kPurgeIntervalMs)) return;
    const Status purged =
        database_.Transaction(db::Access::kWrite, [&](db::Connection& connection) -> Status {
          CAIRN_TRY(connection.Execute(kPurgeSql, {db::Value(now_ms)}));
          return {};
        });
    if (!purged.ok()) {
      log::Warn("rate limit: purging expired counters failed: " + purged.error().message + " " +
                purged.error().detail);
    }
  }

  db::Database& database_;
  std::atomic<std::int64_t> next_purge_ms_{0};
};

}  // namespace

Result<std::unique_ptr<RateLimiter>> MakeDatabaseRateLimiter(db::Database& database) {
  const std::string create = CreateTableSql(database.dialect());
  // Nodes starting together would race on CREATE TABLE IF NOT EXISTS (PostgreSQL then fails
  // with `type … already exists`): creating the table is a small migration, so it takes the
  // migration lock (in a schema transaction, which may wait for it as long as a migration
  // takes), and the later node finds the table.
  CAIRN_TRY(database.Transaction(db::Access::kSchema, [&](db::Connection& connection) -> Status {
    if (const auto lock = connection.dialect().MigrationLockSql()) {
      CAIRN_TRY(connection.Execute(*lock, {}));
    }
    return connection.ExecuteScript(create);
  }));
  return std::unique_ptr<RateLimiter>(std::make_unique<DatabaseRateLimiter>(database));
}

}  // namespace cairn::ratelimit
