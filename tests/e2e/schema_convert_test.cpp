// Publishing changes over stored rows (D51), on the backend of this run, read back through the
// API and from the database: type changes that convert every value, one that cannot (400 naming
// the field and the record, nothing changed), a table rename that takes its many-to-many links,
// comments and history along, a SQLite rebuild that keeps a removed column until prune, an
// edited config file converting at startup, and `cairn admin purge-due` reading the active
// version instead of the file.
#include <gtest/gtest.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <functional>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include <boost/json.hpp>

#include "common/time.hpp"
#include "db/introspection.hpp"
#include "e2e/auth_test_support.hpp"
#include "e2e/schema_test_support.hpp"
#include "support/test_database.hpp"

namespace cairn::test {
namespace {

namespace json = boost::json;

constexpr const char* kAdminEmail = "root@example.com";
constexpr const char* kAdminPassword = "root password 1";

constexpr const char* kAuthYaml = R"(
name: convert-app
version: 1.0.0
auth:
  strategies:
    - type: emailAndPassword
)";

// notes: one field per conversion under test.
std::string NotesYaml() {
  return std::string(kAuthYaml) + R"(tables:
  - id: 1
    name: notes
    fields:
      - {id: 1, name: title, type: single-line-text}
      - {id: 2, name: code, type: single-line-text}
      - {id: 3, name: amount, type: integer}
      - {id: 4, name: flag, type: checkbox}
      - {id: 5, name: day, type: date}
      - {id: 6, name: body, type: single-line-text}
      - {id: 7, name: contact, type: single-line-text}
      - {id: 8, name: extra, type: single-line-text}
      - {id: 9, name: ref, type: single-line-text, unique: true}
)";
}

// notes with a many-to-many field to tags.
std::string TaggedYaml() {
  return std::string(kAuthYaml) + R"(tables:
  - id: 1
    name: notes
    fields:
      - {id: 1, name: title, type: single-line-text}
      - {id: 2, name: tags, type: relationship, relatedTable: tags, relationType: many-to-many}
  - id: 2
    name: tags
    fields:
      - {id: 1, name: label, type: single-line-text}
)";
}

TestAppOptions Options(const std::string& yaml) {
  TestAppOptions options = AuthAppOptionsWithConfig(yaml, kAdminEmail, kAdminPassword);
  auto tune = options.tune_settings;
  options.tune_settings = [tune](app::Settings& settings) {
    tune(settings);
    settings.schema_edit_api_enabled = true;
  };
  return options;
}

class ConvertApp : public SchemaAdminApp {
 public:
  explicit ConvertApp(const std::string& yaml) : ConvertApp(Options(yaml)) {}
  explicit ConvertApp(TestAppOptions options)
      : SchemaAdminApp(std::move(options), kAdminEmail, kAdminPassword) {}

  void PatchField(const std::string& table, const std::string& field, const std::string& patch) {
    Ok("PATCH", kSchemaBase + "/draft/tables/" + table + "/fields/" + field, patch);
  }

  json::value Publish() { return Ok("POST", kSchemaBase + "/draft/publish", "{}"); }

  std::string Create(const std::string& table, const std::string& fields_json) {
    return CreateRecord(table, fields_json);
  }

  json::value Fields(const std::string& table, const std::string& id) {
    return Ok("GET", "/api/tables/" + table + "/records/" + id).at("fields");
  }

  // The live column of `table` (its catalog type), or none.
  std::optional<db::LiveColumn> Column(const std::string& table, const std::string& column) {
    std::optional<db::LiveColumn> found;
    Status status =
        Database().Transaction(db::Access::kRead, [&](db::Connection& connection) -> Status {
          CAIRN_ASSIGN_OR_RETURN(auto live, connection.dialect().introspector().Read(connection));
          const db::LiveTable* live_table = live.FindTable(table);
          if (live_table == nullptr) return Status{};
          if (const db::LiveColumn* live_column = live_table->FindColumn(column))
            found = *live_column;
          return Status{};
        });
    EXPECT_TRUE(status.ok());
    return found;
  }
  bool HasTable(const std::string& table) {
    bool found = false;
    Status status =
        Database().Transaction(db::Access::kRead, [&](db::Connection& connection) -> Status {
          CAIRN_ASSIGN_OR_RETURN(auto live, connection.dialect().introspector().Read(connection));
          found = live.FindTable(table) != nullptr;
          return Status{};
        });
    EXPECT_TRUE(status.ok());
    return found;
  }
  // The catalog's name for a column of `kind` on this backend.
  std::string TypeName(db::ColumnType type) {
    return std::string(Database().dialect().IntrospectedTypeName(type));
  }

  void Query(const std::string& sql, std::initializer_list<db::Value> params,
             const std::function<void(const db::Row&)>& on_row = {}) {
    Status status =
        Database().Transaction(db::Access::kWrite, [&](db::Connection& connection) -> Status {
          CAIRN_TRY(connection.Execute(sql, params, on_row));
          return {};
        });
    ASSERT_TRUE(status.ok()) << sql << ": " << status.error().message;
  }

  db::Database& Database() { return app().app().database(); }
};

std::int64_t Id(const std::string& id) {
  return std::stoll(id);
}

bool Mentions(const json::value& lines, const std::string& text) {
  for (const auto& line : lines.as_array()) {
    if (line.is_string() && std::string(line.as_string()).find(text) != std::string::npos) {
      return true;
    }
  }
  return false;
}

TEST(SchemaConvert, TypeChangesConvertEveryStoredValue) {
  ConvertApp app(NotesYaml());
  const std::string a = app.Create(
      "notes", R"({"code":"42","amount":5,"flag":true,"day":"2026-03-01","body":"hello"})");
  const std::string b =
      app.Create("notes", R"({"code":"-7","amount":-12,"flag":false,"body":"tab\tinside"})");
  const std::string empty = app.Create("notes", R"({"title":"nothing to convert"})");
  // A trashed record is converted too (a restore must give a valid value).
  ASSERT_EQ(app.Send("DELETE", "/api/tables/notes/records/" + b).status, 204);

  app.PatchField("notes", "code", R"({"type":"integer"})");
  app.PatchField("notes", "amount", R"({"type":"decimal","precision":2})");
  app.PatchField("notes", "flag", R"({"type":"integer"})");
  app.PatchField("notes", "day", R"({"type":"datetime"})");
  app.PatchField("notes", "body", R"({"type":"long-text"})");
  const json::value preview = app.Ok("GET", kSchemaBase + "/draft/preview");
  EXPECT_TRUE(preview.at("errors").as_array().empty()) << preview;
  const json::value published = app.Publish();
  ASSERT_EQ(published.at("version"), 2) << published;
  const json::value& applied = published.at("migration").at("applied");
  EXPECT_TRUE(Mentions(applied, "convert the 2 values of field \"notes.code\"")) << applied;
  EXPECT_TRUE(Mentions(applied, "from date to datetime")) << applied;

  // Through the API: the values as the new types answer them.
  const json::value fields = app.Fields("notes", a);
  EXPECT_EQ(fields.at("code"), 42);
  EXPECT_EQ(fields.at("amount").to_number<double>(), 5.0);
  EXPECT_EQ(fields.at("flag"), 1);
  EXPECT_EQ(fields.at("day"), "2026-03-01T00:00:00.000Z");
  EXPECT_EQ(fields.at("body"), "hello");
  EXPECT_TRUE(app.Fields("notes", empty).at("code").is_null());

  // In the database: the columns have the new types, and the trashed record's values converted.
  EXPECT_EQ(app.Column("notes", "code")->type, app.TypeName({db::ColumnKind::kInt64}));
  EXPECT_EQ(app.Column("notes", "amount")->type, app.TypeName({db::ColumnKind::kDecimal, 2}));
  EXPECT_EQ(app.Column("notes", "day")->type, app.TypeName({db::ColumnKind::kTimestamp}));
  int rows = 0;
  app.Query(R"(SELECT "code", "amount", "flag", "day", "body" FROM "notes" WHERE "id" = ?)",
            {Id(b)}, [&](const db::Row& row) {
              ++rows;
              EXPECT_EQ(row.GetInt64(0), -7);
              EXPECT_EQ(row.GetDecimal(1, 2).units, -1200);
              EXPECT_EQ(row.GetInt64(2), 0);
              EXPECT_TRUE(row.IsNull(3));
              EXPECT_EQ(row.GetText(4), "tab\tinside");
            });
  EXPECT_EQ(rows, 1);
  app.Query(R"(SELECT "day" FROM "notes" WHERE "id" = ?)", {Id(a)}, [&](const db::Row& row) {
    EXPECT_EQ(row.GetTimestampMillis(0), *time::ParseIso("2026-03-01T00:00:00Z"));
  });

  // The converted fields take writes as their new types.
  EXPECT_EQ(
      app.Send("PATCH", "/api/tables/notes/records/" + a, R"({"fields":{"code":"x"}})").status,
      400);
  app.Create("notes", R"({"code":9,"amount":"1.25","flag":3})");

  // Back again: numbers → text give the digits; 3 is no checkbox.
  app.PatchField("notes", "code", R"({"type":"single-line-text"})");
  app.PatchField("notes", "amount", R"({"type":"single-line-text","precision":null})");
  app.PatchField("notes", "flag", R"({"type":"checkbox"})");
  HttpResult flag_refused = app.Send("POST", kSchemaBase + "/draft/publish", "{}");
  ASSERT_EQ(flag_refused.status, 400) << flag_refused.body;  // the 3 written above
  EXPECT_EQ(flag_refused.Json().at("errors").at(0).at("field"), "notes.flag");
  app.PatchField("notes", "flag", R"({"type":"integer"})");
  ASSERT_EQ(app.Publish().at("version"), 3);
  EXPECT_EQ(app.Fields("notes", a).at("code"), "42");
  EXPECT_EQ(app.Fields("notes", a).at("amount"), "5.00");  // the digits the API answered
  std::string amount;
  app.Query(R"(SELECT "amount" FROM "notes" WHERE "id" = ?)", {Id(b)},
            [&](const db::Row& row) { amount = std::string(row.GetText(0)); });
  EXPECT_EQ(amount, "-12.00");
}

TEST(SchemaConvert, OneUnconvertibleValueRefusesThePublishAndChangesNothing) {
  ConvertApp app(NotesYaml());
  app.Create("notes", R"({"code":"12","amount":3,"contact":"ann@example.com"})");
  const std::string zip = app.Create("notes", R"({"code":"007","contact":"bob@example.com"})");
  const std::string bad_mail = app.Create("notes", R"({"contact":"not an address"})");
  const std::string text_type = app.TypeName({db::ColumnKind::kText});

  // Leading zeros are not a number's: converting would drop them.
  app.PatchField("notes", "code", R"({"type":"integer"})");
  app.PatchField("notes", "amount", R"({"type":"decimal"})");  // would convert on its own
  const json::value preview = app.Ok("GET", kSchemaBase + "/draft/preview");
  ASSERT_FALSE(preview.at("errors").as_array().empty()) << preview;
  EXPECT_EQ(preview.at("errors").at(0).at("path"), "notes.code") << preview;
  HttpResult refused = app.Send("POST", kSchemaBase + "/draft/publish", "{}");
  ASSERT_EQ(refused.status, 400) << refused.body;
  const json::value error = refused.Json();
  EXPECT_EQ(error.at("errors").at(0).at("field"), "notes.code");
  EXPECT_NE(refused.body.find("record " + zip), std::string::npos) << refused.body;
  // Nothing changed: the version, the column types, the values.
  EXPECT_EQ(app.Ok("GET", kSchemaBase + "/status").at("activeVersion"), 1);
  EXPECT_EQ(app.Column("notes", "code")->type, text_type);
  EXPECT_EQ(app.Column("notes", "amount")->type, app.TypeName({db::ColumnKind::kInt64}));
  EXPECT_EQ(app.Fields("notes", zip).at("code"), "007");

  // The column type stays (text → email) yet the values are checked as a write would be.
  app.Ok("POST", kSchemaBase + "/draft/discard");
  app.PatchField("notes", "contact", R"({"type":"email"})");
  refused = app.Send("POST", kSchemaBase + "/draft/publish", "{}");
  ASSERT_EQ(refused.status, 400) << refused.body;
  EXPECT_EQ(refused.Json().at("errors").at(0).at("field"), "notes.contact");
  EXPECT_NE(refused.body.find("record " + bad_mail), std::string::npos) << refused.body;
  EXPECT_EQ(app.Fields("notes", bad_mail).at("contact"), "not an address");

  // Two texts that are one number: a unique field cannot hold both after the conversion.
  app.Ok("POST", kSchemaBase + "/draft/discard");
  app.Create("notes", R"({"ref":"1.5"})");
  app.Create("notes", R"({"ref":"1.50"})");
  app.PatchField("notes", "ref", R"({"type":"decimal"})");
  refused = app.Send("POST", kSchemaBase + "/draft/publish", "{}");
  ASSERT_EQ(refused.status, 400) << refused.body;
  EXPECT_EQ(refused.Json().at("errors").at(0).at("field"), "notes.ref");
  EXPECT_NE(refused.body.find("unique"), std::string::npos) << refused.body;
  EXPECT_EQ(app.Column("notes", "ref")->type, text_type);
  app.Ok("POST", kSchemaBase + "/draft/discard");
  app.PatchField("notes", "contact", R"({"type":"email"})");

  // Fixed, the same change publishes.
  ASSERT_EQ(app.Send("PATCH", "/api/tables/notes/records/" + bad_mail,
                     R"({"fields":{"contact":"carl@example.com"}})")
                .status,
            200);
  EXPECT_EQ(app.Publish().at("version"), 2);
  EXPECT_EQ(app.Column("notes", "contact")->type, text_type);
}

TEST(SchemaConvert, TableRenameTakesItsJunctionCommentsAndHistory) {
  ConvertApp app(TaggedYaml());
  const std::string red = app.Create("tags", R"({"label":"red"})");
  const std::string blue = app.Create("tags", R"({"label":"blue"})");
  const std::string note =
      app.Create("notes", R"({"title":"tagged","tags":[)" + red + "," + blue + "]}");
  ASSERT_EQ(
      app.Send("POST", "/api/tables/notes/records/" + note + "/comments", R"({"content":"first"})")
          .status,
      201);
  ASSERT_TRUE(app.HasTable("notes__tags"));

  // Both tables renamed, and the field: the junction moves, its references follow.
  app.Ok("PATCH", kSchemaBase + "/draft/tables/notes", R"({"name":"memos"})");
  app.Ok("PATCH", kSchemaBase + "/draft/tables/tags", R"({"name":"topics"})");
  app.PatchField("memos", "tags", R"({"name":"labels","relatedTable":"topics"})");
  const json::value published = app.Publish();
  ASSERT_EQ(published.at("version"), 2) << published;
  EXPECT_TRUE(published.at("migration").at("deferred").as_array().empty()) << published;

  EXPECT_TRUE(app.HasTable("memos__labels"));
  EXPECT_FALSE(app.HasTable("notes__tags"));
  EXPECT_FALSE(app.HasTable("notes"));
  EXPECT_FALSE(app.HasTable("tags"));
  EXPECT_EQ(app.Fields("topics", red).at("label"), "red");
  const json::value fields = app.Fields("memos", note);
  ASSERT_TRUE(fields.at("labels").is_array()) << fields;
  EXPECT_EQ(fields.at("labels").as_array().size(), 2u) << fields;
  EXPECT_EQ(app.Ok("GET", "/api/tables/memos/records/" + note + "/comments")
                .at("comments")
                .as_array()
                .size(),
            1u);
  EXPECT_FALSE(app.Ok("GET", "/api/tables/memos/records/" + note + "/history")
                   .at("history")
                   .as_array()
                   .empty());
  // The links are still written and read through the renamed field.
  ASSERT_EQ(app.Send("PATCH", "/api/tables/memos/records/" + note,
                     R"({"fields":{"labels":[)" + red + "]}}")
                .status,
            200);
  EXPECT_EQ(app.Fields("memos", note).at("labels").as_array().size(), 1u);
  std::int64_t links = -1;
  app.Query(R"(SELECT COUNT(*) FROM "memos__labels" WHERE "source_id" = ?)", {Id(note)},
            [&](const db::Row& row) { links = row.GetInt64(0); });
  EXPECT_EQ(links, 1);
}

TEST(SchemaConvert, RebuildKeepsRemovedColumnsUntilPrune) {
  ConvertApp app(NotesYaml());
  const std::string id = app.Create("notes", R"({"title":"t","body":"5","extra":"keep me"})");
  // extra is removed: kept until prune.
  app.Ok("DELETE", kSchemaBase + "/draft/tables/notes/fields/extra");
  json::value published = app.Publish();
  ASSERT_EQ(published.at("migration").at("deferred").as_array().size(), 1u) << published;
  // A type change rebuilds the table on SQLite; the kept column goes along, values and all.
  app.PatchField("notes", "body", R"({"type":"integer"})");
  published = app.Publish();
  ASSERT_EQ(published.at("version"), 3) << published;
  EXPECT_EQ(app.Fields("notes", id).at("body"), 5);
  ASSERT_TRUE(app.Column("notes", "extra").has_value());
  std::string kept;
  app.Query(R"(SELECT "extra" FROM "notes" WHERE "id" = ?)", {Id(id)},
            [&](const db::Row& row) { kept = std::string(row.GetText(0)); });
  EXPECT_EQ(kept, "keep me");
  const json::value status = app.Ok("GET", kSchemaBase + "/status");
  EXPECT_EQ(status.at("deferred").as_array().size(), 1u) << status;
  // New rows never trip over it.
  app.Create("notes", R"({"title":"after","body":7})");

  const json::value pruned = app.Ok("POST", kSchemaBase + "/prune", R"({"confirm":true})");
  EXPECT_EQ(pruned.at("pruned").as_array().size(), 1u) << pruned;
  EXPECT_FALSE(app.Column("notes", "extra").has_value());
  EXPECT_EQ(app.Fields("notes", id).at("body"), 5);
}

TEST(SchemaConvert, AnEditedFileConvertsAtStartup) {
  auto first = std::make_unique<ConvertApp>(NotesYaml());
  const std::string id = first->Create("notes", R"({"code":"42","day":"2026-03-01"})");
  first->app().app().Shutdown();
  // The file changes two types: the start publishes it and converts the values.
  std::string yaml = NotesYaml();
  for (const auto& [from, to] :
       {std::pair<std::string, std::string>{"name: code, type: single-line-text",
                                            "name: code, type: integer"},
        {"name: day, type: date", "name: day, type: datetime"}}) {
    yaml.replace(yaml.find(from), from.size(), to);
  }
  TestAppOptions edited = Options(yaml);
  edited.share_database_with = &first->app();
  ConvertApp restarted(std::move(edited));
  EXPECT_EQ(restarted.Ok("GET", kSchemaBase + "/status").at("activeVersion"), 2);
  const json::value fields = restarted.Fields("notes", id);
  EXPECT_EQ(fields.at("code"), 42);
  EXPECT_EQ(fields.at("day"), "2026-03-01T00:00:00.000Z");
  EXPECT_EQ(restarted.Column("notes", "code")->type, restarted.TypeName({db::ColumnKind::kInt64}));
}

TEST(SchemaConvert, PurgeDueReadsTheActiveVersion) {
  const std::string yaml = std::string(kAuthYaml) + R"(tables:
  - id: 1
    name: notes
    fields:
      - {id: 1, name: body, type: single-line-text}
)";
  ConvertApp app(yaml);
  const std::string note = app.Create("notes", R"({"body":"old"})");
  ASSERT_EQ(app.Send("DELETE", "/api/tables/notes/records/" + note).status, 204);
  app.Query(R"(UPDATE "notes" SET "deleted_at" = ? WHERE "id" = ?)",
            {db::Timestamp{time::NowMillis() - 3 * 24 * 3600 * 1000LL}, Id(note)});
  // Published through the API: the file still says `notes`.
  app.Ok("PATCH", kSchemaBase + "/draft/tables/notes", R"({"name":"memos"})");
  ASSERT_EQ(app.Publish().at("version"), 2);

  const std::filesystem::path config = app.app().data_dir() / "purge.yaml";
  std::ofstream(config) << yaml;
  std::string command = "ECO_RETENTION_PURGE_DAYS=2 '" CAIRN_BINARY "' admin purge-due '" +
                        config.string() + "' --data-dir '" + app.app().data_dir().string() + "'";
  command = app.app().database_url().empty()
                ? "-u DATABASE_URL " + command
                : "DATABASE_URL='" + app.app().database_url() + "' " + command;
  std::string output;
  FILE* pipe = popen(("env " + command + " 2>&1").c_str(), "r");
  char buffer[512];
  while (pipe != nullptr && fgets(buffer, sizeof buffer, pipe) != nullptr) output += buffer;
  const int status = pipe != nullptr ? pclose(pipe) : -1;
  EXPECT_EQ(status, 0) << output;
  EXPECT_NE(output.find("memos: 1 purged"), std::string::npos) << output;
  std::int64_t left = -1;
  app.Query(R"(SELECT COUNT(*) FROM "memos")", {},
            [&](const db::Row& row) { left = row.GetInt64(0); });
  EXPECT_EQ(left, 0);
}

}  // namespace
}  // namespace cairn::test
