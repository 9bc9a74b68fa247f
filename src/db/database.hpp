// The one database interface. db/sqlite and db/postgres implement it; nothing else includes a
// driver header. Driver errors are mapped once, in each backend, to DbErrorKind.
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <initializer_list>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "common/result.hpp"
#include "db/dialect.hpp"
#include "db/limits.hpp"
#include "db/notification_channel.hpp"
#include "db/row.hpp"
#include "db/value.hpp"

namespace cairn::db {

// What a driver error means to cairn.
// kTimeout: a statement or lock wait cut short by a PostgreSQL timeout (statement_timeout,
// lock_timeout); kFull: the database is out of disk space (SQLITE_FULL, PostgreSQL 53100).
enum class DbErrorKind { kUnique, kForeignKey, kBusy, kUnavailable, kTimeout, kFull, kOther };

// A materialized result, for small results off the hot path.
struct Rows {
  std::vector<std::string> columns;
  std::vector<std::vector<std::optional<std::string>>> rows;  // text form of every cell
};

using RowCallback = std::function<void(const Row&)>;

// Counters of one connection's statement cache and server traffic (tests and diagnostics).
struct ConnectionStats {
  std::uint64_t prepares = 0;    // statements compiled (cache misses)
  std::uint64_t cache_hits = 0;  // executions that reused a cached statement
  // Requests sent to the server and waited for (PostgreSQL; always 0 on SQLite). A COMMIT sent
  // without waiting is not one.
  std::uint64_t round_trips = 0;
};

// One connection, used by one thread at a time. Statements are prepared once per connection
// and cached by SQL text. Placeholders are written `?` and translated by the backend.
//
// Bound values: Decimal binds its units as they are, so its scale must be the column's scale
// (SQLite stores the units); Timestamp binds epoch millis (SQLite) or ISO text (PostgreSQL).
class Connection {
 public:
  virtual ~Connection() = default;
  virtual const Dialect& dialect() const = 0;
  // Runs one statement and calls `on_row` for each result row. Returns the number of rows
  // changed (INSERT/UPDATE/DELETE, also with RETURNING) or returned (SELECT).
  virtual Result<std::int64_t> Execute(std::string_view sql, std::span<const Value> params,
                                       const RowCallback& on_row = {}) = 0;
  Result<std::int64_t> Execute(std::string_view sql, std::initializer_list<Value> params,
                               const RowCallback& on_row = {}) {
    return Execute(sql, std::span<const Value>(params.begin(), params.size()), on_row);
  }
  // Execute for a statement whose best plan depends on its values (list filters, search): on
  // PostgreSQL it is planned with the values every time and not cached, since a cached generic
  // plan cannot tell a selective pattern from a broad one. SQLite plans it as Execute does.
  virtual Result<std::int64_t> ExecutePlannedPerValue(std::string_view sql,
                                                      std::span<const Value> params,
                                                      const RowCallback& on_row = {}) {
    return Execute(sql, params, on_row);
  }
  // Runs a script of statements without parameters (DDL). Not cached.
  virtual Status ExecuteScript(std::string_view sql) = 0;
  Result<Rows> Query(std::string_view sql, std::span<const Value> params = {});
  Result<Rows> Query(std::string_view sql, std::initializer_list<Value> params) {
    return Query(sql, std::span<const Value>(params.begin(), params.size()));
  }
  virtual ConnectionStats stats() const = 0;
};

// kRead: a read-only snapshot (SQLite reader pool / PostgreSQL READ ONLY); runs concurrently
//        with other reads and with the writer.
// kWrite: SQLite's one writer (BEGIN IMMEDIATE) / a PostgreSQL read-committed transaction.
// kSchema: a write transaction for migrations. SQLite suspends foreign-key enforcement for it
//          (so tables can be rebuilt) and runs `PRAGMA foreign_key_check` before committing;
//          PostgreSQL treats it as kWrite.
enum class Access { kRead, kWrite, kSchema };

class Database {
 public:
  virtual ~Database() = default;
  virtual const Dialect& dialect() const = 0;

  // Runs `work` inside one transaction on a connection from the pool: committed when it
  // returns ok, rolled back otherwise (also when it throws; the exception propagates).
  // Transactions failing with kBusy (lock timeouts, serialization failures, deadlocks) are
  // run again from the start, so `work` must not have side effects outside the database.
  // Transactions do not nest: calling Transaction from inside `work` is an error.
  virtual Status Transaction(Access access, const std::function<Status(Connection&)>& work) = 0;
  // Messages to the other nodes on this database (PostgreSQL LISTEN/NOTIFY); null when there
  // are none (SQLite: one process).
  virtual NotificationChannel* notifications() { return nullptr; }
  // `SELECT 1` within a short deadline: the health check.
  virtual Status Ping() = 0;
  // Waits for transactions in flight, checkpoints (SQLite) and closes every connection. Later
  // calls fail with kUnavailable. Idempotent; the destructor calls it.
  virtual void Close() = 0;
};

// PostgreSQL settings every pooled connection gets (DATABASE_* settings, docs/settings.md). The
// timeouts are session settings (0 turns one off); schema transactions (Access::kSchema) lift
// the statement and lock timeouts, since a migration may rightly take long or wait for another
// node's. The rest are libpq connection parameters, which a DATABASE_URL parameter overrides.
struct PostgresOptions {
  int statement_timeout_ms = kPostgresStatementTimeoutMs;
  int lock_timeout_ms = kPostgresLockTimeoutMs;
  int idle_in_transaction_timeout_ms = kPostgresIdleInTransactionTimeoutMs;
  int connect_timeout_seconds = kPostgresConnectTimeoutSeconds;
  bool keepalives = true;
  int keepalives_idle_seconds = kPostgresKeepalivesIdleSeconds;
  int keepalives_interval_seconds = kPostgresKeepalivesIntervalSeconds;
  int keepalives_count = kPostgresKeepalivesCount;
};

// DATABASE_URL `postgres://…`/`postgresql://…` → PostgreSQL; empty → SQLite at `sqlite_path`;
// any other URL is an error.
struct DatabaseOptions {
  std::string url;          // empty → SQLite
  std::string sqlite_path;  // `<data-dir>/cairn.db`
  int pool_size = 0;        // PostgreSQL connections / SQLite readers; 0 → backend default
  // 0 → kAcquireTimeout (db/limits.hpp).
  std::chrono::milliseconds acquire_timeout{0};
  // SQLite WAL bounds; 0 → kSqliteWalLimitBytes / kSqliteCheckpointFrames (tests lower them).
  std::int64_t sqlite_wal_limit_bytes = 0;
  int sqlite_checkpoint_frames = 0;
  PostgresOptions postgres;
};
Result<std::unique_ptr<Database>> OpenDatabase(const DatabaseOptions& options);

// The DbErrorKind carried by an error from a backend (kOther when not a database error).
DbErrorKind ErrorKindOf(const Error& error);

}  // namespace cairn::db
