// The live-row count behind an unfiltered list's total (schema/live_row_counts.hpp) on both
// backends: always equal to a count of the rows, whatever wrote them (inserts of one and many
// rows, soft delete, restore, permanent delete, upsert, rollback, concurrent writers), and on
// PostgreSQL kept by triggers that the migrator installs on new, old and rebuilt tables.
#include <thread>

#include <gtest/gtest.h>

#include "config_helpers.hpp"
#include "db/live_row_counts.hpp"
#include "db_test_util.hpp"
#include "schema/migrator.hpp"
#include "support/test_database.hpp"

namespace cairn::test {
namespace {

using config::FieldType;

config::AppConfig ItemsConfig() {
  return MakeConfig({MakeTable("items", {Unique(MakeField("code", FieldType::kSingleLineText)),
                                         MakeField("size", FieldType::kInteger)})});
}

class LiveRowCountsTest : public DatabaseTest {
 protected:
  void Migrate(const config::AppConfig& app, bool allow_destructive = false) {
    CAIRN_ASSERT_OK(
        schema::MigrateToConfig(database(), app, {.allow_destructive = allow_destructive}));
  }

  Status Write(const std::string& sql, std::vector<db::Value> params = {}) {
    return database().Transaction(db::Access::kWrite, [&](db::Connection& connection) -> Status {
      CAIRN_TRY(connection.Execute(sql, params));
      return {};
    });
  }

  Status Insert(const std::string& code, std::optional<std::int64_t> deleted_at = {}) {
    std::vector<db::Value> params{db::Timestamp{1}, db::Timestamp{1}, code};
    params.emplace_back(deleted_at ? db::Value(db::Timestamp{*deleted_at}) : db::Value());
    return Write(R"(INSERT INTO "items" ("created_at", "updated_at", "code", "deleted_at") )"
                 R"(VALUES (?, ?, ?, ?))",
                 std::move(params));
  }

  // What an unfiltered list reports as its total.
  std::int64_t Counted(std::string_view table = "items") {
    const db::LiveRowCountQuery query = dialect().live_row_counts().Count(table);
    std::int64_t value = -1;
    const Status status =
        database().Transaction(db::Access::kRead, [&](db::Connection& connection) -> Status {
          CAIRN_TRY(connection.Execute(query.sql, query.params,
                                       [&](const db::Row& row) { value = row.GetInt64(0); }));
          return {};
        });
    EXPECT_TRUE(status.ok()) << Describe(status.error());
    return value;
  }

  std::int64_t Live() {
    return QueryInt(database(), R"(SELECT COUNT(*) FROM "items" WHERE "deleted_at" IS NULL)");
  }

  // Counter rows of `table` (PostgreSQL).
  std::int64_t CounterRows(const std::string& table) {
    return QueryInt(database(),
                    "SELECT COUNT(*) FROM \"_cairn_row_counts\" WHERE "
                    "\"table_name\" = '" +
                        table + "'");
  }
};

TEST_F(LiveRowCountsTest, FollowsEveryKindOfWrite) {
  Migrate(ItemsConfig());
  EXPECT_EQ(Counted(), 0);
  CAIRN_ASSERT_OK(Insert("a"));
  CAIRN_ASSERT_OK(Insert("b"));
  CAIRN_ASSERT_OK(Insert("gone", /*deleted_at=*/5));  // born in the trash: not live
  EXPECT_EQ(Counted(), 2);

  // Many rows in one statement.
  CAIRN_ASSERT_OK(Write(R"(INSERT INTO "items" ("created_at", "updated_at", "code") )"
                        R"(VALUES (?, ?, 'c'), (?, ?, 'd'), (?, ?, 'e'))",
                        {db::Timestamp{1}, db::Timestamp{1}, db::Timestamp{1}, db::Timestamp{1},
                         db::Timestamp{1}, db::Timestamp{1}}));
  EXPECT_EQ(Counted(), 5);
  // An update that leaves deleted_at alone changes nothing.
  CAIRN_ASSERT_OK(Write(R"(UPDATE "items" SET "size" = 3)"));
  EXPECT_EQ(Counted(), 5);
  // Soft delete of two, then restore of one.
  CAIRN_ASSERT_OK(Write(R"(UPDATE "items" SET "deleted_at" = ? WHERE "code" IN ('a', 'b'))",
                        {db::Timestamp{9}}));
  EXPECT_EQ(Counted(), 3);
  // Trashed again: still trashed, no change.
  CAIRN_ASSERT_OK(
      Write(R"(UPDATE "items" SET "deleted_at" = ? WHERE "code" = 'a')", {db::Timestamp{10}}));
  EXPECT_EQ(Counted(), 3);
  CAIRN_ASSERT_OK(Write(R"(UPDATE "items" SET "deleted_at" = NULL WHERE "code" = 'a')"));
  EXPECT_EQ(Counted(), 4);
  // Permanent delete of a trashed row and of a live one.
  CAIRN_ASSERT_OK(Write(R"(DELETE FROM "items" WHERE "code" IN ('b', 'c'))"));
  EXPECT_EQ(Counted(), 3);
  // An upsert that inserts one row and updates another in one statement.
  CAIRN_ASSERT_OK(Write(
      R"(INSERT INTO "items" ("created_at", "updated_at", "code") VALUES (?, ?, 'a'), (?, ?, 'f') )"
      R"(ON CONFLICT ("code") DO UPDATE SET "size" = 7)",
      {db::Timestamp{1}, db::Timestamp{1}, db::Timestamp{1}, db::Timestamp{1}}));
  EXPECT_EQ(Counted(), 4);
  // A write that rolls back leaves no trace.
  const Status rolled_back =
      database().Transaction(db::Access::kWrite, [&](db::Connection& connection) -> Status {
        CAIRN_TRY(connection.Execute(
            R"(INSERT INTO "items" ("created_at", "updated_at", "code") VALUES (?, ?, 'g'))",
            {db::Timestamp{1}, db::Timestamp{1}}));
        return Error::Conflict("changed my mind");
      });
  EXPECT_FALSE(rolled_back.ok());
  EXPECT_EQ(Counted(), 4);
  EXPECT_EQ(Counted(), Live());
}

TEST_F(LiveRowCountsTest, BatchesCountOnceAtTheirEnd) {
  auto app = ItemsConfig();
  app.tables.push_back(MakeTable("extras", {MakeField("label", FieldType::kSingleLineText)}));
  Migrate(app);
  CAIRN_ASSERT_OK(Insert("kept"));
  // The counter rows as `connection` sees them (PostgreSQL).
  const auto counters = [&](db::Connection& connection) {
    std::int64_t sum = -1;
    if (!dialect().is_postgres()) return sum;
    const auto read = connection.Execute(
        R"(SELECT COALESCE(SUM("live"), 0) FROM "_cairn_row_counts" WHERE "table_name" = 'items')",
        {}, [&](const db::Row& row) { sum = row.GetInt64(0); });
    EXPECT_TRUE(read.ok());
    return sum;
  };
  const auto expect_counters = [&](db::Connection& connection, std::int64_t expected) {
    if (dialect().is_postgres()) {
      EXPECT_EQ(counters(connection), expected);
    }
  };
  const auto insert = [](db::Connection& connection, const std::string& table,
                         const std::string& column, const std::string& value) {
    return connection.Execute("INSERT INTO \"" + table + "\" (\"created_at\", \"updated_at\", \"" +
                                  column + "\") VALUES (?, ?, ?)",
                              {db::Timestamp{1}, db::Timestamp{1}, value});
  };
  CAIRN_ASSERT_OK(
      database().Transaction(db::Access::kWrite, [&](db::Connection& connection) -> Status {
        const std::int64_t before = counters(connection);
        CAIRN_TRY(dialect().live_row_counts().WithDeferred(connection, [&]() -> Status {
          for (int i = 0; i < 300; ++i) {
            CAIRN_TRY(insert(connection, "items", "code", "batch-" + std::to_string(i)));
          }
          CAIRN_TRY(insert(connection, "extras", "label", "one"));
          CAIRN_TRY(connection.Execute(
              R"(UPDATE "items" SET "deleted_at" = ? WHERE "code" IN ('kept', 'batch-0'))",
              {db::Timestamp{2}}));
          expect_counters(connection, before);  // not yet
          return {};
        }));
        expect_counters(connection, before + 298);
        // The deferral ended with the batch: later statements count at once.
        CAIRN_TRY(insert(connection, "items", "code", "after"));
        expect_counters(connection, before + 299);
        return {};
      }));
  EXPECT_EQ(Counted(), 300);
  EXPECT_EQ(Counted("extras"), 1);
  EXPECT_EQ(Counted(), Live());

  // A batch that fails leaves nothing, counts included; the next one starts clean.
  const Status failed =
      database().Transaction(db::Access::kWrite, [&](db::Connection& connection) -> Status {
        return dialect().live_row_counts().WithDeferred(connection, [&]() -> Status {
          CAIRN_TRY(insert(connection, "items", "code", "doomed"));
          CAIRN_TRY(insert(connection, "items", "code", "doomed"));  // a unique violation
          return {};
        });
      });
  EXPECT_FALSE(failed.ok());
  EXPECT_EQ(Counted(), 300);
  CAIRN_ASSERT_OK(
      database().Transaction(db::Access::kWrite, [&](db::Connection& connection) -> Status {
        return dialect().live_row_counts().WithDeferred(connection, [&]() -> Status {
          CAIRN_TRY(insert(connection, "items", "code", "next"));
          return {};
        });
      }));
  EXPECT_EQ(Counted(), 301);
  EXPECT_EQ(Counted(), Live());
}

TEST_F(LiveRowCountsTest, ConcurrentWritersLoseNoCount) {
  Migrate(ItemsConfig());
  constexpr int kWriters = 4;
  constexpr int kRowsEach = 50;
  std::vector<std::unique_ptr<db::Database>> nodes;
  for (int i = 0; i < kWriters; ++i) {
    auto node = test_database().Reopen();
    CAIRN_ASSERT_OK(node);
    nodes.push_back(std::move(node).value());
  }
  std::vector<std::thread> writers;
  std::vector<int> failures(kWriters, 0);
  for (int w = 0; w < kWriters; ++w) {
    writers.emplace_back([&, w] {
      for (int i = 0; i < kRowsEach; ++i) {
        const std::string code = std::to_string(w) + "-" + std::to_string(i);
        const Status status =
            nodes[w]->Transaction(db::Access::kWrite, [&](db::Connection& connection) -> Status {
              CAIRN_TRY(connection.Execute(
                  R"(INSERT INTO "items" ("created_at", "updated_at", "code") VALUES (?, ?, ?))",
                  {db::Timestamp{1}, db::Timestamp{1}, code}));
              // Every other row goes to the trash in a later statement of the same transaction.
              if (i % 2 == 1) {
                CAIRN_TRY(
                    connection.Execute(R"(UPDATE "items" SET "deleted_at" = ? WHERE "code" = ?)",
                                       {db::Timestamp{2}, code}));
              }
              return {};
            });
        if (!status.ok()) ++failures[w];
      }
    });
  }
  for (auto& writer : writers) writer.join();
  for (int w = 0; w < kWriters; ++w) EXPECT_EQ(failures[w], 0) << "writer " << w;
  EXPECT_EQ(Counted(), kWriters * kRowsEach / 2);
  EXPECT_EQ(Counted(), Live());
  for (auto& node : nodes) node->Close();
}

TEST_F(LiveRowCountsTest, PostgresCountsTablesFromBeforeCountersAndForgetsDroppedOnes) {
  if (!dialect().is_postgres()) GTEST_SKIP() << "SQLite counts the table itself";
  auto app = ItemsConfig();
  app.tables.push_back(MakeTable("extras", {MakeField("label", FieldType::kSingleLineText)}));
  Migrate(app);
  for (const char* code : {"a", "b", "c"}) CAIRN_ASSERT_OK(Insert(code));
  CAIRN_ASSERT_OK(Insert("d", /*deleted_at=*/5));

  // A database from before counters: no triggers, no counts. The next start counts the rows.
  CAIRN_ASSERT_OK(RunScript(database(),
                            R"(DROP TRIGGER "_cairn_live_insert" ON "items";
                               DELETE FROM "_cairn_row_counts" WHERE "table_name" = 'items')"));
  EXPECT_EQ(CounterRows("items"), 0);
  EXPECT_EQ(Counted(), 3);  // without counters the query counts the table
  Migrate(app);
  EXPECT_EQ(CounterRows("items"), 1);  // the base row only
  EXPECT_EQ(QueryInt(database(),
                     R"(SELECT "live" FROM "_cairn_row_counts" WHERE "table_name" = 'items')"),
            3);
  CAIRN_ASSERT_OK(Insert("e"));
  EXPECT_EQ(Counted(), 4);

  // The count is read from the counters, not from the table.
  CAIRN_ASSERT_OK(RunScript(
      database(),
      R"(UPDATE "_cairn_row_counts" SET "live" = "live" + 100 WHERE "table_name" = 'items' AND "shard" = 0)"));
  EXPECT_EQ(Counted(), 104);
  CAIRN_ASSERT_OK(RunScript(
      database(),
      R"(UPDATE "_cairn_row_counts" SET "live" = "live" - 100 WHERE "table_name" = 'items' AND "shard" = 0)"));

  // A start that finds everything in place changes nothing.
  const std::int64_t before = QueryInt(
      database(), R"(SELECT SUM("live") FROM "_cairn_row_counts" WHERE "table_name" = 'items')");
  Migrate(app);
  EXPECT_EQ(QueryInt(database(),
                     R"(SELECT SUM("live") FROM "_cairn_row_counts" WHERE "table_name" = 'items')"),
            before);

  // TRUNCATE empties the table and its count.
  CAIRN_ASSERT_OK(RunScript(database(), R"(TRUNCATE "items")"));
  EXPECT_EQ(Counted(), 0);
  CAIRN_ASSERT_OK(Insert("after truncate"));
  EXPECT_EQ(Counted(), 1);

  // A dropped table leaves no counts behind for a later table of the same name.
  CAIRN_ASSERT_OK(Write(R"(INSERT INTO "extras" ("created_at", "updated_at") VALUES (?, ?))",
                        {db::Timestamp{1}, db::Timestamp{1}}));
  EXPECT_EQ(Counted("extras"), 1);
  app.tables.pop_back();
  Migrate(app, /*allow_destructive=*/true);
  EXPECT_EQ(CounterRows("extras"), 0);
  app.tables.push_back(MakeTable("extras", {MakeField("label", FieldType::kSingleLineText)}));
  Migrate(app);
  EXPECT_EQ(Counted("extras"), 0);
  EXPECT_EQ(Counted(), Live());
}

}  // namespace
}  // namespace cairn::test
