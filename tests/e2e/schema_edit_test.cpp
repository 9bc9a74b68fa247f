// Live schema editing over HTTP (D51), on the backend of this run: who may call the routes, the
// draft → validate → publish → restore → prune cycle read back from the real database, a stale
// draft and its rebase, a type change that cannot convert, a rename that keeps its data,
// publishes while requests stream, restarts and file edits, and (PostgreSQL) two nodes.
#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include <boost/json.hpp>

#include "config/loader.hpp"
#include "db/introspection.hpp"
#include "e2e/auth_test_support.hpp"
#include "e2e/schema_test_support.hpp"
#include "support/test_database.hpp"

namespace cairn::test {
namespace {

namespace json = boost::json;

constexpr const char* kAdminEmail = "root@example.com";
constexpr const char* kAdminPassword = "root password 1";
const std::string kNotes = "/api/tables/notes/records";

std::string ConfigYaml(const std::string& extra_fields = "") {
  return R"(
name: schema-app
version: 1.0.0
auth:
  strategies:
    - type: emailAndPassword
tables:
  - id: 1
    name: notes
    fields:
      - id: 1
        name: title
        type: single-line-text
      - id: 2
        name: body
        type: long-text
)" + extra_fields;
}

TestAppOptions Options(const std::string& yaml, bool enabled = true) {
  TestAppOptions options = AuthAppOptionsWithConfig(yaml, kAdminEmail, kAdminPassword);
  auto tune = options.tune_settings;
  options.tune_settings = [tune, enabled](app::Settings& settings) {
    tune(settings);
    settings.schema_edit_api_enabled = enabled;
  };
  return options;
}

class SchemaApp : public SchemaAdminApp {
 public:
  explicit SchemaApp(TestAppOptions options)
      : SchemaAdminApp(std::move(options), kAdminEmail, kAdminPassword) {}

  // The active version's snapshot as the draft shows it.
  json::value Draft() { return Ok("GET", kSchemaBase + "/draft").at("snapshot"); }

  json::value PutDraft(const json::value& snapshot) {
    return Ok("PUT", kSchemaBase + "/draft", json::serialize(json::object{{"snapshot", snapshot}}));
  }

  json::value Publish(const std::string& message = "") {
    return Ok("POST", kSchemaBase + "/draft/publish",
              message.empty() ? "{}" : json::serialize(json::object{{"message", message}}));
  }

  // Adds a field to table notes through the per-resource route and publishes.
  json::value AddField(const std::string& field_json) {
    Ok("POST", kSchemaBase + "/draft/tables/notes/fields", field_json);
    return Publish();
  }

  // The live columns of `table`, read from the database's catalog.
  std::vector<std::string> Columns(const std::string& table) {
    std::vector<std::string> columns;
    Status status = app().app().database().Transaction(
        db::Access::kRead, [&](db::Connection& connection) -> Status {
          CAIRN_ASSIGN_OR_RETURN(auto live, connection.dialect().introspector().Read(connection));
          if (const db::LiveTable* found = live.FindTable(table)) {
            for (const auto& column : found->columns) columns.push_back(column.name);
          }
          return {};
        });
    EXPECT_TRUE(status.ok());
    return columns;
  }
  bool HasColumn(const std::string& table, const std::string& column) {
    const auto columns = Columns(table);
    return std::find(columns.begin(), columns.end(), column) != columns.end();
  }

  std::string CreateNote(const std::string& fields_json) {
    return CreateRecord("notes", fields_json);
  }
};

json::value FieldsOf(const json::value& snapshot, std::size_t table = 0) {
  return snapshot.at("tables").at(table).at("fields");
}

std::vector<std::string> DeferredNames(const json::value& publish) {
  std::vector<std::string> names;
  for (const auto& drop : publish.at("migration").at("deferred").as_array()) {
    names.emplace_back(drop.at("name").as_string());
  }
  return names;
}

TEST(SchemaEditAccess, NotFoundWhenDisabledOrWithoutAuthAndAdminOnly) {
  {
    SchemaApp disabled(Options(ConfigYaml(), false));
    EXPECT_EQ(disabled.Send("GET", kSchemaBase + "/status").status, 404);
    EXPECT_EQ(disabled.Send("POST", kSchemaBase + "/draft/publish", "{}").status, 404);
    // Versions are kept all the same (D51): version 1 is the file.
    EXPECT_EQ(disabled.auth().Count("SELECT COUNT(*) FROM \"_cairn_schema_versions\""), 1);
  }
  {
    TestAppOptions options;
    options.config_yaml = kMinimalConfig;
    options.tune_settings = [](app::Settings& settings) {
      settings.schema_edit_api_enabled = true;
    };
    TestApp no_auth(options);
    EXPECT_EQ(no_auth.Client().Get(kSchemaBase + "/status").status, 404);
    EXPECT_EQ(no_auth.Client().Get(kSchemaBase + "/versions").status, 404);
  }
  SchemaApp app(Options(ConfigYaml()));
  EXPECT_EQ(app.Send("GET", kSchemaBase + "/versions", {}, "").status, 401);
  const Account member = app.auth().NewAccount("member@example.com");
  const HttpResult forbidden = app.Send("GET", kSchemaBase + "/versions", {}, member.token);
  EXPECT_EQ(forbidden.status, 403) << forbidden.body;
  EXPECT_EQ(app.Send("PUT", kSchemaBase + "/draft", R"({"snapshot":{}})", member.token).status,
            403);
  EXPECT_EQ(app.Send("GET", kSchemaBase + "/versions").status, 200);
}

TEST(SchemaEdit, DraftValidatePublishRestorePrune) {
  SchemaApp app(Options(ConfigYaml()));
  json::value status = app.Ok("GET", kSchemaBase + "/status");
  EXPECT_EQ(status.at("activeVersion"), 1);
  EXPECT_EQ(status.at("draft").at("exists"), false);
  EXPECT_EQ(status.at("drift"), false);
  const std::string first = app.CreateNote(R"({"title":"kept","body":"the body text"})");

  // An invalid draft: the errors carry key paths as `cairn validate` prints them.
  json::value snapshot = app.Draft();
  snapshot.at("tables").at(0).at("fields").as_array().push_back(
      {{"id", 3}, {"name", "priority"}, {"type", "no-such-type"}});
  json::value draft = app.PutDraft(snapshot);
  EXPECT_EQ(draft.at("baseVersion"), 1);
  EXPECT_EQ(draft.at("dirty"), true);
  json::value validation = app.Ok("POST", kSchemaBase + "/draft/validate");
  EXPECT_EQ(validation.at("valid"), false);
  ASSERT_FALSE(validation.at("errors").as_array().empty()) << validation;
  EXPECT_EQ(validation.at("errors").at(0).at("path"), "tables[0].fields[2].type");
  HttpResult refused = app.Send("POST", kSchemaBase + "/draft/publish", "{}");
  EXPECT_EQ(refused.status, 400) << refused.body;
  EXPECT_EQ(refused.Json().at("errors").at(0).at("field"), "tables[0].fields[2].type");
  EXPECT_FALSE(app.HasColumn("notes", "priority"));

  // Fixed and published: the column exists at once, the API takes the field.
  app.Ok("PATCH", kSchemaBase + "/draft/tables/notes/fields/priority", R"({"type":"integer"})");
  validation = app.Ok("POST", kSchemaBase + "/draft/validate");
  EXPECT_EQ(validation.at("valid"), true) << validation;
  json::value published = app.Publish("add priority");
  EXPECT_EQ(published.at("version"), 2);
  EXPECT_EQ(published.at("activeVersion"), 2);
  EXPECT_FALSE(published.at("migration").at("applied").as_array().empty());
  EXPECT_TRUE(app.HasColumn("notes", "priority"));
  app.CreateNote(R"({"title":"second","priority":3})");
  EXPECT_EQ(app.Ok("GET", kSchemaBase + "/status").at("draft").at("exists"), false);

  // A removed field: hidden from the API at once, its column kept until prune (the preview
  // says so first, changing nothing).
  app.Ok("DELETE", kSchemaBase + "/draft/tables/notes/fields/body");
  json::value preview = app.Ok("GET", kSchemaBase + "/draft/preview");
  EXPECT_EQ(preview.at("valid"), true) << preview;
  EXPECT_EQ(preview.at("migration").at("deferred").at(0).at("name"), "notes.body") << preview;
  EXPECT_EQ(app.Ok("GET", kSchemaBase + "/status").at("activeVersion"), 2);
  published = app.Publish();
  EXPECT_EQ(published.at("version"), 3);
  EXPECT_EQ(DeferredNames(published), std::vector<std::string>{"notes.body"});
  EXPECT_TRUE(app.HasColumn("notes", "body"));
  EXPECT_EQ(app.Send("POST", kNotes, R"({"fields":{"title":"x","body":"y"}})").status, 400);
  json::value record = app.Ok("GET", kNotes + "/" + first);
  EXPECT_FALSE(record.at("fields").as_object().contains("body")) << record;
  status = app.Ok("GET", kSchemaBase + "/status");
  EXPECT_EQ(status.at("deferred").at(0).at("name"), "notes.body");
  // A new record still inserts with the column kept.
  app.CreateNote(R"({"title":"third"})");

  // Restoring version 2 brings the field and its data back.
  json::value restored = app.Ok("POST", kSchemaBase + "/versions/2/restore", "{}");
  EXPECT_EQ(restored.at("version"), 4);
  EXPECT_EQ(restored.at("restoredFromVersion"), 2);
  record = app.Ok("GET", kNotes + "/" + first);
  EXPECT_EQ(record.at("fields").at("body"), "the body text") << record;
  json::value version = app.Ok("GET", kSchemaBase + "/versions/4");
  EXPECT_EQ(version.at("source"), "restore");
  EXPECT_EQ(version.at("restoredFromVersion"), 2);
  EXPECT_EQ(FieldsOf(version.at("snapshot")).as_array().size(), 3u);

  // Removed again, then pruned: the column is gone from the database.
  app.Ok("DELETE", kSchemaBase + "/draft/tables/notes/fields/body");
  app.Publish();
  EXPECT_EQ(app.Send("POST", kSchemaBase + "/prune", R"({"confirm":false})").status, 400);
  EXPECT_TRUE(app.HasColumn("notes", "body"));
  json::value pruned = app.Ok("POST", kSchemaBase + "/prune", R"({"confirm":true})");
  EXPECT_EQ(pruned.at("pruned").at(0).at("name"), "notes.body");
  EXPECT_FALSE(app.HasColumn("notes", "body"));
  EXPECT_TRUE(app.Ok("GET", kSchemaBase + "/status").at("deferred").as_array().empty());
  app.CreateNote(R"({"title":"after prune","priority":1})");

  json::value versions = app.Ok("GET", kSchemaBase + "/versions");
  EXPECT_EQ(versions.at("activeVersion"), 5);
  ASSERT_EQ(versions.at("versions").as_array().size(), 5u);
  EXPECT_EQ(versions.at("versions").at(0).at("version"), 5);
  EXPECT_EQ(versions.at("versions").at(4).at("source"), "file");
  EXPECT_EQ(versions.at("versions").at(3).at("message"), "add priority");

  // The activity log has every publish and the restore, with their versions.
  EXPECT_EQ(app.auth().Count("SELECT COUNT(*) FROM \"_cairn_activity\" WHERE \"action\" = ?",
                             {std::string("schema.publish")}),
            3);
  const auto restore_entry =
      app.auth().Scalar("SELECT \"metadata\" FROM \"_cairn_activity\" WHERE \"action\" = ?",
                        {std::string("schema.restore")});
  ASSERT_TRUE(restore_entry.has_value());
  const json::value metadata = json::parse(*restore_entry);
  EXPECT_EQ(metadata.at("version"), 4);
  EXPECT_EQ(metadata.at("restoredFromVersion"), 2);
  EXPECT_EQ(metadata.at("previousVersion"), 3);

  // Export is YAML of the active version.
  HttpResult exported = app.Send("GET", kSchemaBase + "/export");
  EXPECT_EQ(exported.status, 200);
  EXPECT_NE(exported.Header("Content-Type").find("text/yaml"), std::string::npos);
  EXPECT_NE(exported.body.find("priority"), std::string::npos);
  EXPECT_EQ(exported.body.find("\"body\""), std::string::npos) << exported.body;
  // It loads back as the same document (`cairn validate` reads it the same way).
  const config::LoadOutcome reloaded =
      config::LoadConfigText(exported.body, true, app.app().data_dir(), "export.yaml");
  ASSERT_TRUE(reloaded.ok()) << exported.body;
  EXPECT_EQ(reloaded.config->document, app.Ok("GET", kSchemaBase + "/versions/5").at("snapshot"));
  // The file still has `body`: drift.
  json::value diff = app.Ok("GET", kSchemaBase + "/diff");
  EXPECT_EQ(diff.at("drift"), true);
  EXPECT_EQ(diff.at("changes").at(0).at("path"), "tables.notes") << diff;
}

TEST(SchemaEdit, StaleDraftIsRefusedUntilRebased) {
  SchemaApp app(Options(ConfigYaml()));
  // The draft adds `due` on version 1 …
  app.Ok("POST", kSchemaBase + "/draft/tables/notes/fields",
         R"({"id":5,"name":"due","type":"date"})");
  // … while version 2 (a restore of version 1, which leaves the draft alone) becomes active.
  EXPECT_EQ(app.Ok("POST", kSchemaBase + "/versions/1/restore", "{}").at("version"), 2);
  EXPECT_EQ(app.Ok("GET", kSchemaBase + "/status").at("draft").at("stale"), true);
  HttpResult stale = app.Send("POST", kSchemaBase + "/draft/publish", "{}");
  EXPECT_EQ(stale.status, 409) << stale.body;
  EXPECT_FALSE(app.HasColumn("notes", "due"));
  json::value rebased = app.Ok("POST", kSchemaBase + "/draft/rebase");
  EXPECT_EQ(rebased.at("baseVersion"), 2);
  EXPECT_EQ(rebased.at("stale"), false);
  EXPECT_EQ(FieldsOf(rebased.at("snapshot")).as_array().size(), 3u);
  EXPECT_EQ(app.Publish().at("version"), 3);
  EXPECT_TRUE(app.HasColumn("notes", "due"));
}

TEST(SchemaEdit, TypeChangeThatCannotConvertNamesFieldAndRecord) {
  SchemaApp app(Options(ConfigYaml()));
  app.CreateNote(R"({"body":"no title"})");
  const std::string id = app.CreateNote(R"({"title":"not a number"})");
  app.Ok("PATCH", kSchemaBase + "/draft/tables/notes/fields/title", R"({"type":"integer"})");
  HttpResult refused = app.Send("POST", kSchemaBase + "/draft/publish", "{}");
  ASSERT_EQ(refused.status, 400) << refused.body;
  EXPECT_EQ(refused.Json().at("errors").at(0).at("field"), "notes.title");
  EXPECT_NE(refused.body.find("record " + id), std::string::npos) << refused.body;
  EXPECT_EQ(app.Ok("GET", kSchemaBase + "/status").at("activeVersion"), 1);
  // Nothing changed: the text is still there.
  EXPECT_EQ(app.Ok("GET", kNotes + "/" + id).at("fields").at("title"), "not a number");
  // An empty field changes its type.
  app.Ok("POST", kSchemaBase + "/draft/discard");
  app.AddField(R"({"id":7,"name":"score","type":"single-line-text"})");
  app.Ok("PATCH", kSchemaBase + "/draft/tables/notes/fields/score", R"({"type":"integer"})");
  EXPECT_EQ(app.Publish().at("version"), 3);
  app.CreateNote(R"({"title":"scored","score":12})");
}

TEST(SchemaEdit, RenameUnderTheSameIdKeepsTheData) {
  SchemaApp app(Options(ConfigYaml()));
  const std::string id = app.CreateNote(R"({"title":"keep me"})");
  app.Ok("PATCH", kSchemaBase + "/draft/tables/notes/fields/title", R"({"name":"headline"})");
  json::value published = app.Publish();
  EXPECT_TRUE(published.at("migration").at("deferred").as_array().empty()) << published;
  EXPECT_TRUE(app.HasColumn("notes", "headline"));
  EXPECT_FALSE(app.HasColumn("notes", "title"));
  EXPECT_EQ(app.Ok("GET", kNotes + "/" + id).at("fields").at("headline"), "keep me");
}

TEST(SchemaEdit, PublishesWhileRequestsStream) {
  SchemaApp app(Options(ConfigYaml()));
  std::atomic<bool> done{false};
  std::atomic<int> requests{0};
  std::atomic<int> excused{0};
  std::mutex field_mutex;
  std::string live_field;  // the extra field published last; empty while none is
  std::vector<std::string> failures;
  std::thread client([&] {
    int n = 0;
    while (!done.load()) {
      std::string field;
      {
        std::lock_guard lock(field_mutex);
        field = live_field;
      }
      std::string fields = R"({"title":"n)" + std::to_string(++n) + "\"";
      if (!field.empty()) fields += ",\"" + field + "\":\"v\"";
      HttpResult write = app.Send("POST", kNotes, R"({"fields":)" + fields + "}}");
      if (write.status != 201) {
        // Only a write naming a field removed meanwhile may fail.
        if (!field.empty() && write.status == 400 && write.body.find(field) != std::string::npos) {
          ++excused;
        } else {
          failures.push_back(write.body);
        }
      }
      HttpResult read = app.Send("GET", kNotes + "?limit=5");
      if (read.status != 200) failures.push_back(read.body);
      requests += 2;
    }
  });
  for (int i = 0; i < 20; ++i) {
    const std::string name = "extra_" + std::to_string(i / 2);
    if (i % 2 == 0) {
      app.AddField(R"({"id":)" + std::to_string(100 + i) + R"(,"name":")" + name +
                   R"(","type":"single-line-text"})");
      std::lock_guard lock(field_mutex);
      live_field = name;  // the publish answered: every later request sees the field
    } else {
      {
        std::lock_guard lock(field_mutex);
        live_field.clear();
      }
      app.Ok("DELETE", kSchemaBase + "/draft/tables/notes/fields/" + name);
      app.Publish();
    }
    // Every version serves a few of the client's requests before the next publish.
    const int seen = requests.load();
    while (requests.load() < seen + 6) std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  done = true;
  client.join();
  EXPECT_EQ(app.Ok("GET", kSchemaBase + "/status").at("activeVersion"), 21);
  EXPECT_GT(requests.load(), 0);
  EXPECT_TRUE(failures.empty()) << failures.size() << " failed, first: " << failures.front();
  std::printf("%d requests during 20 publishes, %d excused (naming a removed field)\n",
              requests.load(), excused.load());
}

TEST(SchemaEdit, RestartKeepsTheActiveVersionAndAnEditedFileIsPublished) {
  auto first = std::make_unique<SchemaApp>(Options(ConfigYaml()));
  first->AddField(R"({"id":3,"name":"priority","type":"integer"})");
  first->app().app().Shutdown();

  TestAppOptions same = Options(ConfigYaml());
  same.share_database_with = &first->app();
  {
    SchemaApp restarted(std::move(same));
    json::value status = restarted.Ok("GET", kSchemaBase + "/status");
    EXPECT_EQ(status.at("activeVersion"), 2);
    EXPECT_EQ(status.at("drift"), true);
    restarted.CreateNote(R"({"title":"after restart","priority":2})");
    restarted.app().app().Shutdown();
  }
  // The file changed: it wins, as a new version (source file).
  TestAppOptions edited =
      Options(ConfigYaml("      - id: 9\n        name: due\n        type: date\n"));
  edited.share_database_with = &first->app();
  SchemaApp after_edit(std::move(edited));
  json::value versions = after_edit.Ok("GET", kSchemaBase + "/versions");
  EXPECT_EQ(versions.at("activeVersion"), 3);
  EXPECT_EQ(versions.at("versions").at(0).at("source"), "file");
  EXPECT_TRUE(after_edit.HasColumn("notes", "due"));
  // The file has no `priority`: it is kept (a start refuses to drop it), hidden from the API.
  EXPECT_EQ(after_edit.Send("POST", kNotes, R"({"fields":{"priority":1}})").status, 400);
  EXPECT_TRUE(after_edit.HasColumn("notes", "priority"));
  EXPECT_EQ(after_edit.Ok("GET", kSchemaBase + "/status").at("drift"), false);
  // The startup migration is in the activity log (D50).
  EXPECT_GE(after_edit.auth().Count("SELECT COUNT(*) FROM \"_cairn_activity\" WHERE \"action\" = ?",
                                    {std::string("migration")}),
            2);
}

TEST(SchemaEdit, PerResourceRoutesTablesKeysAndRestartOnlyKeys) {
  SchemaApp app(Options(ConfigYaml()));
  // A new table, with a many-to-many field (a junction table) to notes.
  app.Ok("POST", kSchemaBase + "/draft/tables",
         R"({"id":2,"name":"tags","fields":[{"id":1,"name":"label","type":"single-line-text"},)"
         R"({"id":2,"name":"notes","type":"relationship","relatedTable":"notes",)"
         R"("relationType":"many-to-many"}]})");
  EXPECT_EQ(
      app.Send("POST", kSchemaBase + "/draft/tables", R"({"name":"tags","fields":[]})").status,
      409);
  json::value table = app.Ok("GET", kSchemaBase + "/draft/tables/tags");
  EXPECT_EQ(table.at("fields").at(0).at("name"), "label");
  EXPECT_EQ(app.Send("GET", kSchemaBase + "/draft/tables/nope").status, 404);
  // A key without backend behaviour (D6) is edited and published with the rest.
  app.Ok("POST", kSchemaBase + "/draft/pages", R"({"home":{"title":"Home"}})");
  app.Ok("PATCH", kSchemaBase + "/draft/pages", R"({"about":{"title":"About"}})");
  json::value pages = app.Ok("GET", kSchemaBase + "/draft/pages");
  EXPECT_EQ(pages.at("value").at("about").at("title"), "About");
  json::value published = app.Publish();
  ASSERT_EQ(published.at("version"), 2) << published;
  EXPECT_FALSE(app.Columns("tags").empty());
  EXPECT_EQ(app.Send("POST", "/api/tables/tags/records", R"({"fields":{"label":"red"}})").status,
            201);
  EXPECT_EQ(
      app.Ok("GET", kSchemaBase + "/versions/2").at("snapshot").at("pages").at("home").at("title"),
      "Home");

  // A removed table is kept (with its junction table) until prune.
  app.Ok("DELETE", kSchemaBase + "/draft/tables/tags");
  published = app.Publish();
  EXPECT_EQ(published.at("migration").at("deferred").as_array().size(), 2u) << published;
  EXPECT_EQ(app.Send("GET", "/api/tables/tags/records").status, 404);
  EXPECT_FALSE(app.Columns("tags").empty());
  app.Ok("POST", kSchemaBase + "/prune", R"({"confirm":true})");
  EXPECT_TRUE(app.Columns("tags").empty());

  // `auth` changes apply on publish (schema_live_services_test.cpp has the rest) ...
  app.Ok("PATCH", kSchemaBase + "/draft/auth/strategies/emailAndPassword",
         R"({"minPasswordLength":12})");
  app.Publish();
  EXPECT_EQ(app.auth().SignUp("short@example.com", "short@example.com", "eleven char").status, 400);
  // ... but the section cannot be removed (or added) while cairn runs: the publish names it.
  app.Ok("DELETE", kSchemaBase + "/draft/auth");
  json::value validation = app.Ok("POST", kSchemaBase + "/draft/validate");
  EXPECT_EQ(validation.at("valid"), false);
  EXPECT_EQ(validation.at("errors").at(0).at("path"), "auth") << validation;
  HttpResult refused = app.Send("POST", kSchemaBase + "/draft/publish", "{}");
  EXPECT_EQ(refused.status, 400);
  EXPECT_EQ(refused.Json().at("errors").at(0).at("field"), "auth") << refused.body;
  app.Ok("POST", kSchemaBase + "/draft/discard");
  EXPECT_EQ(app.Ok("GET", kSchemaBase + "/status").at("draft").at("exists"), false);
}

// Two nodes on one PostgreSQL: a publish on one is served by the other without a restart (each
// node polls the active version every 250 ms; bench/ measures the delay).
TEST(SchemaEdit, TwoNodesSwitchTogether) {
  if (!IsPostgres()) GTEST_SKIP() << "SQLite is one process";
  SchemaApp first(Options(ConfigYaml()));
  TestAppOptions second_options = Options(ConfigYaml());
  second_options.share_database_with = &first.app();
  SchemaApp second(std::move(second_options));
  EXPECT_EQ(second.Send("POST", kNotes, R"({"fields":{"priority":1}})").status, 400);
  first.AddField(R"({"id":3,"name":"priority","type":"integer"})");
  const auto start = std::chrono::steady_clock::now();
  int status = 0;
  while (std::chrono::steady_clock::now() - start < std::chrono::seconds(10)) {
    status = second.Send("POST", kNotes, R"({"fields":{"priority":1}})").status;
    if (status == 201) break;
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  EXPECT_EQ(status, 201);
  std::printf("second node switched after %lld ms\n",
              static_cast<long long>(std::chrono::duration_cast<std::chrono::milliseconds>(
                                         std::chrono::steady_clock::now() - start)
                                         .count()));
  EXPECT_EQ(second.Ok("GET", kSchemaBase + "/status").at("activeVersion"), 2);
  // And back: a removal on the second node hides the field on the first.
  second.Ok("DELETE", kSchemaBase + "/draft/tables/notes/fields/priority");
  second.Publish();
  int removed = 0;
  while (std::chrono::steady_clock::now() - start < std::chrono::seconds(20)) {
    removed = first.Send("POST", kNotes, R"({"fields":{"priority":1}})").status;
    if (removed == 400) break;
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  EXPECT_EQ(removed, 400);
}

}  // namespace
}  // namespace cairn::test
