// Keeps checkpoints off the request path: the writer's WAL hook only signals this thread, which
// copies the WAL into the database on its own connection (PASSIVE, never blocking readers or
// the writer) and, when the WAL file has grown past its bound, empties it (TRUNCATE).
//
// Readers that keep taking snapshots can stop the writer from ever restarting the WAL, so under
// load only TRUNCATE bounds it. TRUNCATE needs the write lock; competing with a busy writer for
// it through SQLite's busy handler starves, so the checkpointer takes the in-process writer
// lock ahead of queued writers for its (short) duration: the next write waits for it instead
// of the WAL growing.
#pragma once

#include <condition_variable>
#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <thread>

#include "db/sqlite/sqlite_connection.hpp"
#include "db/sqlite/writer_lock.hpp"

namespace cairn::db::sqlite {

struct CheckpointStats {
  std::uint64_t passive = 0;   // PASSIVE checkpoints run
  std::uint64_t truncate = 0;  // TRUNCATE checkpoints run (the WAL had passed its bound)
};

class WalCheckpointer {
 public:
  WalCheckpointer(std::unique_ptr<SqliteConnection> connection, std::string wal_path,
                  std::int64_t wal_limit_bytes, int checkpoint_frames, WriterLock& writer_lock);
  ~WalCheckpointer();
  WalCheckpointer(const WalCheckpointer&) = delete;
  WalCheckpointer& operator=(const WalCheckpointer&) = delete;

  // Registers the WAL hook on the writer and starts the thread.
  void Start(sqlite3* writer);
  // Stops and joins the thread (idempotent). The hook may still fire until it is removed from
  // the writer; it then only records the commit.
  void Stop();
  CheckpointStats stats() const;

 private:
  static int WalHook(void* self, sqlite3* db, const char* schema, int frames);
  void OnCommit(int frames_in_wal);
  void Run();
  void Checkpoint();
  void Truncate(std::int64_t wal_size);

  std::unique_ptr<SqliteConnection> connection_;
  std::string wal_path_;
  std::int64_t wal_limit_bytes_;
  int checkpoint_frames_;
  WriterLock& writer_lock_;

  mutable std::mutex mutex_;
  std::condition_variable wake_;
  bool stop_ = false;
  bool signalled_ = false;
  bool dirty_ = false;  // commits since the last checkpoint
  CheckpointStats stats_;
  std::thread thread_;
};

}  // namespace cairn::db::sqlite
