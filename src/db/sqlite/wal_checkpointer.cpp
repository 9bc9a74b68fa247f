#include "db/sqlite/wal_checkpointer.hpp"

#include <filesystem>

#include "common/log.hpp"
#include "db/limits.hpp"

namespace cairn::db::sqlite {

WalCheckpointer::WalCheckpointer(std::unique_ptr<SqliteConnection> connection, std::string wal_path,
                                 std::int64_t wal_limit_bytes, int checkpoint_frames,
                                 WriterLock& writer_lock)
    : connection_(std::move(connection)),
      wal_path_(std::move(wal_path)),
      wal_limit_bytes_(wal_limit_bytes),
      checkpoint_frames_(checkpoint_frames),
      writer_lock_(writer_lock) {}

WalCheckpointer::~WalCheckpointer() {
  Stop();
}

void WalCheckpointer::Start(sqlite3* writer) {
  sqlite3_wal_hook(writer, &WalCheckpointer::WalHook, this);
  thread_ = std::thread([this] { Run(); });
}

void WalCheckpointer::Stop() {
  {
    std::lock_guard lock(mutex_);
    stop_ = true;
  }
  wake_.notify_all();
  if (thread_.joinable()) thread_.join();
}

CheckpointStats WalCheckpointer::stats() const {
  std::lock_guard lock(mutex_);
  return stats_;
}

int WalCheckpointer::WalHook(void* self, sqlite3*, const char*, int frames) {
  static_cast<WalCheckpointer*>(self)->OnCommit(frames);
  return SQLITE_OK;
}

void WalCheckpointer::OnCommit(int frames_in_wal) {
  bool signal = false;
  {
    std::lock_guard lock(mutex_);
    dirty_ = true;
    if (frames_in_wal >= checkpoint_frames_ && !signalled_) signal = signalled_ = true;
  }
  if (signal) wake_.notify_one();
}

void WalCheckpointer::Run() {
  std::unique_lock lock(mutex_);
  while (!stop_) {
    wake_.wait_for(lock, kSqliteCheckpointInterval, [this] { return stop_ || signalled_; });
    if (stop_) break;
    if (!signalled_ && !dirty_) continue;
    signalled_ = false;
    dirty_ = false;
    lock.unlock();
    Checkpoint();
    lock.lock();
  }
}

void WalCheckpointer::Checkpoint() {
  // Over the bound already: copy and empty in one go rather than copying twice.
  std::error_code ec;
  auto wal_size = std::filesystem::file_size(wal_path_, ec);
  if (!ec && static_cast<std::int64_t>(wal_size) > wal_limit_bytes_) {
    Truncate(static_cast<std::int64_t>(wal_size));
    return;
  }
  sqlite3* db = connection_->handle();
  const int rc = sqlite3_wal_checkpoint_v2(db, "main", SQLITE_CHECKPOINT_PASSIVE, nullptr, nullptr);
  if (rc != SQLITE_OK && rc != SQLITE_BUSY) {
    log::Warn("sqlite passive checkpoint failed: " + std::string(sqlite3_errmsg(db)));
  }
  {
    std::lock_guard lock(mutex_);
    ++stats_.passive;
  }
  wal_size = std::filesystem::file_size(wal_path_, ec);
  if (!ec && static_cast<std::int64_t>(wal_size) > wal_limit_bytes_) {
    Truncate(static_cast<std::int64_t>(wal_size));
  }
}

void WalCheckpointer::Truncate(std::int64_t wal_size) {
  // Ahead of queued writers; give up when asked to stop.
  while (!writer_lock_.LockForCheckpoint(std::chrono::milliseconds(100))) {
    std::lock_guard lock(mutex_);
    if (stop_) return;
  }
  WriterLockHold hold(writer_lock_);
  // Waits (busy handler) for readers on older snapshots to finish, then empties the WAL.
  sqlite3* db = connection_->handle();
  const int rc =
      sqlite3_wal_checkpoint_v2(db, "main", SQLITE_CHECKPOINT_TRUNCATE, nullptr, nullptr);
  hold.Release();
  std::lock_guard lock(mutex_);
  if (rc == SQLITE_OK) {
    ++stats_.truncate;
  } else {
    log::Warn("sqlite WAL is " + std::to_string(wal_size) +
              " bytes, over its bound, and could not be truncated yet: " +
              std::string(sqlite3_errmsg(db)));
    dirty_ = true;  // try again on the next periodic round
  }
}

}  // namespace cairn::db::sqlite
