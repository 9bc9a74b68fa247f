// SQLite: one writer connection behind a mutex, a pool of reader connections, and a background
// WAL checkpointer. See db/limits.hpp for every bound.
#include <atomic>
#include <condition_variable>
#include <filesystem>
#include <mutex>
#include <vector>

#include "common/log.hpp"
#include "db/db_error.hpp"
#include "db/limits.hpp"
#include "db/sqlite/open_sqlite.hpp"
#include "db/sqlite/sqlite_connection.hpp"
#include "db/sqlite/wal_checkpointer.hpp"
#include "db/transaction_support.hpp"

namespace cairn::db::sqlite {
namespace {

Error ClosedError() {
  return MakeDbError(DbErrorKind::kUnavailable, "the database has been closed");
}

// Rolls back unless dismissed: a throwing `work` must not leave the connection in a transaction.
class RollbackGuard {
 public:
  explicit RollbackGuard(Connection& connection) : connection_(&connection) {}
  ~RollbackGuard() {
    if (connection_ != nullptr) (void)connection_->ExecuteScript("ROLLBACK");
  }
  void Dismiss() { connection_ = nullptr; }

 private:
  Connection* connection_;
};

// Restores foreign-key enforcement after a kSchema transaction, however it ends.
class ForeignKeysRestore {
 public:
  explicit ForeignKeysRestore(Connection& connection) : connection_(connection) {}
  ~ForeignKeysRestore() { (void)connection_.ExecuteScript("PRAGMA foreign_keys = ON"); }

 private:
  Connection& connection_;
};

// Rows `PRAGMA foreign_key_check` reports, as text for the error.
Result<std::string> ForeignKeyProblems(Connection& connection) {
  std::string problems;
  auto result =
      connection.Execute("PRAGMA foreign_key_check", std::span<const Value>(), [&](const Row& row) {
        if (!problems.empty()) problems += "; ";
        problems += "row " + std::string(row.GetText(1)) + " of table \"" +
                    std::string(row.GetText(0)) + "\" refers to a missing row of \"" +
                    std::string(row.GetText(2)) + "\"";
      });
  if (!result.ok()) return std::move(result).error();
  return problems;
}

Status RunInTransaction(Connection& connection, Access access,
                        const std::function<Status(Connection&)>& work) {
  const bool schema = access == Access::kSchema;
  std::optional<ForeignKeysRestore> restore;
  if (schema) {
    // Only takes effect outside a transaction, hence before BEGIN.
    CAIRN_TRY(connection.ExecuteScript("PRAGMA foreign_keys = OFF"));
    restore.emplace(connection);
  }
  // Execute, not ExecuteScript: the statements are prepared once per connection and cached.
  CAIRN_TRY(connection.Execute(access == Access::kRead ? "BEGIN" : "BEGIN IMMEDIATE",
                               std::span<const Value>()));
  RollbackGuard rollback(connection);
  CAIRN_TRY(work(connection));
  if (schema) {
    CAIRN_ASSIGN_OR_RETURN(const std::string problems, ForeignKeyProblems(connection));
    if (!problems.empty()) {
      Error error = MakeDbError(DbErrorKind::kForeignKey, "foreign_key_check: " + problems);
      error.message = "The migration would leave broken references: " + problems;
      return error;
    }
  }
  CAIRN_TRY(connection.Execute("COMMIT", std::span<const Value>()));
  rollback.Dismiss();
  return {};
}

class SqliteDatabase final : public Database {
 public:
  SqliteDatabase(std::string path, std::chrono::milliseconds acquire_timeout)
      : path_(std::move(path)), acquire_timeout_(acquire_timeout) {}
  ~SqliteDatabase() override { Close(); }

  Status Init(const DatabaseOptions& options) {
    const std::int64_t wal_limit =
        options.sqlite_wal_limit_bytes > 0 ? options.sqlite_wal_limit_bytes : kSqliteWalLimitBytes;
    const int frames = options.sqlite_checkpoint_frames > 0 ? options.sqlite_checkpoint_frames
                                                            : kSqliteCheckpointFrames;
    const int readers = options.pool_size > 0 ? options.pool_size : kDefaultSqliteReaders;

    // The writer first: it switches the file to WAL mode before anyone else opens it.
    CAIRN_ASSIGN_OR_RETURN(
        writer_, SqliteConnection::Open(path_, {Role::kWriter, kSqliteBusyTimeout, wal_limit}));
    for (int i = 0; i < readers; ++i) {
      CAIRN_ASSIGN_OR_RETURN(auto reader,
                             SqliteConnection::Open(path_, {Role::kReader, kSqliteBusyTimeout}));
      idle_readers_.push_back(std::move(reader));
    }
    CAIRN_ASSIGN_OR_RETURN(
        auto checkpoint_connection,
        SqliteConnection::Open(path_, {Role::kCheckpointer, kSqliteBusyTimeout}));
    checkpointer_ = std::make_unique<WalCheckpointer>(
        std::move(checkpoint_connection), path_ + "-wal", wal_limit, frames, writer_lock_);
    checkpointer_->Start(writer_->handle());
    return {};
  }

  const Dialect& dialect() const override { return Dialect::Sqlite(); }

  Status Transaction(Access access, const std::function<Status(Connection&)>& work) override {
    if (TransactionScope::Active(this)) return TransactionScope::NestedError();
    TransactionScope scope(this);
    if (access == Access::kRead) {
      return RunWithRetries([&]() -> Status {
        CAIRN_ASSIGN_OR_RETURN(auto reader, AcquireReader(acquire_timeout_));
        ReaderLease lease{this, std::move(reader)};
        return RunInTransaction(*lease.connection, access, work);
      });
    }
    return RunWithRetries([&]() -> Status {
      if (!writer_lock_.LockForWrite(acquire_timeout_)) {
        return MakeDbError(DbErrorKind::kUnavailable,
                           "timed out waiting for the SQLite writer connection");
      }
      WriterLockHold hold(writer_lock_);
      if (!writer_) return ClosedError();
      return RunInTransaction(*writer_, access, work);
    });
  }

  Status Ping() override {
    CAIRN_ASSIGN_OR_RETURN(auto reader, AcquireReader(kPingTimeout));
    ReaderLease lease{this, std::move(reader)};
    auto result = lease.connection->Execute("SELECT 1", std::span<const Value>());
    if (!result.ok()) return std::move(result).error();
    return {};
  }

  void Close() override {
    if (closed_.exchange(true)) return;
    {
      std::lock_guard lock(pool_mutex_);  // wakes readers waiting for a connection
    }
    pool_returned_.notify_all();
    if (checkpointer_) checkpointer_->Stop();  // before taking the writer lock it may want
    if (!writer_lock_.LockForWrite(kCloseGrace)) {
      log::Warn("sqlite close: still waiting for a write transaction to finish");
      while (!writer_lock_.LockForWrite(kCloseGrace)) {
      }
    }
    WriterLockHold hold(writer_lock_);
    {
      std::unique_lock pool_lock(pool_mutex_);
      if (!pool_returned_.wait_for(pool_lock, kCloseGrace, [this] { return readers_out_ == 0; })) {
        log::Warn("sqlite close: still waiting for read transactions to finish");
        pool_returned_.wait(pool_lock, [this] { return readers_out_ == 0; });
      }
      idle_readers_.clear();
    }
    if (writer_) {
      // Removes the hook before the checkpointer goes away, then empties the WAL one last time.
      sqlite3_wal_hook(writer_->handle(), nullptr, nullptr);
      checkpointer_.reset();
      const int rc = sqlite3_wal_checkpoint_v2(writer_->handle(), "main",
                                               SQLITE_CHECKPOINT_TRUNCATE, nullptr, nullptr);
      if (rc != SQLITE_OK) {
        log::Warn("sqlite close: final checkpoint: " +
                  std::string(sqlite3_errmsg(writer_->handle())));
      }
      writer_.reset();
    }
  }

 private:
  struct ReaderLease {
    SqliteDatabase* owner;
    std::unique_ptr<SqliteConnection> connection;
    ~ReaderLease() { owner->ReleaseReader(std::move(connection)); }
  };

  Result<std::unique_ptr<SqliteConnection>> AcquireReader(std::chrono::milliseconds timeout) {
    std::unique_lock lock(pool_mutex_);
    if (!pool_returned_.wait_for(lock, timeout,
                                 [this] { return closed_ || !idle_readers_.empty(); })) {
      return MakeDbError(DbErrorKind::kUnavailable,
                         "timed out waiting for a SQLite reader connection");
    }
    if (closed_) return ClosedError();
    auto reader = std::move(idle_readers_.back());
    idle_readers_.pop_back();
    ++readers_out_;
    return reader;
  }

  void ReleaseReader(std::unique_ptr<SqliteConnection> reader) {
    {
      std::lock_guard lock(pool_mutex_);
      idle_readers_.push_back(std::move(reader));
      --readers_out_;
    }
    pool_returned_.notify_all();
  }

  const std::string path_;
  const std::chrono::milliseconds acquire_timeout_;
  std::atomic<bool> closed_{false};

  WriterLock writer_lock_;
  std::unique_ptr<SqliteConnection> writer_;

  std::mutex pool_mutex_;
  std::condition_variable pool_returned_;
  std::vector<std::unique_ptr<SqliteConnection>> idle_readers_;
  int readers_out_ = 0;

  std::unique_ptr<WalCheckpointer> checkpointer_;
};

}  // namespace

Result<std::unique_ptr<Database>> OpenSqliteDatabase(const DatabaseOptions& options) {
  if (options.sqlite_path.empty()) {
    return MakeDbError(DbErrorKind::kUnavailable, "no SQLite database path given");
  }
  const std::filesystem::path path(options.sqlite_path);
  if (path.has_parent_path()) {
    std::error_code ec;
    std::filesystem::create_directories(path.parent_path(), ec);
    if (ec) {
      return MakeDbError(DbErrorKind::kUnavailable,
                         "cannot create " + path.parent_path().string() + ": " + ec.message());
    }
  }
  const auto timeout =
      options.acquire_timeout.count() > 0 ? options.acquire_timeout : kAcquireTimeout;
  auto database = std::make_unique<SqliteDatabase>(options.sqlite_path, timeout);
  CAIRN_TRY(database->Init(options));
  return std::unique_ptr<Database>(std::move(database));
}

}  // namespace cairn::db::sqlite
