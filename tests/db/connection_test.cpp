// Values, transactions, error mapping, concurrency and the statement cache, on both backends.
#include <atomic>
#include <chrono>
#include <future>
#include <limits>
#include <thread>

#include <gtest/gtest.h>
#include <boost/json/parse.hpp>

#include "db/database.hpp"
#include "db/db_error.hpp"
#include "db/decimal.hpp"
#include "db_test_util.hpp"
#include "support/test_database.hpp"

namespace cairn::test {
namespace {

using db::ColumnKind;
using db::ColumnType;
using db::Value;

class ConnectionTest : public DatabaseTest {
 protected:
  std::string Type(ColumnKind kind, int scale = 0) {
    return dialect().ColumnTypeSql(ColumnType{kind, scale});
  }

  void CreateValuesTable() {
    CAIRN_ASSERT_OK(RunScript(
        database(), "CREATE TABLE \"vals\" (\"id\" " + Type(ColumnKind::kId) + ", \"i\" " +
                        Type(ColumnKind::kInt64) + ", \"d\" " + Type(ColumnKind::kDouble) +
                        ", \"s\" " + Type(ColumnKind::kText) + ", \"b\" " +
                        Type(ColumnKind::kBool) + ", \"ts\" " + Type(ColumnKind::kTimestamp) +
                        ", \"dec\" " + Type(ColumnKind::kDecimal, 4) + ", \"j\" " +
                        Type(ColumnKind::kJson) + ", \"bl\" " + Type(ColumnKind::kBlob) + ")"));
  }

  void CreateCounterTables() {
    CAIRN_ASSERT_OK(RunScript(database(), "CREATE TABLE \"items\" (\"id\" " +
                                              Type(ColumnKind::kId) + ", \"n\" " +
                                              Type(ColumnKind::kInt64) + ")"));
    CAIRN_ASSERT_OK(RunScript(
        database(), "CREATE TABLE \"counter\" (\"n\" " + Type(ColumnKind::kInt64) + " NOT NULL)"));
    CAIRN_ASSERT_OK(RunScript(database(), "INSERT INTO \"counter\" (\"n\") VALUES (0)"));
  }
};

struct StoredValues {
  std::int64_t i = 0;
  double d = 0;
  std::string s;
  bool b = false;
  std::int64_t ts = 0;
  db::Decimal dec;
  std::string j;
  std::string bl;
};

TEST_F(ConnectionTest, EveryValueKindRoundTrips) {
  CreateValuesTable();
  const std::string blob("\x00\x01\xff\xfe binary \x7f", 14);
  const std::string_view text_view = "viewed text, ünïcødé ✓";
  struct Case {
    std::int64_t i;
    double d;
    std::string s;
    bool b;
    std::int64_t ts;
    db::Decimal dec;
    std::string j;
  };
  const Case cases[] = {
      {std::numeric_limits<std::int64_t>::max(),
       0.1,
       "it's \"quoted\" ?",
       true,
       1700000000123,
       {123456789, 4},
       R"({"a":[1,2,{"b":null}],"c":"x"})"},
      {std::numeric_limits<std::int64_t>::min(), -2.5e-300, "", false, -86400001, {-5, 4}, "[]"},
      {0, 1e300, "line\nbreak\ttab", true, 0, {0, 4}, R"("just a string")"},
  };
  for (const auto& c : cases) {
    std::int64_t id = 0;
    CAIRN_ASSERT_OK(database().Transaction(db::Access::kWrite, [&](db::Connection& connection) {
      const std::string sql =
          "INSERT INTO \"vals\" (\"i\", \"d\", \"s\", \"b\", \"ts\", \"dec\", \"j\", \"bl\") "
          "VALUES (?, ?, ?, ?, ?, ?, ?, ?)" +
          std::string(dialect().ReturningId());
      auto result = connection.Execute(
          sql, {c.i, c.d, c.s, c.b, db::Timestamp{c.ts}, c.dec, db::Json{c.j}, db::Blob{blob}},
          [&](const db::Row& row) { id = row.GetInt64(0); });
      if (!result.ok()) return Status(std::move(result).error());
      EXPECT_EQ(*result, 1);
      return Status();
    }));
    ASSERT_GT(id, 0);
    StoredValues got;
    CAIRN_ASSERT_OK(database().Transaction(db::Access::kRead, [&](db::Connection& connection) {
      auto result = connection.Execute(
          "SELECT \"i\", \"d\", \"s\", \"b\", \"ts\", \"dec\", \"j\", \"bl\" FROM \"vals\" "
          "WHERE \"id\" = ?",
          {id}, [&](const db::Row& row) {
            EXPECT_EQ(row.ColumnCount(), 8);
            EXPECT_EQ(row.ColumnName(2), "s");
            for (int k = 0; k < 8; ++k) EXPECT_FALSE(row.IsNull(k)) << k;
            got = {row.GetInt64(0),
                   row.GetDouble(1),
                   std::string(row.GetText(2)),
                   row.GetBool(3),
                   row.GetTimestampMillis(4),
                   row.GetDecimal(5, 4),
                   std::string(row.GetText(6)),
                   row.GetBlob(7)};
          });
      if (!result.ok()) return Status(std::move(result).error());
      EXPECT_EQ(*result, 1);
      return Status();
    }));
    EXPECT_EQ(got.i, c.i);
    EXPECT_EQ(got.d, c.d);
    EXPECT_EQ(got.s, c.s);
    EXPECT_EQ(got.b, c.b);
    EXPECT_EQ(got.ts, c.ts);
    EXPECT_EQ(got.dec.units, c.dec.units);
    EXPECT_EQ(got.dec.scale, 4);
    // JSONB normalizes whitespace: compare the documents.
    EXPECT_EQ(boost::json::parse(got.j), boost::json::parse(c.j)) << got.j;
    EXPECT_EQ(got.bl, blob);
  }

  // string_view parameters, and NULL in every column.
  CAIRN_ASSERT_OK(database().Transaction(db::Access::kWrite, [&](db::Connection& connection) {
    auto result = connection.Execute(
        "INSERT INTO \"vals\" (\"s\", \"i\", \"dec\", \"j\", \"bl\", \"ts\", \"b\", \"d\") "
        "VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
        {text_view, db::Null{}, db::Null{}, db::Null{}, db::Null{}, db::Null{}, db::Null{},
         db::Null{}});
    return result.ok() ? Status() : Status(std::move(result).error());
  }));
  int nulls = 0;
  std::string text;
  CAIRN_ASSERT_OK(database().Transaction(db::Access::kRead, [&](db::Connection& connection) {
    auto result = connection.Execute(
        "SELECT \"s\", \"i\", \"dec\", \"j\", \"bl\", \"ts\", \"b\", \"d\" FROM \"vals\" "
        "WHERE \"s\" = ?",
        {std::string(text_view)}, [&](const db::Row& row) {
          text = row.GetText(0);
          for (int k = 1; k < 8; ++k) nulls += row.IsNull(k) ? 1 : 0;
        });
    return result.ok() ? Status() : Status(std::move(result).error());
  }));
  EXPECT_EQ(text, text_view);
  EXPECT_EQ(nulls, 7);
}

TEST_F(ConnectionTest, QueryMaterializesText) {
  CreateCounterTables();
  db::Rows rows;
  CAIRN_ASSERT_OK(database().Transaction(db::Access::kRead, [&](db::Connection& connection) {
    auto result = connection.Query("SELECT \"n\", NULL AS \"nothing\" FROM \"counter\"");
    if (!result.ok()) return Status(std::move(result).error());
    rows = std::move(result).value();
    return Status();
  }));
  ASSERT_EQ(rows.columns.size(), 2u);
  EXPECT_EQ(rows.columns[1], "nothing");
  ASSERT_EQ(rows.rows.size(), 1u);
  EXPECT_EQ(rows.rows[0][0], "0");
  EXPECT_FALSE(rows.rows[0][1].has_value());
}

TEST_F(ConnectionTest, CommitAndRollback) {
  CreateCounterTables();
  CAIRN_ASSERT_OK(database().Transaction(db::Access::kWrite, [](db::Connection& connection) {
    auto result = connection.Execute("INSERT INTO \"items\" (\"n\") VALUES (?)", {std::int64_t{1}});
    return result.ok() ? Status() : Status(std::move(result).error());
  }));
  EXPECT_EQ(QueryInt(database(), "SELECT COUNT(*) FROM \"items\""), 1);

  const Status failed =
      database().Transaction(db::Access::kWrite, [](db::Connection& connection) -> Status {
        auto result =
            connection.Execute("INSERT INTO \"items\" (\"n\") VALUES (?)", {std::int64_t{2}});
        if (!result.ok()) return std::move(result).error();
        return Error::Validation("changed my mind");
      });
  ASSERT_FALSE(failed.ok());
  EXPECT_EQ(failed.error().message, "changed my mind");
  EXPECT_EQ(QueryInt(database(), "SELECT COUNT(*) FROM \"items\""), 1);

  EXPECT_THROW((void)database().Transaction(db::Access::kWrite,
                                            [](db::Connection& connection) -> Status {
                                              (void)connection.Execute(
                                                  "INSERT INTO \"items\" (\"n\") VALUES (?)",
                                                  {std::int64_t{3}});
                                              throw std::runtime_error("boom");
                                            }),
               std::runtime_error);
  EXPECT_EQ(QueryInt(database(), "SELECT COUNT(*) FROM \"items\""), 1);
  // The connection is usable after the exception.
  CAIRN_ASSERT_OK(RunScript(database(), "INSERT INTO \"items\" (\"n\") VALUES (4)"));
  EXPECT_EQ(QueryInt(database(), "SELECT COUNT(*) FROM \"items\""), 2);
}

TEST_F(ConnectionTest, ReadTransactionsCannotWrite) {
  CreateCounterTables();
  const Status status = database().Transaction(db::Access::kRead, [](db::Connection& connection) {
    auto result = connection.Execute("UPDATE \"counter\" SET \"n\" = 5", {});
    return result.ok() ? Status() : Status(std::move(result).error());
  });
  EXPECT_FALSE(status.ok());
  EXPECT_EQ(QueryInt(database(), "SELECT \"n\" FROM \"counter\""), 0);
}

TEST_F(ConnectionTest, ReadTransactionsSeeOneSnapshot) {
  // A list's total and its page come from one read transaction: a write committed between its
  // statements is not half seen.
  CreateCounterTables();
  std::int64_t first = -1;
  std::int64_t second = -1;
  CAIRN_ASSERT_OK(
      database().Transaction(db::Access::kRead, [&](db::Connection& connection) -> Status {
        CAIRN_TRY(connection.Execute("SELECT COUNT(*) FROM \"items\"", {},
                                     [&](const db::Row& row) { first = row.GetInt64(0); }));
        std::thread([&] {
          CAIRN_EXPECT_OK(RunScript(database(), "INSERT INTO \"items\" (\"n\") VALUES (1)"));
        }).join();
        CAIRN_TRY(connection.Execute("SELECT COUNT(*) FROM \"items\"", {},
                                     [&](const db::Row& row) { second = row.GetInt64(0); }));
        return Status();
      }));
  EXPECT_EQ(first, 0);
  EXPECT_EQ(second, 0);
  EXPECT_EQ(QueryInt(database(), "SELECT COUNT(*) FROM \"items\""), 1);
}

// One connection, so every transaction below reuses the one before it: on PostgreSQL a read's
// BEGIN travels with its first statement and its COMMIT is read by the next use.
class OneConnectionTest : public ConnectionTest {
 protected:
  db::DatabaseOptions Tuning() const override {
    db::DatabaseOptions options;
    options.pool_size = 1;
    return options;
  }
};

TEST_F(OneConnectionTest, AReadOfOneStatementCostsOneRoundTrip) {
  CreateCounterTables();
  const std::string sql = "SELECT COUNT(*) FROM \"items\"";
  // Stats after each read's statement: what lies between two of them is one COMMIT, one BEGIN
  // and one statement (already prepared).
  std::vector<db::ConnectionStats> after;
  for (int i = 0; i < 3; ++i) {
    CAIRN_ASSERT_OK(
        database().Transaction(db::Access::kRead, [&](db::Connection& connection) -> Status {
          CAIRN_TRY(connection.Execute(sql, {}));
          after.push_back(connection.stats());
          return {};
        }));
  }
  db::ConnectionStats idle;
  CAIRN_ASSERT_OK(database().Transaction(db::Access::kRead, [&](db::Connection& connection) {
    idle = connection.stats();  // a read without statements sends nothing
    return Status();
  }));
  const std::uint64_t expected = IsPostgres() ? 1 : 0;
  EXPECT_EQ(after[1].round_trips - after[0].round_trips, expected);
  EXPECT_EQ(after[2].round_trips - after[1].round_trips, expected);
  EXPECT_EQ(idle.round_trips, after[2].round_trips);
  EXPECT_EQ(after[2].prepares, after[1].prepares);
}

TEST_F(OneConnectionTest, AWriteOfOneStatementCostsTwoRoundTrips) {
  CreateCounterTables();
  const std::string sql = "UPDATE \"counter\" SET \"n\" = \"n\" + 1";
  // Stats after each write's statement: between two of them lie the COMMIT and the next
  // statement with its BEGIN (on SQLite, nothing goes over a wire).
  std::vector<db::ConnectionStats> after;
  for (int i = 0; i < 3; ++i) {
    CAIRN_ASSERT_OK(
        database().Transaction(db::Access::kWrite, [&](db::Connection& connection) -> Status {
          CAIRN_TRY(connection.Execute(sql, {}));
          after.push_back(connection.stats());
          return {};
        }));
  }
  db::ConnectionStats idle;
  CAIRN_ASSERT_OK(database().Transaction(db::Access::kWrite, [&](db::Connection& connection) {
    idle = connection.stats();  // a write without statements sends nothing
    return Status();
  }));
  const std::uint64_t expected = IsPostgres() ? 2 : 0;
  EXPECT_EQ(after[1].round_trips - after[0].round_trips, expected);
  EXPECT_EQ(after[2].round_trips - after[1].round_trips, expected);
  EXPECT_EQ(idle.round_trips - after[2].round_trips, IsPostgres() ? 1u : 0u);  // the last COMMIT
  EXPECT_EQ(QueryInt(database(), "SELECT \"n\" FROM \"counter\""), 3);
}

TEST_F(OneConnectionTest, WriteTransactionsLeaveTheirConnectionReadyAndNothingHalfDone) {
  CreateCounterTables();
  CAIRN_ASSERT_OK(
      database().Transaction(db::Access::kWrite, [](db::Connection&) { return Status(); }));
  // The first statement fails: its own error comes back.
  const Status failed =
      database().Transaction(db::Access::kWrite, [](db::Connection& connection) -> Status {
        CAIRN_TRY(connection.Execute("UPDATE \"missing\" SET \"n\" = 1", {}));
        return {};
      });
  ASSERT_FALSE(failed.ok());
  EXPECT_NE(failed.error().detail.find("missing"), std::string::npos) << Describe(failed.error());
  // A later statement fails: the first one's write is rolled back with it.
  const Status later =
      database().Transaction(db::Access::kWrite, [](db::Connection& connection) -> Status {
        CAIRN_TRY(connection.Execute("INSERT INTO \"items\" (\"n\") VALUES (7)", {}));
        CAIRN_TRY(connection.Execute("INSERT INTO \"also_missing\" (\"n\") VALUES (7)", {}));
        return {};
      });
  ASSERT_FALSE(later.ok());
  EXPECT_EQ(QueryInt(database(), "SELECT COUNT(*) FROM \"items\""), 0);
  // The work gives up after a statement ran: nothing of it stays.
  const Status abandoned =
      database().Transaction(db::Access::kWrite, [](db::Connection& connection) -> Status {
        CAIRN_TRY(connection.Execute("INSERT INTO \"items\" (\"n\") VALUES (8)", {}));
        return Error::Conflict("changed my mind");
      });
  ASSERT_FALSE(abandoned.ok());
  EXPECT_EQ(QueryInt(database(), "SELECT COUNT(*) FROM \"items\""), 0);
  // A first statement libpq refuses to send, after the BEGIN was queued.
  std::string values = "INSERT INTO \"items\" (\"n\") VALUES (?)";
  std::vector<Value> many(70000, Value(std::int64_t{1}));
  for (std::size_t i = 1; i < many.size(); ++i) values += ",(?)";
  const Status refused =
      database().Transaction(db::Access::kWrite, [&](db::Connection& connection) -> Status {
        CAIRN_TRY(connection.Execute(values, many));
        return {};
      });
  if (IsPostgres()) {
    ASSERT_FALSE(refused.ok());  // SQLite's own limit is higher: there it runs
  }
  CAIRN_ASSERT_OK(RunScript(database(), "DELETE FROM \"items\""));
  // Writes, reads and scripts then go on as usual.
  for (int round = 1; round <= 3; ++round) {
    CAIRN_ASSERT_OK(RunScript(database(), "INSERT INTO \"items\" (\"n\") VALUES (1)"));
    EXPECT_EQ(QueryInt(database(), "SELECT COUNT(*) FROM \"items\""), round);
  }
}

TEST_F(OneConnectionTest, ReadTransactionsLeaveTheirConnectionReadyWhateverHappened) {
  CreateCounterTables();
  // No statement at all.
  CAIRN_ASSERT_OK(
      database().Transaction(db::Access::kRead, [](db::Connection&) { return Status(); }));
  // The first statement fails: its own error comes back, not the transaction's.
  const Status failed =
      database().Transaction(db::Access::kRead, [](db::Connection& connection) -> Status {
        CAIRN_TRY(connection.Execute("SELECT \"n\" FROM \"missing\"", {}));
        return {};
      });
  ASSERT_FALSE(failed.ok());
  EXPECT_NE(failed.error().detail.find("missing"), std::string::npos) << Describe(failed.error());
  // A later statement fails, after one that ran.
  const Status later =
      database().Transaction(db::Access::kRead, [](db::Connection& connection) -> Status {
        CAIRN_TRY(connection.Execute("SELECT COUNT(*) FROM \"items\"", {}));
        CAIRN_TRY(connection.Execute("SELECT COUNT(*) FROM \"also_missing\"", {}));
        return {};
      });
  ASSERT_FALSE(later.ok());
  // A first statement libpq refuses to send (more parameters than the wire protocol carries),
  // after the BEGIN was queued. (SQLite's own limit is higher: there it simply runs.)
  std::string in_list = "SELECT COUNT(*) FROM \"items\" WHERE \"n\" IN (?";
  std::vector<Value> many(70000, Value(std::int64_t{1}));
  for (std::size_t i = 1; i < many.size(); ++i) in_list += ",?";
  in_list += ")";
  const Status refused =
      database().Transaction(db::Access::kRead, [&](db::Connection& connection) -> Status {
        CAIRN_TRY(connection.Execute(in_list, many));
        return {};
      });
  if (IsPostgres()) {
    ASSERT_FALSE(refused.ok());
    EXPECT_NE(refused.error().detail.find("65535"), std::string::npos);
  }
  // Reads, planned per value too, then a write and a ping, one after another on the connection.
  for (int round = 1; round <= 3; ++round) {
    EXPECT_EQ(QueryInt(database(), "SELECT COUNT(*) FROM \"items\""), round - 1);
    std::int64_t planned = -1;
    CAIRN_ASSERT_OK(
        database().Transaction(db::Access::kRead, [&](db::Connection& connection) -> Status {
          const Value zero{std::int64_t{0}};
          CAIRN_TRY(connection.ExecutePlannedPerValue(
              "SELECT COUNT(*) FROM \"items\" WHERE \"n\" >= ?", std::span<const Value>(&zero, 1),
              [&](const db::Row& row) { planned = row.GetInt64(0); }));
          return {};
        }));
    EXPECT_EQ(planned, round - 1);
    CAIRN_ASSERT_OK(RunScript(database(), "INSERT INTO \"items\" (\"n\") VALUES (1)"));
    CAIRN_ASSERT_OK(database().Ping());
  }
  // A script is a first statement too.
  CAIRN_ASSERT_OK(database().Transaction(db::Access::kRead, [](db::Connection& connection) {
    return connection.ExecuteScript("SELECT 1");
  }));
  EXPECT_EQ(QueryInt(database(), "SELECT COUNT(*) FROM \"items\""), 3);
}

TEST_F(ConnectionTest, NestedTransactionIsAnError) {
  Status inner;
  CAIRN_ASSERT_OK(database().Transaction(db::Access::kWrite, [&](db::Connection&) {
    inner = database().Transaction(db::Access::kRead, [](db::Connection&) { return Status(); });
    return Status();
  }));
  ASSERT_FALSE(inner.ok());
  EXPECT_NE(inner.error().detail.find("inside a transaction"), std::string::npos);
}

TEST_F(ConnectionTest, UniqueViolationNamesTheColumn) {
  CAIRN_ASSERT_OK(RunScript(database(), "CREATE TABLE \"people\" (\"id\" " + Type(ColumnKind::kId) +
                                            ", \"email\" TEXT)"));
  CAIRN_ASSERT_OK(
      RunScript(database(), "CREATE UNIQUE INDEX \"cx_people_email\" ON \"people\" (\"email\")"));
  const auto insert = [&] {
    return database().Transaction(db::Access::kWrite, [](db::Connection& connection) {
      auto result = connection.Execute("INSERT INTO \"people\" (\"email\") VALUES (?)",
                                       {std::string("a@example.com")});
      return result.ok() ? Status() : Status(std::move(result).error());
    });
  };
  CAIRN_ASSERT_OK(insert());
  const Status duplicate = insert();
  ASSERT_FALSE(duplicate.ok());
  const Error& error = duplicate.error();
  EXPECT_EQ(db::ErrorKindOf(error), db::DbErrorKind::kUnique);
  EXPECT_EQ(error.code, ErrorCode::kConflict);
  EXPECT_EQ(error.reason, "UNIQUE_VIOLATION");
  ASSERT_EQ(error.errors.size(), 1u) << Describe(error);
  EXPECT_EQ(error.errors[0].field, "email");
  EXPECT_EQ(error.errors[0].message, "must be unique");
  EXPECT_FALSE(error.detail.empty());
  EXPECT_EQ(error.message.find("people"), std::string::npos) << "driver text leaked";
}

TEST_F(ConnectionTest, ForeignKeyViolationsMap) {
  CAIRN_ASSERT_OK(
      RunScript(database(), "CREATE TABLE \"parents\" (\"id\" " + Type(ColumnKind::kId) + ")"));
  CAIRN_ASSERT_OK(
      RunScript(database(), "CREATE TABLE \"children\" (\"id\" " + Type(ColumnKind::kId) +
                                ", \"parent\" " + Type(ColumnKind::kInt64) +
                                " REFERENCES \"parents\" (\"id\") ON DELETE RESTRICT)"));
  const auto run = [&](std::string sql, std::int64_t value) {
    return database().Transaction(db::Access::kWrite, [&](db::Connection& connection) {
      auto result = connection.Execute(sql, {value});
      return result.ok() ? Status() : Status(std::move(result).error());
    });
  };
  const Status missing = run("INSERT INTO \"children\" (\"parent\") VALUES (?)", 42);
  ASSERT_FALSE(missing.ok());
  EXPECT_EQ(db::ErrorKindOf(missing.error()), db::DbErrorKind::kForeignKey);
  EXPECT_EQ(missing.error().reason, "FOREIGN_KEY_VIOLATION");
  EXPECT_EQ(missing.error().code, ErrorCode::kConflict);

  CAIRN_ASSERT_OK(run("INSERT INTO \"parents\" (\"id\") VALUES (?)", 1));
  CAIRN_ASSERT_OK(run("INSERT INTO \"children\" (\"parent\") VALUES (?)", 1));
  const Status referenced = run("DELETE FROM \"parents\" WHERE \"id\" = ?", 1);
  ASSERT_FALSE(referenced.ok());
  EXPECT_EQ(db::ErrorKindOf(referenced.error()), db::DbErrorKind::kForeignKey);
}

TEST_F(ConnectionTest, OtherErrorsAreInternal) {
  const Status status = RunScript(database(), "SELECT * FROM \"no_such_table\"");
  ASSERT_FALSE(status.ok());
  EXPECT_EQ(status.error().code, ErrorCode::kInternal);
  EXPECT_EQ(status.error().reason, "DATABASE_ERROR");
  EXPECT_EQ(db::ErrorKindOf(status.error()), db::DbErrorKind::kOther);
  EXPECT_EQ(db::ErrorKindOf(Error::Validation("x")), db::DbErrorKind::kOther);
}

TEST_F(ConnectionTest, BusyTransactionsAreRunAgain) {
  CreateCounterTables();
  int attempts = 0;
  CAIRN_ASSERT_OK(database().Transaction(db::Access::kWrite, [&](db::Connection& connection) {
    ++attempts;
    auto result = connection.Execute("UPDATE \"counter\" SET \"n\" = \"n\" + 1", {});
    if (!result.ok()) return Status(std::move(result).error());
    if (attempts < 3) return Status(db::MakeDbError(db::DbErrorKind::kBusy, "simulated"));
    return Status();
  }));
  EXPECT_EQ(attempts, 3);
  // Rolled-back attempts left nothing behind.
  EXPECT_EQ(QueryInt(database(), "SELECT \"n\" FROM \"counter\""), 1);

  // Bounded: a transaction that is always busy gives up with the busy error.
  attempts = 0;
  const Status status = database().Transaction(db::Access::kWrite, [&](db::Connection&) {
    ++attempts;
    return Status(db::MakeDbError(db::DbErrorKind::kBusy, "always"));
  });
  ASSERT_FALSE(status.ok());
  EXPECT_EQ(db::ErrorKindOf(status.error()), db::DbErrorKind::kBusy);
  EXPECT_GT(attempts, 1);
  EXPECT_LT(attempts, 20);
}

TEST_F(ConnectionTest, ConcurrentWritersLoseNothing) {
  CreateCounterTables();
  constexpr int kThreads = 6;
  constexpr int kWritesPerThread = 40;
  std::atomic<int> failures{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      for (int i = 0; i < kWritesPerThread; ++i) {
        const Status status =
            database().Transaction(db::Access::kWrite, [&](db::Connection& connection) -> Status {
              CAIRN_TRY(connection.Execute("INSERT INTO \"items\" (\"n\") VALUES (?)",
                                           {std::int64_t{t * 1000 + i}}));
              CAIRN_TRY(connection.Execute("UPDATE \"counter\" SET \"n\" = \"n\" + 1", {}));
              return {};
            });
        if (!status.ok()) {
          ++failures;
          ADD_FAILURE() << Describe(status.error());
        }
      }
    });
  }
  for (auto& thread : threads) thread.join();
  EXPECT_EQ(failures.load(), 0);
  EXPECT_EQ(QueryInt(database(), "SELECT COUNT(*) FROM \"items\""), kThreads * kWritesPerThread);
  EXPECT_EQ(QueryInt(database(), "SELECT COUNT(DISTINCT \"n\") FROM \"items\""),
            kThreads * kWritesPerThread);
  EXPECT_EQ(QueryInt(database(), "SELECT \"n\" FROM \"counter\""), kThreads * kWritesPerThread);
}

TEST_F(ConnectionTest, ReadersRunWhileAWriterHoldsATransaction) {
  CreateCounterTables();
  std::promise<void> inserted;
  std::promise<void> release;
  std::shared_future<void> released = release.get_future().share();
  std::thread writer([&] {
    const Status status =
        database().Transaction(db::Access::kWrite, [&](db::Connection& connection) -> Status {
          CAIRN_TRY(
              connection.Execute("INSERT INTO \"items\" (\"n\") VALUES (?)", {std::int64_t{7}}));
          inserted.set_value();
          released.wait_for(std::chrono::seconds(30));
          return {};
        });
    EXPECT_TRUE(status.ok()) << Describe(status.error());
  });
  inserted.get_future().wait();
  // Several concurrent readers complete while the write transaction is open, and do not see
  // its uncommitted row.
  std::vector<std::future<std::int64_t>> readers;
  for (int i = 0; i < 3; ++i) {
    readers.push_back(std::async(std::launch::async, [&] {
      return QueryInt(database(), "SELECT COUNT(*) FROM \"items\"");
    }));
  }
  for (auto& reader : readers) {  // (no ASSERT: the writer thread must be joined first)
    const bool ready = reader.wait_for(std::chrono::seconds(10)) == std::future_status::ready;
    EXPECT_TRUE(ready) << "a reader was blocked by the writer";
    if (ready) {
      EXPECT_EQ(reader.get(), 0);
    }
  }
  release.set_value();
  writer.join();
  EXPECT_EQ(QueryInt(database(), "SELECT COUNT(*) FROM \"items\""), 1);
}

TEST_F(ConnectionTest, PreparedStatementsAreReused) {
  CreateCounterTables();
  const std::string sql = "INSERT INTO \"items\" (\"n\") VALUES (?)";
  db::ConnectionStats before, after;
  CAIRN_ASSERT_OK(
      database().Transaction(db::Access::kWrite, [&](db::Connection& connection) -> Status {
        before = connection.stats();
        for (int i = 0; i < 10; ++i) CAIRN_TRY(connection.Execute(sql, {std::int64_t{i}}));
        after = connection.stats();
        return {};
      }));
  EXPECT_EQ(after.prepares - before.prepares, 1u);
  EXPECT_EQ(after.cache_hits - before.cache_hits, 9u);

  // A later transaction on the (same, single-threaded) connection prepares nothing again.
  CAIRN_ASSERT_OK(
      database().Transaction(db::Access::kWrite, [&](db::Connection& connection) -> Status {
        before = connection.stats();
        CAIRN_TRY(connection.Execute(sql, {std::int64_t{99}}));
        after = connection.stats();
        return {};
      }));
  EXPECT_EQ(after.prepares - before.prepares, 0u);
  EXPECT_EQ(after.cache_hits - before.cache_hits, 1u);
  EXPECT_EQ(QueryInt(database(), "SELECT COUNT(*) FROM \"items\""), 11);
}

TEST_F(ConnectionTest, StatementsPlannedPerValueGiveTheSameRowsAndErrors) {
  CreateCounterTables();
  const std::string insert = "INSERT INTO \"items\" (\"n\") VALUES (?)";
  const std::string select = "SELECT \"n\" FROM \"items\" WHERE \"n\" >= ? ORDER BY \"n\"";
  std::vector<std::int64_t> seen;
  db::ConnectionStats before, after;
  CAIRN_ASSERT_OK(
      database().Transaction(db::Access::kWrite, [&](db::Connection& connection) -> Status {
        for (int i = 0; i < 5; ++i) {
          const std::vector<db::Value> one{std::int64_t{i}};
          CAIRN_ASSIGN_OR_RETURN(const std::int64_t inserted,
                                 connection.ExecutePlannedPerValue(insert, one));
          EXPECT_EQ(inserted, 1);
        }
        before = connection.stats();
        const std::vector<db::Value> from{std::int64_t{3}};
        CAIRN_ASSIGN_OR_RETURN(
            const std::int64_t returned,
            connection.ExecutePlannedPerValue(
                select, from, [&](const db::Row& row) { seen.push_back(row.GetInt64(0)); }));
        EXPECT_EQ(returned, 2);
        after = connection.stats();
        return {};
      }));
  EXPECT_EQ(seen, (std::vector<std::int64_t>{3, 4}));
  // PostgreSQL keeps no statement for them; SQLite caches them as it does every statement.
  if (dialect().is_postgres()) {
    EXPECT_EQ(after.prepares - before.prepares, 0u);
  }
  EXPECT_EQ(QueryInt(database(), "SELECT COUNT(*) FROM \"items\""), 5);

  const Status status = database().Transaction(db::Access::kRead, [&](db::Connection& connection) {
    const std::vector<db::Value> nul{std::string_view("a\0b", 3)};
    auto result = connection.ExecutePlannedPerValue("SELECT ?", nul);
    return result.ok() ? Status() : Status(std::move(result).error());
  });
  if (dialect().is_postgres()) {
    ASSERT_FALSE(status.ok());
    EXPECT_EQ(status.error().code, ErrorCode::kValidation);
  }
  const Status missing = database().Transaction(db::Access::kRead, [](db::Connection& connection) {
    auto result = connection.ExecutePlannedPerValue("SELECT * FROM \"no_such_table\"", {});
    return result.ok() ? Status() : Status(std::move(result).error());
  });
  EXPECT_FALSE(missing.ok());
}

TEST_F(ConnectionTest, ParameterCountMismatchIsAnError) {
  CreateCounterTables();
  const Status status = database().Transaction(db::Access::kWrite, [](db::Connection& connection) {
    auto result = connection.Execute("INSERT INTO \"items\" (\"n\") VALUES (?)", {});
    return result.ok() ? Status() : Status(std::move(result).error());
  });
  EXPECT_FALSE(status.ok());
}

TEST_F(ConnectionTest, DecimalsAreExact) {
  CAIRN_ASSERT_OK(RunScript(database(), "CREATE TABLE \"money\" (\"id\" " + Type(ColumnKind::kId) +
                                            ", \"amount\" " + Type(ColumnKind::kDecimal, 2) + ")"));
  const auto tenth = db::ParseDecimal("0.1", 2);
  ASSERT_TRUE(tenth.has_value());
  for (int i = 0; i < 10; ++i) {
    CAIRN_ASSERT_OK(database().Transaction(db::Access::kWrite, [&](db::Connection& connection) {
      auto result = connection.Execute("INSERT INTO \"money\" (\"amount\") VALUES (?)", {*tenth});
      return result.ok() ? Status() : Status(std::move(result).error());
    }));
  }
  db::Decimal sum;
  db::Decimal largest;
  CAIRN_ASSERT_OK(database().Transaction(db::Access::kRead, [&](db::Connection& connection) {
    auto result = connection.Execute("SELECT SUM(\"amount\"), MAX(\"amount\") FROM \"money\"", {},
                                     [&](const db::Row& row) {
                                       sum = row.GetDecimal(0, 2);
                                       largest = row.GetDecimal(1, 2);
                                     });
    return result.ok() ? Status() : Status(std::move(result).error());
  }));
  EXPECT_EQ(sum.units, 100);
  EXPECT_EQ(db::FormatDecimal(sum), "1.00");
  EXPECT_EQ(db::FormatDecimal(largest), "0.10");
  // Filtering by an exact decimal matches exactly.
  EXPECT_EQ(QueryInt(database(), "SELECT COUNT(*) FROM \"money\" WHERE \"amount\" > 0"), 10);
}

TEST_F(ConnectionTest, UpsertClauseWorks) {
  CAIRN_ASSERT_OK(RunScript(database(), "CREATE TABLE \"kv\" (\"k\" TEXT PRIMARY KEY, \"v\" " +
                                            Type(ColumnKind::kInt64) + ")"));
  const db::Identifier key("k"), value("v");
  const std::string sql = "INSERT INTO \"kv\" (\"k\", \"v\") VALUES (?, ?)" +
                          dialect().UpsertClause(std::span(&key, 1), std::span(&value, 1));
  for (std::int64_t v : {1, 2, 3}) {
    CAIRN_ASSERT_OK(database().Transaction(db::Access::kWrite, [&](db::Connection& connection) {
      auto result = connection.Execute(sql, {std::string("a"), v});
      return result.ok() ? Status() : Status(std::move(result).error());
    }));
  }
  EXPECT_EQ(QueryInt(database(), "SELECT COUNT(*) FROM \"kv\""), 1);
  EXPECT_EQ(QueryInt(database(), "SELECT \"v\" FROM \"kv\""), 3);
}

TEST_F(ConnectionTest, JsonArrayContainsText) {
  CAIRN_ASSERT_OK(RunScript(database(), "CREATE TABLE \"tagged\" (\"id\" " + Type(ColumnKind::kId) +
                                            ", \"tags\" " + Type(ColumnKind::kJson) + ")"));
  CAIRN_ASSERT_OK(
      database().Transaction(db::Access::kWrite, [&](db::Connection& connection) -> Status {
        for (const char* tags : {R"(["a","b"])", R"(["b","c"])", "[]"}) {
          CAIRN_TRY(
              connection.Execute("INSERT INTO \"tagged\" (\"tags\") VALUES (?)", {db::Json{tags}}));
        }
        return {};
      }));
  std::int64_t count = -1;
  CAIRN_ASSERT_OK(database().Transaction(db::Access::kRead, [&](db::Connection& connection) {
    auto result = connection.Execute(
        "SELECT COUNT(*) FROM \"tagged\" WHERE " + dialect().JsonArrayContainsText("\"tags\""),
        {std::string("b")}, [&](const db::Row& row) { count = row.GetInt64(0); });
    return result.ok() ? Status() : Status(std::move(result).error());
  }));
  EXPECT_EQ(count, 2);
}

TEST_F(ConnectionTest, PingAndClose) {
  CAIRN_EXPECT_OK(database().Ping());
  test_database().Close();
}

TEST_F(ConnectionTest, DataIsVisibleToAnotherDatabaseInstance) {
  CreateCounterTables();
  CAIRN_ASSERT_OK(RunScript(database(), "UPDATE \"counter\" SET \"n\" = 41"));
  auto other = test_database().Reopen();
  CAIRN_ASSERT_OK(other);
  EXPECT_EQ(QueryInt(**other, "SELECT \"n\" FROM \"counter\""), 41);
  (*other)->Close();
}

}  // namespace
}  // namespace cairn::test
