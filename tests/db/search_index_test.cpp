// The `q` index (records/search_index.hpp) on both backends: built from rows that predate it,
// kept in step by the database on insert, update and delete, swapped when the searchable fields
// change, repaired after SQLite rebuilds a table, and used by the compiled search condition.
#include <algorithm>

#include <gtest/gtest.h>

#include "access/table_access.hpp"
#include "config_helpers.hpp"
#include "db_test_util.hpp"
#include "records/query/search.hpp"
#include "records/search_index.hpp"
#include "schema/migrator.hpp"
#include "support/test_database.hpp"

namespace cairn::test {
namespace {

using config::FieldType;

config::AppConfig NotesConfig() {
  return MakeConfig({MakeTable("notes", {MakeField("title", FieldType::kSingleLineText),
                                         MakeField("body", FieldType::kLongText),
                                         MakeField("stars", FieldType::kInteger)})});
}

class SearchIndexTest : public DatabaseTest {
 protected:
  void Prepare(const config::AppConfig& app, bool allow_destructive = false) {
    schema::MigrateOptions options;
    options.allow_destructive = allow_destructive;
    CAIRN_ASSERT_OK(schema::MigrateToConfig(database(), app, options));
    CAIRN_ASSERT_OK(records::EnsureSearchIndexes(database(), app));
  }

  Status Write(const std::string& sql, std::vector<db::Value> params = {}) {
    return database().Transaction(db::Access::kWrite, [&](db::Connection& connection) -> Status {
      CAIRN_TRY(connection.Execute(sql, params));
      return {};
    });
  }

  // Ids of the rows `q` finds, ascending, through the compiled condition.
  std::vector<std::int64_t> Search(const config::AppConfig& app, const std::string& q) {
    const config::Table& table = app.tables.front();
    const access::TableAccess admin(table, "admin");
    auto condition = records::query::CompileSearch(q, table, admin, dialect());
    EXPECT_TRUE(condition.ok());
    std::vector<std::int64_t> ids;
    if (!condition.ok()) return ids;
    const Status status =
        database().Transaction(db::Access::kRead, [&](db::Connection& connection) -> Status {
          CAIRN_TRY(connection.Execute(
              "SELECT \"id\" FROM \"notes\" WHERE " + condition->sql + " ORDER BY \"id\"",
              condition->params, [&](const db::Row& row) { ids.push_back(row.GetInt64(0)); }));
          return {};
        });
    EXPECT_TRUE(status.ok()) << Describe(status.error());
    return ids;
  }

  std::int64_t SearchTables() {
    return QueryInt(database(),
                    "SELECT COUNT(*) FROM sqlite_master WHERE \"type\" = 'table' AND "
                    "\"sql\" LIKE 'CREATE VIRTUAL TABLE%'");
  }

  bool UsesIndex(const config::AppConfig& app, const std::string& q) {
    const config::Table& table = app.tables.front();
    const access::TableAccess admin(table, "admin");
    auto condition = records::query::CompileSearch(q, table, admin, dialect());
    return condition.ok() && condition->sql.find("MATCH") != std::string::npos;
  }
};

using Ids = std::vector<std::int64_t>;

TEST_F(SearchIndexTest, IndexesOldRowsAndFollowsEveryWrite) {
  auto app = NotesConfig();
  CAIRN_ASSERT_OK(schema::MigrateToConfig(database(), app, {}));
  CAIRN_ASSERT_OK(Write(R"(INSERT INTO "notes" ("created_at", "updated_at", "title", "body") )"
                        R"(VALUES (?, ?, 'Grocery list', 'apples and PEARS'))",
                        {db::Timestamp{1}, db::Timestamp{1}}));
  CAIRN_ASSERT_OK(records::EnsureSearchIndexes(database(), app));
  EXPECT_EQ(Search(app, "pears"), Ids{1});  // a row from before the index
  EXPECT_EQ(Search(app, "ocer"), Ids{1});   // substrings, any case
  EXPECT_EQ(Search(app, "pe"), Ids{1});     // too short for trigrams: scanned instead
  EXPECT_EQ(Search(app, "plums"), Ids{});
  EXPECT_EQ(UsesIndex(app, "pears"), !dialect().is_postgres());

  CAIRN_ASSERT_OK(Write(R"(INSERT INTO "notes" ("created_at", "updated_at", "title") )"
                        R"(VALUES (?, ?, 'Plums "ripe"'))",
                        {db::Timestamp{1}, db::Timestamp{1}}));
  EXPECT_EQ(Search(app, "plums"), Ids{2});
  EXPECT_EQ(Search(app, "s \"ripe\""), Ids{2});  // quotes are text, not FTS syntax
  CAIRN_ASSERT_OK(Write(R"(UPDATE "notes" SET "body" = 'bananas' WHERE "id" = 1)"));
  EXPECT_EQ(Search(app, "pears"), Ids{});
  EXPECT_EQ(Search(app, "banana"), Ids{1});
  CAIRN_ASSERT_OK(Write(R"(UPDATE "notes" SET "stars" = 5 WHERE "id" = 1)"));  // not indexed
  EXPECT_EQ(Search(app, "banana"), Ids{1});
  CAIRN_ASSERT_OK(Write(R"(DELETE FROM "notes" WHERE "id" = 1)"));
  EXPECT_EQ(Search(app, "banana"), Ids{});
  CAIRN_ASSERT_OK(records::EnsureSearchIndexes(database(), app));  // idempotent
  EXPECT_EQ(Search(app, "plums"), Ids{2});
}

TEST_F(SearchIndexTest, FollowsConfigChangesAndTableRebuilds) {
  auto app = NotesConfig();
  Prepare(app);
  CAIRN_ASSERT_OK(Write(R"(INSERT INTO "notes" ("created_at", "updated_at", "title", "stars") )"
                        R"(VALUES (?, ?, 'alpha', 1))",
                        {db::Timestamp{1}, db::Timestamp{1}}));
  // A new searchable field: a new index, built from the table, and the old one gone.
  app.tables.front().fields.push_back(MakeField("tag", FieldType::kSingleLineText));
  Prepare(app);
  CAIRN_ASSERT_OK(Write(R"(UPDATE "notes" SET "tag" = 'urgent' WHERE "id" = 1)"));
  EXPECT_EQ(Search(app, "urgent"), Ids{1});
  EXPECT_EQ(Search(app, "alpha"), Ids{1});
  if (!dialect().is_postgres()) {
    EXPECT_EQ(SearchTables(), 1);
  }

  // Dropping a column makes SQLite rebuild the table, which takes the triggers with it.
  auto& fields = app.tables.front().fields;
  fields.erase(std::remove_if(fields.begin(), fields.end(),
                              [](const config::Field& f) { return f.name == "stars"; }),
               fields.end());
  Prepare(app, /*allow_destructive=*/true);
  CAIRN_ASSERT_OK(Write(R"(UPDATE "notes" SET "title" = 'omega' WHERE "id" = 1)"));
  EXPECT_EQ(Search(app, "omega"), Ids{1});
  EXPECT_EQ(Search(app, "alpha"), Ids{});
  // Restarting on the same schema changes nothing.
  Prepare(app);
  EXPECT_EQ(Search(app, "omega"), Ids{1});
}

TEST_F(SearchIndexTest, PostgresIndexesEachSearchableColumn) {
  if (!dialect().is_postgres()) GTEST_SKIP() << "pg_trgm indexes are PostgreSQL's";
  Prepare(NotesConfig());
  EXPECT_EQ(QueryInt(database(),
                     "SELECT COUNT(*) FROM pg_indexes WHERE schemaname = current_schema() AND "
                     "tablename = 'notes' AND "
                     "indexdef LIKE '%gin_trgm_ops%'"),
            2);  // title and body, not stars
}

}  // namespace
}  // namespace cairn::test
