// SQLite-only behaviour: the WAL stays bounded under a stream of writes (with readers holding
// snapshots), acknowledged writes survive a process kill, and allocations skip SQLite's
// process-wide statistics mutex.
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <filesystem>
#include <thread>

#include <gtest/gtest.h>
#include <sqlite3.h>

#include "db_test_util.hpp"
#include "support/test_database.hpp"

namespace cairn::test {
namespace {

constexpr std::int64_t kWalLimit = 256 * 1024;

class SqliteDurabilityTest : public DatabaseTest {
 protected:
  void SetUp() override {
    if (IsPostgres()) GTEST_SKIP() << "SQLite-specific (WAL and file durability)";
    DatabaseTest::SetUp();
  }
  db::DatabaseOptions Tuning() const override {
    db::DatabaseOptions options;
    options.sqlite_wal_limit_bytes = kWalLimit;
    options.sqlite_checkpoint_frames = 16;
    return options;
  }
  std::filesystem::path WalPath() {
    return std::filesystem::path(test_database().options().sqlite_path + "-wal");
  }
  std::int64_t WalSize() {
    std::error_code ec;
    const auto size = std::filesystem::file_size(WalPath(), ec);
    return ec ? 0 : static_cast<std::int64_t>(size);
  }
};

TEST_F(SqliteDurabilityTest, WalStaysBoundedUnderAWriteStream) {
  CAIRN_ASSERT_OK(RunScript(
      database(), "CREATE TABLE \"stream\" (\"id\" INTEGER PRIMARY KEY, \"payload\" BLOB)"));
  std::atomic<bool> stop{false};
  // Readers keep taking snapshots, which is what stops a PASSIVE checkpoint from resetting the
  // WAL; the checkpointer must still bound it.
  std::vector<std::thread> readers;
  for (int r = 0; r < 2; ++r) {
    readers.emplace_back([&] {
      while (!stop) {
        (void)QueryInt(database(), "SELECT COUNT(*) FROM \"stream\"");
        std::this_thread::sleep_for(std::chrono::microseconds(200));
      }
    });
  }
  const std::string payload(16384, 'x');
  constexpr int kWrites = 800;  // ~13 MB through the WAL, 50× its bound
  std::int64_t largest = 0;
  for (int i = 0; i < kWrites; ++i) {
    const Status status =
        database().Transaction(db::Access::kWrite, [&](db::Connection& connection) {
          auto result = connection.Execute("INSERT INTO \"stream\" (\"payload\") VALUES (?)",
                                           {db::Blob{payload}});
          return result.ok() ? Status() : Status(std::move(result).error());
        });
    if (!status.ok()) {
      ADD_FAILURE() << Describe(status.error());
      break;  // not ASSERT: the reader threads must be joined first
    }
    largest = std::max(largest, WalSize());
  }
  stop = true;
  for (auto& reader : readers) reader.join();
  EXPECT_EQ(QueryInt(database(), "SELECT COUNT(*) FROM \"stream\""), kWrites);
  // The checkpointer runs beside the writer (and competes for CPU with it and the readers), so
  // the WAL overshoots its bound by what is written during one checkpoint round, but it does
  // not grow with the stream.
  RecordProperty("largest_wal_bytes", std::to_string(largest));
  EXPECT_LT(largest, 4 * kWalLimit) << "largest WAL seen: " << largest;

  // Close checkpoints everything and leaves no WAL content behind.
  test_database().Close();
  EXPECT_EQ(WalSize(), 0);
  auto reopened = test_database().Reopen();
  CAIRN_ASSERT_OK(reopened);
  EXPECT_EQ(QueryInt(**reopened, "SELECT COUNT(*) FROM \"stream\""), kWrites);
  (*reopened)->Close();
}

TEST_F(SqliteDurabilityTest, AcknowledgedWritesSurviveAProcessKill) {
  CAIRN_ASSERT_OK(RunScript(database(), "CREATE TABLE \"acks\" (\"id\" INTEGER PRIMARY KEY)"));
  test_database().Close();  // the child process writes; this process only reads afterwards

  int pipe_fds[2];
  ASSERT_EQ(::pipe(pipe_fds), 0);
  const pid_t child = ::fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    // Child: write rows one transaction at a time, acknowledging each after its commit.
    ::close(pipe_fds[0]);
    auto database = test_database().Reopen();
    if (!database.ok()) ::_exit(2);
    for (std::int64_t i = 1;; ++i) {
      const Status status =
          (*database)->Transaction(db::Access::kWrite, [&](db::Connection& connection) {
            auto result = connection.Execute("INSERT INTO \"acks\" (\"id\") VALUES (?)", {i});
            return result.ok() ? Status() : Status(std::move(result).error());
          });
      if (!status.ok()) ::_exit(3);
      if (::write(pipe_fds[1], &i, sizeof i) != static_cast<ssize_t>(sizeof i)) ::_exit(4);
    }
  }
  ::close(pipe_fds[1]);
  std::int64_t last_ack = 0;
  for (int n = 0; n < 200; ++n) {
    std::int64_t ack = 0;
    ASSERT_EQ(::read(pipe_fds[0], &ack, sizeof ack), static_cast<ssize_t>(sizeof ack));
    last_ack = ack;
  }
  ::kill(child, SIGKILL);
  int status = 0;
  ::waitpid(child, &status, 0);
  ::close(pipe_fds[0]);
  ASSERT_TRUE(WIFSIGNALED(status));

  auto reopened = test_database().Reopen();
  CAIRN_ASSERT_OK(reopened);
  // Every acknowledged row is there (later unacknowledged ones may be too).
  EXPECT_EQ(QueryInt(**reopened,
                     "SELECT COUNT(*) FROM \"acks\" WHERE \"id\" <= " + std::to_string(last_ack)),
            last_ack);
  (*reopened)->Close();
}

// With memory statistics on, every SQLite allocation takes one process-wide mutex that the
// reader connections of all I/O threads contend on. Off, SQLite never counts a byte.
TEST_F(SqliteDurabilityTest, AllocationsAreNotCountedUnderAProcessWideMutex) {
  CAIRN_ASSERT_OK(RunScript(database(), "CREATE TABLE \"counted\" (\"payload\" TEXT)"));
  CAIRN_ASSERT_OK(RunScript(database(), "INSERT INTO \"counted\" VALUES (hex(randomblob(4096)))"));
  EXPECT_EQ(QueryInt(database(), "SELECT length(\"payload\") FROM \"counted\""), 8192);
  EXPECT_EQ(sqlite3_memory_used(), 0);
  EXPECT_EQ(sqlite3_memory_highwater(0), 0);
}

}  // namespace
}  // namespace cairn::test
