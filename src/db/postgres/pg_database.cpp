// PostgreSQL: a bounded pool of libpq connections. See db/limits.hpp for every bound.
#include <atomic>
#include <condition_variable>
#include <mutex>
#include <vector>

#include "common/log.hpp"
#include "db/db_error.hpp"
#include "db/limits.hpp"
#include "db/log_throttle.hpp"
#include "db/postgres/open_postgres.hpp"
#include "db/postgres/pg_connection.hpp"
#include "db/postgres/pg_notification_channel.hpp"
#include "db/transaction_support.hpp"

namespace cairn::db::postgres {
namespace {

// Rolls back unless dismissed: a throwing `work` must not leave the connection in a transaction.
class RollbackGuard {
 public:
  explicit RollbackGuard(PgConnection& connection) : connection_(&connection) {}
  ~RollbackGuard() {
    if (connection_ != nullptr && !connection_->broken()) (void)connection_->Rollback();
  }
  void Dismiss() { connection_ = nullptr; }

 private:
  PgConnection* connection_;
};

class PgDatabase final : public Database {
 public:
  PgDatabase(std::string url, int pool_size, std::chrono::milliseconds acquire_timeout,
             const PostgresOptions& options)
      : url_(std::move(url)),
        pool_size_(pool_size),
        acquire_timeout_(acquire_timeout),
        options_(options) {}
  ~PgDatabase() override { Close(); }

  // Opens the first connection now, so that a bad URL or an unreachable server fails at once.
  Status Init() {
    CAIRN_ASSIGN_OR_RETURN(auto connection, PgConnection::Connect(url_, options_));
    std::lock_guard lock(mutex_);
    idle_.push_back(std::move(connection));
    ++open_;
    return {};
  }

  const Dialect& dialect() const override { return Dialect::Postgres(); }

  NotificationChannel* notifications() override {
    std::call_once(notifications_once_,
                   [this] { notifications_ = MakeNotificationChannel(*this, url_, options_); });
    return notifications_.get();
  }

  Status Transaction(Access access, const std::function<Status(Connection&)>& work) override {
    if (TransactionScope::Active(this)) return TransactionScope::NestedError();
    TransactionScope scope(this);
    bool reconnected = false;
    return RunWithRetries([&]() -> Status {
      CAIRN_ASSIGN_OR_RETURN(auto connection, Acquire(acquire_timeout_));
      Lease lease{this, std::move(connection)};
      PgConnection& conn = *lease.connection;
      bool committing = false;
      Status status = RunOnce(conn, access, work, committing);
      // The connection broke (a server restart while it sat in the pool, say) before anything
      // could commit: the server kept none of it, so it runs once more on a new connection.
      if (!status.ok() && conn.broken() && !committing && !reconnected) {
        reconnected = true;
        CAIRN_TRY(Reconnect(conn));
        status = RunOnce(conn, access, work, committing);
      }
      return status;
    });
  }

  Status Ping() override {
    CAIRN_ASSIGN_OR_RETURN(auto connection, Acquire(kPingTimeout));
    Lease lease{this, std::move(connection)};
    Status status = lease.connection->Ping(kPingTimeout);
    if (!status.ok() && lease.connection->broken()) {
      // An idle connection the server dropped (restart): one fresh attempt decides.
      CAIRN_TRY(Reconnect(*lease.connection));
      status = lease.connection->Ping(kPingTimeout);
    }
    return status;
  }

  void Close() override {
    if (closed_.exchange(true)) return;
    std::unique_lock lock(mutex_);
    changed_.notify_all();
    if (!changed_.wait_for(lock, kCloseGrace, [this] { return out_ == 0; })) {
      log::Warn("postgres close: still waiting for transactions to finish");
      changed_.wait(lock, [this] { return out_ == 0; });
    }
    idle_.clear();
    open_ = 0;
  }

 private:
  struct Lease {
    PgDatabase* owner;
    std::unique_ptr<PgConnection> connection;
    ~Lease() { owner->Release(std::move(connection)); }
  };

  // Reads are REPEATABLE READ, so a list's total and its page come from one snapshot (as on
  // SQLite); a read-only transaction there never fails to serialize.
  static constexpr const char* kBeginRead = "BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY";

  // Schema transactions lift the statement and lock timeouts for their own length (SET LOCAL):
  // a migration may rightly run long, or wait for another node's migration lock.
  static constexpr const char* kBeginSchema =
      "BEGIN; SET LOCAL statement_timeout = 0; SET LOCAL lock_timeout = 0";

  static Status Begin(PgConnection& conn, Access access) {
    CAIRN_TRY(conn.FinishPendingCommit());  // the previous lease's read may still be committing
    if (access == Access::kSchema) return conn.ExecuteScript(kBeginSchema);
    conn.BeginWithFirstStatement(access == Access::kRead ? kBeginRead : "BEGIN");
    return {};
  }

  // `committing` is set once a write's COMMIT is on its way: from then on a broken connection
  // leaves its outcome unknown.
  Status RunOnce(PgConnection& conn, Access access, const std::function<Status(Connection&)>& work,
                 bool& committing) {
    Status status = Begin(conn, access);
    if (!status.ok() && conn.broken()) {
      // Broken while idle in the pool (server restart): nothing ran yet, reconnect and go on.
      CAIRN_TRY(Reconnect(conn));
      status = Begin(conn, access);
    }
    CAIRN_TRY(std::move(status));
    RollbackGuard rollback(conn);
    CAIRN_TRY(work(conn));
    if (conn.in_failed_transaction()) {
      // `work` swallowed a failed statement; COMMIT would silently roll back.
      return Error::Internal(
          "a statement failed inside the transaction but the work reported "
          "success; rolled back");
    }
    if (access == Access::kRead) {
      conn.CommitWithoutWaiting();  // nothing to make durable: the answer need not wait for it
    } else {
      committing = true;
      CAIRN_TRY(conn.Commit());
    }
    rollback.Dismiss();
    return {};
  }

  Result<std::unique_ptr<PgConnection>> Acquire(std::chrono::milliseconds timeout) {
    std::unique_lock lock(mutex_);
    if (!changed_.wait_for(lock, timeout,
                           [this] { return closed_ || !idle_.empty() || open_ < pool_size_; })) {
      return MakeDbError(
          DbErrorKind::kUnavailable,
          "timed out waiting for one of " + std::to_string(pool_size_) + " PostgreSQL connections");
    }
    if (closed_) return MakeDbError(DbErrorKind::kUnavailable, "the database has been closed");
    ++out_;
    if (!idle_.empty()) {
      auto connection = std::move(idle_.back());
      idle_.pop_back();
      return connection;
    }
    ++open_;
    lock.unlock();
    auto connection = PgConnection::Connect(url_, options_);
    if (!connection.ok()) {
      reconnect_log_.Warn("postgres: " + connection.error().detail);
      lock.lock();
      --open_;
      --out_;
      lock.unlock();
      changed_.notify_all();
    }
    return connection;
  }

  // Reset, with a failure logged (throttled: a database that stays down fails every attempt).
  Status Reconnect(PgConnection& conn) {
    Status status = conn.Reset();
    if (!status.ok()) reconnect_log_.Warn("postgres: " + status.error().detail);
    return status;
  }

  void Release(std::unique_ptr<PgConnection> connection) {
    if (!connection->broken() && !connection->idle()) (void)connection->Rollback();
    const bool keep = !connection->broken() && connection->idle();
    if (keep) connection->DeallocateEvicted();
    {
      std::lock_guard lock(mutex_);
      --out_;
      if (keep && !closed_) {
        idle_.push_back(std::move(connection));
      } else {
        --open_;
      }
    }
    connection.reset();  // closes a dropped connection outside the lock
    changed_.notify_all();
  }

  const std::string url_;
  const int pool_size_;
  const std::chrono::milliseconds acquire_timeout_;
  const PostgresOptions options_;
  std::atomic<bool> closed_{false};
  LogThrottle reconnect_log_{kReconnectLogInterval};
  std::once_flag notifications_once_;
  std::unique_ptr<NotificationChannel> notifications_;

  std::mutex mutex_;
  std::condition_variable changed_;
  std::vector<std::unique_ptr<PgConnection>> idle_;
  int open_ = 0;  // connections in existence (idle + out + being opened)
  int out_ = 0;   // connections leased
};

}  // namespace

Result<std::unique_ptr<Database>> OpenPostgresDatabase(const DatabaseOptions& options) {
  const int pool_size = options.pool_size > 0 ? options.pool_size : kDefaultPostgresPoolSize;
  const auto timeout =
      options.acquire_timeout.count() > 0 ? options.acquire_timeout : kAcquireTimeout;
  auto database = std::make_unique<PgDatabase>(options.url, pool_size, timeout, options.postgres);
  CAIRN_TRY(database->Init());
  return std::unique_ptr<Database>(std::move(database));
}

}  // namespace cairn::db::postgres
