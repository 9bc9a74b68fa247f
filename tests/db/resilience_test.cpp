// Pools, retries and broken connections, on both backends.
#include <chrono>
#include <condition_variable>
#include <future>
#include <mutex>
#include <thread>

#include <gtest/gtest.h>

#include "db/database.hpp"
#include "db_test_util.hpp"
#include "support/test_database.hpp"

namespace cairn::test {
namespace {

using db::ColumnKind;

class ResilienceTest : public DatabaseTest {
 protected:
  db::DatabaseOptions Tuning() const override {
    db::DatabaseOptions options;
    options.pool_size = 2;
    options.acquire_timeout = std::chrono::milliseconds(300);
    return options;
  }

  void CreateAccounts() {
    CAIRN_ASSERT_OK(
        RunScript(database(), "CREATE TABLE \"accounts\" (\"id\" " +
                                  dialect().ColumnTypeSql({ColumnKind::kId}) + ", \"balance\" " +
                                  dialect().ColumnTypeSql({ColumnKind::kInt64}) + " NOT NULL)"));
    CAIRN_ASSERT_OK(RunScript(database(), "INSERT INTO \"accounts\" (\"balance\") VALUES (0)"));
    CAIRN_ASSERT_OK(RunScript(database(), "INSERT INTO \"accounts\" (\"balance\") VALUES (0)"));
  }
};

// Waits until `parties` threads have arrived or `timeout` passed (SQLite's single writer never
// lets the second one arrive while the first waits).
class TimedBarrier {
 public:
  explicit TimedBarrier(int parties) : parties_(parties) {}
  void ArriveAndWait(std::chrono::milliseconds timeout) {
    std::unique_lock lock(mutex_);
    ++arrived_;
    changed_.notify_all();
    changed_.wait_for(lock, timeout, [this] { return arrived_ >= parties_; });
  }

 private:
  std::mutex mutex_;
  std::condition_variable changed_;
  int parties_;
  int arrived_ = 0;
};

TEST_F(ResilienceTest, DeadlockedWritersAreRetried) {
  CreateAccounts();
  // Two transactions update the same two rows in opposite orders: on PostgreSQL one of them is
  // chosen as the deadlock victim (40P01), and Transaction runs it again.
  TimedBarrier barrier(2);
  const auto transfer = [&](std::int64_t first, std::int64_t second) {
    return database().Transaction(db::Access::kWrite, [&](db::Connection& connection) -> Status {
      CAIRN_TRY(connection.Execute(
          "UPDATE \"accounts\" SET \"balance\" = \"balance\" + 1 WHERE \"id\" = ?", {first}));
      barrier.ArriveAndWait(std::chrono::milliseconds(100));
      CAIRN_TRY(connection.Execute(
          "UPDATE \"accounts\" SET \"balance\" = \"balance\" - 1 WHERE \"id\" = ?", {second}));
      return {};
    });
  };
  auto a = std::async(std::launch::async, [&] { return transfer(1, 2); });
  auto b = std::async(std::launch::async, [&] { return transfer(2, 1); });
  const Status status_a = a.get();
  const Status status_b = b.get();
  CAIRN_EXPECT_OK(status_a);
  CAIRN_EXPECT_OK(status_b);
  EXPECT_EQ(QueryInt(database(), "SELECT SUM(\"balance\") FROM \"accounts\""), 0);
  EXPECT_EQ(QueryInt(database(), "SELECT \"balance\" FROM \"accounts\" WHERE \"id\" = 1"), 0);
}

TEST_F(ResilienceTest, ExhaustedPoolAnswersUnavailable) {
  CreateAccounts();
  // Hold every connection that a transaction can use.
  std::promise<void> release;
  std::shared_future<void> released = release.get_future().share();
  const int holders = IsPostgres() ? Tuning().pool_size : 1;  // SQLite: the one writer
  std::vector<std::promise<void>> started(static_cast<std::size_t>(holders));
  std::vector<std::thread> threads;
  for (int i = 0; i < holders; ++i) {
    threads.emplace_back([&, i] {
      (void)database().Transaction(db::Access::kWrite, [&](db::Connection&) {
        started[static_cast<std::size_t>(i)].set_value();
        released.wait_for(std::chrono::seconds(30));
        return Status();
      });
    });
  }
  // SQLite writers queue on the one writer; PostgreSQL writers on the pool.
  for (int i = 0; i < holders && !IsPostgres(); ++i) started[0].get_future().wait();
  if (IsPostgres()) {
    for (auto& promise : started) promise.get_future().wait();
  }
  const auto begin = std::chrono::steady_clock::now();
  const Status status =
      database().Transaction(db::Access::kWrite, [](db::Connection&) { return Status(); });
  const auto waited = std::chrono::steady_clock::now() - begin;
  release.set_value();
  for (auto& thread : threads) thread.join();
  ASSERT_FALSE(status.ok());
  EXPECT_EQ(db::ErrorKindOf(status.error()), db::DbErrorKind::kUnavailable);
  EXPECT_EQ(status.error().code, ErrorCode::kUnavailable);
  EXPECT_GE(waited, std::chrono::milliseconds(250));
  EXPECT_LT(waited, std::chrono::seconds(10));
  // Everything works again once the connections are back.
  CAIRN_EXPECT_OK(
      database().Transaction(db::Access::kWrite, [](db::Connection&) { return Status(); }));
}

TEST_F(ResilienceTest, CachedStatementsSurviveSchemaChanges) {
  CreateAccounts();
  const std::string select = "SELECT * FROM \"accounts\" ORDER BY \"id\"";
  int columns = 0;
  const auto read = [&] {
    return database().Transaction(db::Access::kRead, [&](db::Connection& connection) {
      auto result =
          connection.Execute(select, {}, [&](const db::Row& row) { columns = row.ColumnCount(); });
      return result.ok() ? Status() : Status(std::move(result).error());
    });
  };
  CAIRN_ASSERT_OK(read());
  EXPECT_EQ(columns, 2);
  CAIRN_ASSERT_OK(RunScript(database(), "ALTER TABLE \"accounts\" ADD COLUMN \"note\" TEXT"));
  for (int i = 0; i < 3; ++i) {  // every pooled connection that cached it
    CAIRN_ASSERT_OK(read());
    EXPECT_EQ(columns, 3);
  }
}

TEST_F(ResilienceTest, TwoInstancesWritingConcurrentlyLoseNothing) {
  CreateAccounts();
  auto other = test_database().Reopen();
  CAIRN_ASSERT_OK(other);
  constexpr int kWrites = 60;
  const auto writer = [&](db::Database& database) {
    for (int i = 0; i < kWrites; ++i) {
      const Status status = database.Transaction(db::Access::kWrite, [](db::Connection& c) {
        auto result =
            c.Execute("UPDATE \"accounts\" SET \"balance\" = \"balance\" + 1 WHERE \"id\" = 1", {});
        return result.ok() ? Status() : Status(std::move(result).error());
      });
      EXPECT_TRUE(status.ok()) << Describe(status.error());
    }
  };
  std::thread a([&] { writer(database()); });
  std::thread b([&] { writer(**other); });
  a.join();
  b.join();
  EXPECT_EQ(QueryInt(database(), "SELECT \"balance\" FROM \"accounts\" WHERE \"id\" = 1"),
            2 * kWrites);
  (*other)->Close();
}

TEST_F(ResilienceTest, BrokenConnectionsAreReplaced) {
  if (!IsPostgres()) GTEST_SKIP() << "PostgreSQL-specific (server-side connection loss)";
  CreateAccounts();
  // Kills the server process of the connection a (single-threaded) caller uses next.
  const auto terminate = [&]() -> Status {
    std::int64_t pid = 0;
    CAIRN_TRY(database().Transaction(db::Access::kRead, [&](db::Connection& connection) {
      auto result = connection.Execute("SELECT pg_backend_pid()", {},
                                       [&](const db::Row& row) { pid = row.GetInt64(0); });
      return result.ok() ? Status() : Status(std::move(result).error());
    }));
    CAIRN_ASSIGN_OR_RETURN(auto admin, test_database().Reopen());
    CAIRN_TRY(admin->Transaction(db::Access::kRead, [&](db::Connection& connection) {
      auto result = connection.Execute("SELECT pg_terminate_backend(CAST(? AS integer))", {pid});
      return result.ok() ? Status() : Status(std::move(result).error());
    }));
    admin->Close();
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
    return {};
  };
  CAIRN_ASSERT_OK(terminate());
  // The health check, the next read and the next write all go through (a dead connection is
  // reset before anything runs on it).
  CAIRN_EXPECT_OK(database().Ping());
  CAIRN_ASSERT_OK(terminate());
  EXPECT_EQ(QueryInt(database(), "SELECT COUNT(*) FROM \"accounts\""), 2);
  CAIRN_ASSERT_OK(terminate());
  CAIRN_EXPECT_OK(RunScript(database(), "UPDATE \"accounts\" SET \"balance\" = 5"));
  EXPECT_EQ(QueryInt(database(), "SELECT SUM(\"balance\") FROM \"accounts\""), 10);
}

TEST_F(ResilienceTest, UnreachableServerIsUnavailable) {
  db::DatabaseOptions options;
  if (IsPostgres()) {
    options.url = "postgresql:///nowhere?host=/nonexistent-socket-dir&connect_timeout=2";
  } else {
    options.sqlite_path = "/proc/cairn-cannot-create-this/cairn.db";
  }
  auto opened = db::OpenDatabase(options);
  ASSERT_FALSE(opened.ok());
  EXPECT_EQ(opened.error().code, ErrorCode::kUnavailable);
  EXPECT_EQ(db::ErrorKindOf(opened.error()), db::DbErrorKind::kUnavailable);

  db::DatabaseOptions bad_scheme;
  bad_scheme.url = "mysql://localhost/x";
  auto refused = db::OpenDatabase(bad_scheme);
  ASSERT_FALSE(refused.ok());
  EXPECT_NE(refused.error().message.find("postgres://"), std::string::npos);
}

}  // namespace
}  // namespace cairn::test
