// PostgreSQL robustness settings (db::PostgresOptions): every pooled connection carries the
// session timeouts, a statement or lock wait past them is a 503 worth retrying (not a 500), and
// schema transactions lift them. On SQLite: a full database is a 507, as on PostgreSQL.
#include <chrono>
#include <future>
#include <string>
#include <thread>
#include <vector>

#include <gtest/gtest.h>

#include "common/error.hpp"
#include "db/database.hpp"
#include "db/db_error.hpp"
#include "db_test_util.hpp"
#include "support/test_database.hpp"

namespace cairn::test {
namespace {

// The outcome of a statement, without its rows.
template <class T>
Status Outcome(Result<T> result) {
  if (!result.ok()) return std::move(result).error();
  return {};
}

class PostgresSessionTest : public DatabaseTest {
 protected:
  void SetUp() override {
    if (!IsPostgres()) GTEST_SKIP() << "PostgreSQL session settings";
    DatabaseTest::SetUp();
  }

  db::DatabaseOptions Tuning() const override {
    db::DatabaseOptions options;
    options.pool_size = 3;
    options.postgres.statement_timeout_ms = 300;
    options.postgres.lock_timeout_ms = 200;
    options.postgres.idle_in_transaction_timeout_ms = 5000;
    return options;
  }

  // SHOW `name` in a transaction of `access`.
  std::string Show(std::string_view name, db::Access access = db::Access::kRead) {
    std::string value;
    const Status status = database().Transaction(access, [&](db::Connection& connection) {
      auto rows = connection.Query("SHOW " + std::string(name), {});
      if (!rows.ok()) return Status(std::move(rows).error());
      value = rows->rows.at(0).at(0).value_or("");
      return Status();
    });
    EXPECT_TRUE(status.ok()) << Describe(status.error());
    return value;
  }
};

TEST_F(PostgresSessionTest, EveryPooledConnectionCarriesTheTimeouts) {
  // Three transactions at once take three connections: each must have the settings.
  std::promise<void> release;
  std::shared_future<void> released = release.get_future().share();
  std::vector<std::string> seen(3);
  std::vector<std::promise<void>> ready(3);
  std::vector<std::thread> threads;
  for (std::size_t i = 0; i < 3; ++i) {
    threads.emplace_back([&, i] {
      const Status status = database().Transaction(db::Access::kRead, [&](db::Connection& c) {
        auto rows = c.Query(
            "SELECT current_setting('statement_timeout') || ' ' || "
            "current_setting('lock_timeout') || ' ' || "
            "current_setting('idle_in_transaction_session_timeout') || ' ' || pg_backend_pid()");
        if (!rows.ok()) return Status(std::move(rows).error());
        seen[i] = rows->rows.at(0).at(0).value_or("");
        ready[i].set_value();
        released.wait_for(std::chrono::seconds(10));
        return Status();
      });
      EXPECT_TRUE(status.ok()) << Describe(status.error());
    });
  }
  for (auto& promise : ready) promise.get_future().wait();
  release.set_value();
  for (auto& thread : threads) thread.join();
  std::vector<std::string> pids;
  for (const std::string& line : seen) {
    EXPECT_TRUE(line.starts_with("300ms 200ms 5s ")) << line;
    pids.push_back(line.substr(line.rfind(' ') + 1));
  }
  EXPECT_NE(pids[0], pids[1]);
  EXPECT_NE(pids[1], pids[2]);
  EXPECT_NE(pids[0], pids[2]);
}

TEST_F(PostgresSessionTest, DefaultsAreSaneWithoutSettings) {
  auto reopened = test_database().Reopen({});
  CAIRN_ASSERT_OK(reopened);
  std::string value;
  CAIRN_ASSERT_OK((*reopened)->Transaction(db::Access::kRead, [&](db::Connection& c) {
    auto rows = c.Query(
        "SELECT current_setting('statement_timeout') || ' ' || current_setting('lock_timeout') "
        "|| ' ' || current_setting('idle_in_transaction_session_timeout')");
    if (!rows.ok()) return Status(std::move(rows).error());
    value = rows->rows.at(0).at(0).value_or("");
    return Status();
  }));
  EXPECT_EQ(value, "30s 10s 1min");
}

TEST_F(PostgresSessionTest, AStatementPastTheTimeoutIsAServiceUnavailable) {
  const auto begin = std::chrono::steady_clock::now();
  const Status status = database().Transaction(
      db::Access::kRead, [](db::Connection& c) { return Outcome(c.Query("SELECT pg_sleep(5)")); });
  const auto waited = std::chrono::steady_clock::now() - begin;
  ASSERT_FALSE(status.ok());
  EXPECT_EQ(db::ErrorKindOf(status.error()), db::DbErrorKind::kTimeout);
  EXPECT_EQ(status.error().code, ErrorCode::kUnavailable);
  EXPECT_EQ(HttpStatus(status.error().code), 503);
  EXPECT_EQ(status.error().reason, db::kDatabaseTimeout);
  EXPECT_GT(status.error().retry_after_seconds, 0);
  EXPECT_NE(status.error().detail.find("statement timeout"), std::string::npos)
      << status.error().detail;
  EXPECT_LT(waited, std::chrono::seconds(3));  // cancelled, not retried
  // The connection is fine afterwards.
  EXPECT_EQ(Show("statement_timeout"), "300ms");
}

TEST_F(PostgresSessionTest, ALockWaitPastTheTimeoutIsAServiceUnavailable) {
  CAIRN_ASSERT_OK(RunScript(database(), "CREATE TABLE \"items\" (\"id\" int PRIMARY KEY)"));
  CAIRN_ASSERT_OK(RunScript(database(), "INSERT INTO \"items\" VALUES (1)"));
  std::promise<void> locked;
  std::promise<void> release;
  std::thread holder([&] {
    const Status held =
        database().Transaction(db::Access::kWrite, [&](db::Connection& c) -> Status {
          CAIRN_TRY(c.Execute("UPDATE \"items\" SET \"id\" = 1 WHERE \"id\" = 1", {}));
          locked.set_value();
          release.get_future().wait_for(std::chrono::seconds(10));
          return Status();
        });
    EXPECT_TRUE(held.ok()) << Describe(held.error());
  });
  locked.get_future().wait();
  const auto begin = std::chrono::steady_clock::now();
  const Status status = database().Transaction(db::Access::kWrite, [](db::Connection& c) {
    return Outcome(c.Execute("UPDATE \"items\" SET \"id\" = 1 WHERE \"id\" = 1", {}));
  });
  const auto waited = std::chrono::steady_clock::now() - begin;
  release.set_value();
  holder.join();
  ASSERT_FALSE(status.ok());
  EXPECT_EQ(db::ErrorKindOf(status.error()), db::DbErrorKind::kTimeout);
  EXPECT_EQ(HttpStatus(status.error().code), 503);
  EXPECT_NE(status.error().detail.find("lock timeout"), std::string::npos) << status.error().detail;
  EXPECT_LT(waited, std::chrono::seconds(3));  // one wait, not one per retry
}

TEST_F(PostgresSessionTest, SchemaTransactionsLiftTheTimeouts) {
  EXPECT_EQ(Show("statement_timeout", db::Access::kSchema), "0");
  EXPECT_EQ(Show("lock_timeout", db::Access::kSchema), "0");
  CAIRN_EXPECT_OK(database().Transaction(db::Access::kSchema, [](db::Connection& c) {
    return Outcome(c.Query("SELECT pg_sleep(0.5)"));
  }));
  // ... for their own length only.
  EXPECT_EQ(Show("statement_timeout"), "300ms");
  EXPECT_EQ(Show("lock_timeout", db::Access::kWrite), "200ms");
}

class FullDatabaseTest : public DatabaseTest {};

TEST_F(FullDatabaseTest, AFullSqliteDatabaseIsInsufficientStorage) {
  if (IsPostgres()) GTEST_SKIP() << "a full disk cannot be staged on the test cluster";
  CAIRN_ASSERT_OK(RunScript(database(), "CREATE TABLE \"blobs\" (\"data\" BLOB)"));
  // The writer's database may not grow past its current size plus a little.
  const Status status = database().Transaction(db::Access::kWrite, [](db::Connection& c) -> Status {
    CAIRN_TRY(c.ExecuteScript("PRAGMA max_page_count = 20"));
    Status inserted;
    for (int i = 0; i < 100 && inserted.ok(); ++i) {
      inserted = c.ExecuteScript("INSERT INTO \"blobs\" VALUES (zeroblob(8192))");
    }
    return inserted;
  });
  ASSERT_FALSE(status.ok());
  EXPECT_EQ(db::ErrorKindOf(status.error()), db::DbErrorKind::kFull) << Describe(status.error());
  EXPECT_EQ(status.error().code, ErrorCode::kUnavailable);
  EXPECT_EQ(status.error().http_status, 507);
  EXPECT_GT(status.error().retry_after_seconds, 0);
  // Lift the cap again: the database works on.
  CAIRN_EXPECT_OK(RunScript(database(), "PRAGMA max_page_count = 1073741823"));
  CAIRN_EXPECT_OK(RunScript(database(), "INSERT INTO \"blobs\" VALUES (zeroblob(10))"));
}

}  // namespace
}  // namespace cairn::test
