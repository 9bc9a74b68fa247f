// Startup migration (D4) on both backends.
#include <algorithm>
#include <thread>

#include <gtest/gtest.h>

#include "config_helpers.hpp"
#include "db/db_error.hpp"
#include "db/introspection.hpp"
#include "db_test_util.hpp"
#include "schema/migrator.hpp"
#include "support/test_database.hpp"

namespace cairn::test {
namespace {

using config::FieldType;

config::AppConfig CrmConfig() {
  return MakeConfig({
      MakeTable("Companies", {MakeField("name", FieldType::kSingleLineText)}),
      MakeTable("Tags", {Unique(MakeField("label", FieldType::kSingleLineText))}),
      MakeTable(
          "contacts",
          {MakeField("name", FieldType::kSingleLineText),
           Unique(MakeField("email", FieldType::kEmail)),
           Indexed(MakeField("age", FieldType::kInteger)),
           DecimalField("balance", 2, FieldType::kCurrency),
           MakeField("active", FieldType::kCheckbox), MakeField("born", FieldType::kDate),
           MakeField("seen_at", FieldType::kDatetime), MakeField("colors", FieldType::kMultiSelect),
           MakeField("author", FieldType::kCreatedBy), MakeField("changed", FieldType::kUpdatedAt),
           Relationship("company", "Companies"),
           Relationship("tags", "Tags", config::RelationType::kManyToMany),
           Relationship("friends", "contacts", config::RelationType::kOneToMany)},
          {config::IndexSpec{{"name", "born"}, false}}),
  });
}

config::Table* FindTable(config::AppConfig& app, std::string_view name) {
  for (auto& table : app.tables) {
    if (table.name == name) return &table;
  }
  return nullptr;
}

void RemoveField(config::AppConfig& app, std::string_view table, std::string_view field) {
  auto& fields = FindTable(app, table)->fields;
  fields.erase(std::remove_if(fields.begin(), fields.end(),
                              [&](const config::Field& f) { return f.name == field; }),
               fields.end());
}

class MigratorTest : public DatabaseTest {
 protected:
  Result<schema::MigrationReport> Migrate(const config::AppConfig& app, bool allow = false) {
    return schema::MigrateToConfig(database(), app, {.allow_destructive = allow});
  }

  db::LiveSchema Live() {
    db::LiveSchema live;
    const Status status =
        database().Transaction(db::Access::kRead, [&](db::Connection& connection) -> Status {
          CAIRN_ASSIGN_OR_RETURN(live, dialect().introspector().Read(connection));
          return {};
        });
    EXPECT_TRUE(status.ok()) << Describe(status.error());
    return live;
  }

  std::vector<std::string> Columns(std::string_view table) {
    std::vector<std::string> names;
    const auto live = Live();
    if (const auto* t = live.FindTable(table)) {
      for (const auto& column : t->columns) names.push_back(column.name);
    }
    return names;
  }

  // Managed indexes of `table` as "name: col, col (unique)" lines.
  std::vector<db::LiveIndex> ManagedIndexes(std::string_view table) {
    std::vector<db::LiveIndex> out;
    const auto live = Live();
    if (const auto* t = live.FindTable(table)) {
      for (const auto& index : t->indexes) {
        if (index.name.starts_with("cx_")) out.push_back(index);
      }
    }
    return out;
  }

  bool HasIndexOn(std::string_view table, std::vector<std::string> columns, bool unique) {
    for (const auto& index : ManagedIndexes(table)) {
      if (index.columns == columns && index.unique == unique) return true;
    }
    return false;
  }

  std::int64_t LedgerRows() {
    return QueryInt(database(), "SELECT COUNT(*) FROM \"_cairn_migrations\"");
  }

  Status Write(std::string sql, std::initializer_list<db::Value> params = {}) {
    std::vector<db::Value> values(params);
    return database().Transaction(db::Access::kWrite, [&](db::Connection& connection) {
      auto result = connection.Execute(sql, values);
      return result.ok() ? Status() : Status(std::move(result).error());
    });
  }
};

bool Contains(const std::vector<std::string>& names, std::string_view name) {
  return std::find(names.begin(), names.end(), name) != names.end();
}

TEST_F(MigratorTest, CreatesTheModelAndIsIdempotent) {
  const auto app = CrmConfig();
  auto first = Migrate(app);
  CAIRN_ASSERT_OK(first);
  EXPECT_TRUE(first->changed());
  EXPECT_TRUE(first->destructive.empty());
  EXPECT_EQ(LedgerRows(), 1);

  const auto contacts = Columns("contacts");
  for (const char* column :
       {"id", "created_at", "updated_at", "deleted_at", "created_by", "updated_by", "deleted_by",
        "name", "email", "age", "balance", "active", "born", "seen_at", "colors", "company"}) {
    EXPECT_TRUE(Contains(contacts, column)) << column;
  }
  // System-typed fields map to system columns; *-to-many relationships have no column.
  for (const char* column : {"author", "changed", "tags", "friends"}) {
    EXPECT_FALSE(Contains(contacts, column)) << column;
  }
  EXPECT_FALSE(Columns("companies").empty());  // "Companies" is stored as companies

  EXPECT_TRUE(HasIndexOn("contacts", {"email"}, true));
  EXPECT_TRUE(HasIndexOn("contacts", {"age", "deleted_at"}, false));
  EXPECT_TRUE(HasIndexOn("contacts", {"deleted_at"}, false));
  EXPECT_TRUE(HasIndexOn("contacts", {"company", "deleted_at"}, false));
  EXPECT_TRUE(HasIndexOn("contacts", {"name", "born", "deleted_at"}, false));
  EXPECT_TRUE(HasIndexOn("tags", {"label"}, true));
  for (const auto& index : ManagedIndexes("contacts")) {
    EXPECT_LE(index.name.size(), 63u);
  }

  // The second run finds nothing to do and records nothing.
  auto second = Migrate(app);
  CAIRN_ASSERT_OK(second);
  EXPECT_FALSE(second->changed());
  EXPECT_TRUE(second->statements.empty());
  EXPECT_EQ(LedgerRows(), 1);
}

TEST_F(MigratorTest, LedgerRecordsStatements) {
  auto report = Migrate(CrmConfig());
  CAIRN_ASSERT_OK(report);
  std::string checksum, statements, description;
  std::int64_t applied_at = 0;
  CAIRN_ASSERT_OK(database().Transaction(db::Access::kRead, [&](db::Connection& connection) {
    auto result = connection.Execute(
        "SELECT \"checksum\", \"statements\", \"description\", \"applied_at\" FROM "
        "\"_cairn_migrations\"",
        {}, [&](const db::Row& row) {
          checksum = row.GetText(0);
          statements = row.GetText(1);
          description = row.GetText(2);
          applied_at = row.GetTimestampMillis(3);
        });
    return result.ok() ? Status() : Status(std::move(result).error());
  }));
  EXPECT_EQ(checksum, report->checksum);
  EXPECT_NE(statements.find("CREATE TABLE"), std::string::npos);
  EXPECT_NE(description.find("create table \"contacts\""), std::string::npos) << description;
  EXPECT_GT(applied_at, 1600000000000);
}

TEST_F(MigratorTest, AddingAFieldAddsAColumn) {
  auto app = CrmConfig();
  CAIRN_ASSERT_OK(Migrate(app));
  CAIRN_ASSERT_OK(Write("INSERT INTO \"contacts\" (\"name\", \"email\") VALUES (?, ?)",
                        {std::string("Ada"), std::string("ada@example.com")}));

  FindTable(app, "contacts")->fields.push_back(MakeField("notes", FieldType::kLongText));
  FindTable(app, "contacts")->fields.push_back(Indexed(MakeField("score", FieldType::kInteger)));
  auto report = Migrate(app);
  CAIRN_ASSERT_OK(report);
  ASSERT_EQ(report->statements.size(), 3u);  // two columns, one index
  EXPECT_NE(report->statements[0].find("ADD COLUMN \"notes\" TEXT"), std::string::npos);
  EXPECT_TRUE(Contains(Columns("contacts"), "notes"));
  EXPECT_TRUE(HasIndexOn("contacts", {"score", "deleted_at"}, false));
  EXPECT_EQ(LedgerRows(), 2);
  EXPECT_EQ(QueryInt(database(), "SELECT COUNT(*) FROM \"contacts\" WHERE \"name\" = 'Ada'"), 1);

  // A new table with a reference to an existing one, and one pointing at a table created later.
  app.tables.push_back(
      MakeTable("Deals", {Relationship("contact", "contacts", config::RelationType::kManyToOne,
                                       config::OnDelete::kCascade),
                          Relationship("stage", "Stages")}));
  app.tables.push_back(MakeTable("Stages", {MakeField("name", FieldType::kSingleLineText)}));
  CAIRN_ASSERT_OK(Migrate(app));
  EXPECT_TRUE(Contains(Columns("deals"), "stage"));
  auto again = Migrate(app);
  CAIRN_ASSERT_OK(again);
  EXPECT_FALSE(again->changed());
}

TEST_F(MigratorTest, DroppingAColumnIsRefusedUnlessAllowed) {
  auto app = CrmConfig();
  FindTable(app, "contacts")->fields.push_back(MakeField("notes", FieldType::kLongText));
  CAIRN_ASSERT_OK(Migrate(app));
  CAIRN_ASSERT_OK(Write("INSERT INTO \"contacts\" (\"name\", \"notes\") VALUES (?, ?)",
                        {std::string("Ada"), std::string("keep me?")}));
  const std::int64_t ledger = LedgerRows();

  RemoveField(app, "contacts", "notes");
  auto refused = Migrate(app);
  ASSERT_FALSE(refused.ok());
  EXPECT_EQ(refused.error().message,
            "refusing to drop column \"notes\" of table \"contacts\": it is no longer in the "
            "config and dropping it would delete its data; set CAIRN_ALLOW_DESTRUCTIVE=true to "
            "allow");
  EXPECT_EQ(refused.error().code, ErrorCode::kValidation);
  ASSERT_EQ(refused.error().errors.size(), 1u);
  EXPECT_EQ(refused.error().errors[0].field, "contacts.notes");
  EXPECT_TRUE(Contains(Columns("contacts"), "notes"));
  EXPECT_EQ(LedgerRows(), ledger);

  auto allowed = Migrate(app, true);
  CAIRN_ASSERT_OK(allowed);
  ASSERT_EQ(allowed->destructive.size(), 1u);
  EXPECT_FALSE(Contains(Columns("contacts"), "notes"));
  EXPECT_EQ(LedgerRows(), ledger + 1);
  // The rest of the row, and the table's indexes, are intact.
  EXPECT_EQ(QueryInt(database(), "SELECT COUNT(*) FROM \"contacts\" WHERE \"name\" = 'Ada'"), 1);
  EXPECT_TRUE(HasIndexOn("contacts", {"email"}, true));
  EXPECT_TRUE(HasIndexOn("contacts", {"company", "deleted_at"}, false));
  auto again = Migrate(app);
  CAIRN_ASSERT_OK(again);
  EXPECT_FALSE(again->changed());
}

TEST_F(MigratorTest, DroppingAReferenceColumnKeepsDataAndIds) {
  auto app = CrmConfig();
  CAIRN_ASSERT_OK(Migrate(app));
  CAIRN_ASSERT_OK(Write("INSERT INTO \"companies\" (\"name\") VALUES ('Acme')"));
  for (const char* name : {"a", "b", "c"}) {
    CAIRN_ASSERT_OK(Write("INSERT INTO \"contacts\" (\"name\", \"company\") VALUES (?, 1)",
                          {std::string(name)}));
  }
  CAIRN_ASSERT_OK(Write("INSERT INTO \"tags\" (\"label\") VALUES ('vip')"));
  CAIRN_ASSERT_OK(
      Write("INSERT INTO \"contacts__tags\" (\"source_id\", \"target_id\") VALUES (1, 1)"));
  CAIRN_ASSERT_OK(Write("DELETE FROM \"contacts\" WHERE \"id\" = 3"));

  RemoveField(app, "contacts", "company");
  auto refused = Migrate(app);
  ASSERT_FALSE(refused.ok());
  EXPECT_NE(refused.error().message.find("refusing to drop column \"company\""), std::string::npos);

  CAIRN_ASSERT_OK(Migrate(app, true));
  EXPECT_FALSE(Contains(Columns("contacts"), "company"));
  EXPECT_EQ(QueryInt(database(), "SELECT COUNT(*) FROM \"contacts\""), 2);
  EXPECT_EQ(QueryInt(database(), "SELECT COUNT(*) FROM \"contacts__tags\""), 1);
  EXPECT_TRUE(HasIndexOn("contacts", {"email"}, true));
  EXPECT_FALSE(HasIndexOn("contacts", {"company", "deleted_at"}, false));
  // Ids are never reused, even the deleted one's.
  CAIRN_ASSERT_OK(Write("INSERT INTO \"contacts\" (\"name\") VALUES ('d')"));
  EXPECT_EQ(QueryInt(database(), "SELECT MAX(\"id\") FROM \"contacts\""), 4);
  // References into the table still hold (the junction cascades from the rebuilt table).
  CAIRN_ASSERT_OK(Write("DELETE FROM \"contacts\" WHERE \"id\" = 1"));
  EXPECT_EQ(QueryInt(database(), "SELECT COUNT(*) FROM \"contacts__tags\""), 0);
}

TEST_F(MigratorTest, TypeChangesAreRefusedUnlessAllowed) {
  auto app = CrmConfig();
  CAIRN_ASSERT_OK(Migrate(app));
  CAIRN_ASSERT_OK(Write("INSERT INTO \"contacts\" (\"name\", \"age\") VALUES ('Ada', 36)"));

  FindTable(app, "contacts")->fields[2].type = FieldType::kSingleLineText;  // age
  auto refused = Migrate(app);
  ASSERT_FALSE(refused.ok());
  EXPECT_EQ(refused.error().message,
            "refusing to change the type of column \"age\" of table \"contacts\" from int64 to "
            "text: the column would be dropped and re-created, deleting its data; set "
            "CAIRN_ALLOW_DESTRUCTIVE=true to allow");

  // A decimal's scale is part of its type (SQLite stores scaled units).
  auto rescaled = CrmConfig();
  FindTable(rescaled, "contacts")->fields[3].scale = 3;  // balance
  auto refused_scale = Migrate(rescaled);
  ASSERT_FALSE(refused_scale.ok());
  EXPECT_NE(refused_scale.error().message.find("from decimal(2) to decimal(3)"), std::string::npos)
      << refused_scale.error().message;

  auto allowed = Migrate(app, true);
  CAIRN_ASSERT_OK(allowed);
  EXPECT_TRUE(Contains(Columns("contacts"), "age"));
  EXPECT_EQ(QueryInt(database(), "SELECT COUNT(*) FROM \"contacts\" WHERE \"age\" IS NULL"), 1);
  EXPECT_TRUE(
      HasIndexOn("contacts", {"age", "deleted_at"}, false));  // re-created over the new column
  CAIRN_ASSERT_OK(Write("UPDATE \"contacts\" SET \"age\" = 'thirty-six'"));
  auto again = Migrate(app);
  CAIRN_ASSERT_OK(again);
  EXPECT_FALSE(again->changed());
}

TEST_F(MigratorTest, RemovingATableIsRefusedUnlessAllowed) {
  auto app = CrmConfig();
  app.tables.push_back(MakeTable("Scratch Pad", {MakeField("text", FieldType::kLongText)}));
  CAIRN_ASSERT_OK(Migrate(app));
  EXPECT_FALSE(Columns("scratch_pad").empty());
  app.tables.pop_back();
  auto refused = Migrate(app);
  ASSERT_FALSE(refused.ok());
  EXPECT_EQ(refused.error().message,
            "refusing to drop table \"Scratch Pad\": it is no longer in the config and dropping "
            "it would delete its data; set CAIRN_ALLOW_DESTRUCTIVE=true to allow");
  EXPECT_FALSE(Columns("scratch_pad").empty());

  CAIRN_ASSERT_OK(Migrate(app, true));
  EXPECT_TRUE(Columns("scratch_pad").empty());
  auto again = Migrate(app);
  CAIRN_ASSERT_OK(again);
  EXPECT_FALSE(again->changed());
}

TEST_F(MigratorTest, RemovingAManyToManyFieldDropsItsJunctionOnlyWhenAllowed) {
  auto app = CrmConfig();
  CAIRN_ASSERT_OK(Migrate(app));
  RemoveField(app, "contacts", "tags");
  auto refused = Migrate(app);
  ASSERT_FALSE(refused.ok());
  EXPECT_NE(refused.error().message.find("refusing to drop the junction table \"contacts__tags\""),
            std::string::npos)
      << refused.error().message;
  CAIRN_ASSERT_OK(Migrate(app, true));
  EXPECT_TRUE(Columns("contacts__tags").empty());
}

TEST_F(MigratorTest, ManyToManyUsesAJunctionTable) {
  CAIRN_ASSERT_OK(Migrate(CrmConfig()));
  const auto columns = Columns("contacts__tags");
  EXPECT_EQ(columns, (std::vector<std::string>{"source_id", "target_id"}));
  EXPECT_TRUE(HasIndexOn("contacts__tags", {"target_id"}, false));

  CAIRN_ASSERT_OK(Write("INSERT INTO \"contacts\" (\"name\") VALUES ('Ada')"));
  CAIRN_ASSERT_OK(Write("INSERT INTO \"tags\" (\"label\") VALUES ('vip')"));
  CAIRN_ASSERT_OK(Write("INSERT INTO \"tags\" (\"label\") VALUES ('new')"));
  CAIRN_ASSERT_OK(Write("INSERT INTO \"contacts__tags\" VALUES (1, 1)"));
  CAIRN_ASSERT_OK(Write("INSERT INTO \"contacts__tags\" VALUES (1, 2)"));
  // The pair is the primary key.
  const Status duplicate = Write("INSERT INTO \"contacts__tags\" VALUES (1, 2)");
  ASSERT_FALSE(duplicate.ok());
  EXPECT_EQ(db::ErrorKindOf(duplicate.error()), db::DbErrorKind::kUnique);
  // Both ends must exist.
  const Status dangling = Write("INSERT INTO \"contacts__tags\" VALUES (1, 99)");
  ASSERT_FALSE(dangling.ok());
  EXPECT_EQ(db::ErrorKindOf(dangling.error()), db::DbErrorKind::kForeignKey);
  // Deleting either end removes the link.
  CAIRN_ASSERT_OK(Write("DELETE FROM \"tags\" WHERE \"id\" = 2"));
  EXPECT_EQ(QueryInt(database(), "SELECT COUNT(*) FROM \"contacts__tags\""), 1);
  CAIRN_ASSERT_OK(Write("DELETE FROM \"contacts\" WHERE \"id\" = 1"));
  EXPECT_EQ(QueryInt(database(), "SELECT COUNT(*) FROM \"contacts__tags\""), 0);
}

TEST_F(MigratorTest, ManyToOneHonoursOnDelete) {
  auto app = CrmConfig();
  app.tables.push_back(
      MakeTable("Deals", {Relationship("contact", "contacts", config::RelationType::kManyToOne,
                                       config::OnDelete::kCascade),
                          Relationship("company", "Companies", config::RelationType::kManyToOne,
                                       config::OnDelete::kRestrict)}));
  CAIRN_ASSERT_OK(Migrate(app));
  CAIRN_ASSERT_OK(Write("INSERT INTO \"companies\" (\"name\") VALUES ('Acme')"));
  CAIRN_ASSERT_OK(Write("INSERT INTO \"contacts\" (\"name\", \"company\") VALUES ('Ada', 1)"));
  CAIRN_ASSERT_OK(Write("INSERT INTO \"deals\" (\"contact\", \"company\") VALUES (1, 1)"));

  const Status restricted = Write("DELETE FROM \"companies\" WHERE \"id\" = 1");
  ASSERT_FALSE(restricted.ok());
  EXPECT_EQ(db::ErrorKindOf(restricted.error()), db::DbErrorKind::kForeignKey);

  CAIRN_ASSERT_OK(Write("DELETE FROM \"contacts\" WHERE \"id\" = 1"));  // cascades to deals
  EXPECT_EQ(QueryInt(database(), "SELECT COUNT(*) FROM \"deals\""), 0);
  CAIRN_ASSERT_OK(Write("INSERT INTO \"contacts\" (\"name\", \"company\") VALUES ('Bo', 1)"));
  CAIRN_ASSERT_OK(Write("DELETE FROM \"companies\" WHERE \"id\" = 1"));  // sets contacts null
  EXPECT_EQ(QueryInt(database(), "SELECT COUNT(*) FROM \"contacts\" WHERE \"company\" IS NULL"), 1);
}

TEST_F(MigratorTest, IndexesFollowTheConfig) {
  auto app = CrmConfig();
  CAIRN_ASSERT_OK(Migrate(app));
  auto* contacts = FindTable(app, "contacts");
  contacts->fields[2].indexed = false;  // age
  contacts->indexes = {config::IndexSpec{{"name", "born"}, true},
                       config::IndexSpec{{"author", "seen_at"}, false}};
  auto report = Migrate(app);
  CAIRN_ASSERT_OK(report);
  EXPECT_FALSE(HasIndexOn("contacts", {"age", "deleted_at"}, false));
  EXPECT_FALSE(HasIndexOn("contacts", {"name", "born", "deleted_at"}, false));
  EXPECT_TRUE(HasIndexOn("contacts", {"name", "born"}, true));
  EXPECT_TRUE(HasIndexOn("contacts", {"created_by", "seen_at", "deleted_at"}, false));
  // Indexes cairn does not manage are left alone.
  CAIRN_ASSERT_OK(RunScript(database(), "CREATE INDEX \"my_own\" ON \"contacts\" (\"active\")"));
  auto again = Migrate(app);
  CAIRN_ASSERT_OK(again);
  EXPECT_FALSE(again->changed());
}

TEST_F(MigratorTest, UniqueIndexOverDuplicatesGivesAClearError) {
  auto app = CrmConfig();
  CAIRN_ASSERT_OK(Migrate(app));
  for (int i = 0; i < 2; ++i) {
    CAIRN_ASSERT_OK(Write("INSERT INTO \"contacts\" (\"name\") VALUES ('Same Name')"));
  }
  FindTable(app, "contacts")->fields[0].unique = true;  // name
  FindTable(app, "contacts")->fields.push_back(MakeField("notes", FieldType::kLongText));
  auto result = Migrate(app);
  ASSERT_FALSE(result.ok());
  EXPECT_EQ(result.error().message,
            "cannot add a unique index on field \"name\" of table \"contacts\": the table already "
            "holds duplicate values there; remove the duplicates (or drop `unique`) and start "
            "again");
  EXPECT_EQ(result.error().code, ErrorCode::kConflict);
  // All or nothing: the column added in the same migration is not there either.
  EXPECT_FALSE(Contains(Columns("contacts"), "notes"));
  EXPECT_EQ(LedgerRows(), 1);
}

TEST_F(MigratorTest, DryRunChangesNothing) {
  auto report = schema::MigrateToConfig(database(), CrmConfig(), {.dry_run = true});
  CAIRN_ASSERT_OK(report);
  EXPECT_TRUE(report->changed());
  EXPECT_TRUE(Live().tables.empty());
}

TEST_F(MigratorTest, NodesStartingTogetherMigrateOnce) {
  const auto app = CrmConfig();
  constexpr int kNodes = 4;
  std::vector<std::unique_ptr<db::Database>> nodes;
  for (int i = 0; i < kNodes; ++i) {
    auto node = test_database().Reopen();
    CAIRN_ASSERT_OK(node);
    nodes.push_back(std::move(node).value());
  }
  std::vector<Result<schema::MigrationReport>> results(kNodes, Error::Internal("not run"));
  std::vector<std::thread> threads;
  for (int i = 0; i < kNodes; ++i) {
    threads.emplace_back([&, i] { results[i] = schema::MigrateToConfig(*nodes[i], app); });
  }
  for (auto& thread : threads) thread.join();
  int changed = 0;
  for (auto& result : results) {
    CAIRN_ASSERT_OK(result);
    changed += result->changed() ? 1 : 0;
  }
  EXPECT_EQ(changed, 1);
  EXPECT_EQ(LedgerRows(), 1);
  for (auto& node : nodes) node->Close();
}

TEST_F(MigratorTest, ModelErrorsAreReported) {
  auto app = MakeConfig({MakeTable("a b", {MakeField("x", FieldType::kInteger)}),
                         MakeTable("a-b", {MakeField("y", FieldType::kInteger)})});
  auto clash = Migrate(app);
  ASSERT_FALSE(clash.ok());
  EXPECT_NE(clash.error().message.find("would both be stored as \"a_b\""), std::string::npos);

  auto bad_scale = MakeConfig({MakeTable("t", {DecimalField("d", 30)})});
  EXPECT_FALSE(Migrate(bad_scale).ok());
}

}  // namespace
}  // namespace cairn::test
