// The records API over HTTP on the backend of this run (interface.md "Records", D20–D21,
// D30–D35): the lifecycle, validation, permissions by role and field, optimistic locking, the
// trash and the history.
#include <gtest/gtest.h>

#include "e2e/records_support.hpp"

namespace cairn::test {
namespace {

constexpr const char* kTables = R"(tables:
  - id: 1
    name: contacts
    fields:
      - { id: 1, name: full_name, type: single-line-text, required: true }
      - { id: 2, name: email, type: email, unique: true }
      - { id: 3, name: stage, type: single-select, options: [lead, customer], default: lead }
      - { id: 4, name: budget, type: currency, currency: EUR, precision: 2 }
      - { id: 5, name: salary, type: integer }
    permissions:
      delete: [admin]
      fields:
        - { field: salary, read: [admin], write: [admin] }
        - { field: stage, write: [admin] }
  - id: 2
    name: secrets
    fields:
      - { id: 1, name: code, type: single-line-text }
    permissions:
      read: [admin]
)";

const std::string kContacts = "/api/tables/contacts/records";

std::string IdOf(const HttpResult& result) {
  return std::string(result.Json().at("id").as_string());
}

TEST(Records, LifecycleFromCreateToPermanentDelete) {
  RecordsApp app(kTables);
  const Caller member = app.NewUser("member");
  const auto created = app.Send(member, "POST", kContacts,
                                R"({"fields":{"full_name":"Ada","email":"ada@example.com",)"
                                R"("budget":"19.99"}})");
  ASSERT_EQ(created.status, 201) << created.body;
  const auto record = created.Json();
  const std::string id = IdOf(created);
  EXPECT_EQ(record.at("fields").at("full_name"), "Ada");
  EXPECT_EQ(record.at("fields").at("stage"), "lead");  // the default
  EXPECT_EQ(record.at("createdBy"), boost::json::value(member.user_id));
  EXPECT_EQ(record.at("updatedBy"), boost::json::value(member.user_id));
  EXPECT_TRUE(record.at("deletedAt").is_null());
  EXPECT_TRUE(record.at("deletedBy").is_null());
  EXPECT_NE(created.body.find(R"("budget":19.99)"), std::string::npos) << created.body;

  const auto read = app.Send(member, "GET", kContacts + "/" + id);
  ASSERT_EQ(read.status, 200);
  EXPECT_EQ(read.Json(), record);

  const auto patched =
      app.Send(member, "PATCH", kContacts + "/" + id, R"({"fields":{"full_name":"Ada L."}})");
  ASSERT_EQ(patched.status, 200) << patched.body;
  EXPECT_EQ(patched.Json().at("fields").at("full_name"), "Ada L.");
  EXPECT_EQ(patched.Json().at("fields").at("email"), "ada@example.com");
  EXPECT_GT(patched.Json().at("updatedAt").as_string(), record.at("updatedAt").as_string());

  // delete: [admin] — the member may read the record but not delete it.
  EXPECT_EQ(app.Send(member, "DELETE", kContacts + "/" + id).status, 403);
  EXPECT_EQ(app.Send(app.admin(), "DELETE", kContacts + "/" + id).status, 204);
  EXPECT_EQ(app.Send(member, "GET", kContacts + "/" + id).status, 404);
  EXPECT_EQ(app.Send(app.admin(), "DELETE", kContacts + "/" + id).status, 404);  // D32

  const auto trash = app.Send(member, "GET", "/api/tables/contacts/trash");
  ASSERT_EQ(trash.status, 200);
  ASSERT_EQ(trash.Json().at("records").as_array().size(), 1u);
  EXPECT_EQ(trash.Json().at("records").at(0).at("deletedBy"),
            boost::json::value(app.admin().user_id));

  const auto restored = app.Send(member, "POST", kContacts + "/" + id + "/restore");
  ASSERT_EQ(restored.status, 200) << restored.body;
  EXPECT_TRUE(restored.Json().at("deletedAt").is_null());
  EXPECT_EQ(app.Send(member, "POST", kContacts + "/" + id + "/restore").status, 400);

  // permanentDelete defaults to admin only (D20).
  EXPECT_EQ(app.Send(member, "DELETE", kContacts + "/" + id + "?permanent=true").status, 403);
  EXPECT_EQ(app.Send(app.admin(), "DELETE", kContacts + "/" + id + "?permanent=true").status, 204);
  EXPECT_EQ(app.Send(app.admin(), "GET", kContacts + "/" + id).status, 404);
  EXPECT_EQ(app.Send(app.admin(), "POST", kContacts + "/" + id + "/restore").status, 404);
}

TEST(Records, ValidationNamesEveryBadField) {
  RecordsApp app(kTables);
  const Caller member = app.NewUser("member");
  EXPECT_EQ(app.Send(member, "POST", kContacts, R"({"full_name":"x"})").status, 400);
  const auto bad = app.Send(member, "POST", kContacts,
                            R"({"fields":{"id":5,"nope":1,"email":"not-an-email",)"
                            R"("budget":"1.234"}})");
  ASSERT_EQ(bad.status, 400);
  EXPECT_EQ(CodeOf(bad), "VALIDATION_ERROR");
  const auto fields = ErrorFields(bad);
  for (const char* expected :
       {"fields.id", "fields.nope", "fields.email", "fields.budget", "fields.full_name"}) {
    EXPECT_NE(std::find(fields.begin(), fields.end(), expected), fields.end()) << expected;
  }
  // Nothing was written.
  EXPECT_EQ(app.Send(member, "GET", kContacts).Json().at("pagination").at("total"), 0);

  ASSERT_EQ(app.Send(member, "POST", kContacts,
                     R"({"fields":{"full_name":"A","email":"same@example.com"}})")
                .status,
            201);
  const auto duplicate = app.Send(member, "POST", kContacts,
                                  R"({"fields":{"full_name":"B","email":"same@example.com"}})");
  EXPECT_EQ(duplicate.status, 400) << duplicate.body;
  EXPECT_EQ(CodeOf(duplicate), "VALIDATION_ERROR");
  EXPECT_EQ(ErrorFields(duplicate), std::vector<std::string>{"fields.email"});
}

TEST(Records, RolesAndTablesFollowThePermissions) {
  RecordsApp app(kTables);
  const Caller member = app.NewUser("member");
  const Caller viewer = app.NewUser("viewer");
  const Caller nobody;
  EXPECT_EQ(app.Send(nobody, "GET", kContacts).status, 401);
  EXPECT_EQ(app.Send(nobody, "POST", kContacts, "not json at all").status, 401);  // D17

  // viewer: read by default, no create/update (D20).
  EXPECT_EQ(app.Send(viewer, "GET", kContacts).status, 200);
  EXPECT_EQ(app.Send(viewer, "POST", kContacts, R"({"fields":{"full_name":"V"}})").status, 403);
  const auto created = app.Send(member, "POST", kContacts, R"({"fields":{"full_name":"M"}})");
  ASSERT_EQ(created.status, 201);
  EXPECT_EQ(
      app.Send(viewer, "PATCH", kContacts + "/" + IdOf(created), R"({"fields":{"full_name":"x"}})")
          .status,
      403);
  // A record that does not exist is a 404 even for a caller who could not write it.
  EXPECT_EQ(app.Send(viewer, "PATCH", kContacts + "/999", R"({"fields":{}})").status, 404);

  // secrets: read [admin]. Everyone else gets the same 404 as for a table that does not exist.
  const auto hidden = app.Send(member, "GET", "/api/tables/secrets/records");
  const auto missing = app.Send(member, "GET", "/api/tables/nothing/records");
  EXPECT_EQ(hidden.status, 404);
  EXPECT_EQ(hidden.Json().at("message"), missing.Json().at("message"));
  EXPECT_EQ(app.Send(member, "POST", "/api/tables/secrets/records", R"({"fields":{}})").status,
            404);
  // A malformed record id does not tell a hidden table from a missing one either.
  for (const char* suffix : {"/records/abc", "/records/0", "/records/abc/history",
                             "/records/abc/comments", "/records/1/comments/abc"}) {
    SCOPED_TRACE(suffix);
    const auto hidden_record = app.Send(member, "GET", std::string("/api/tables/secrets") + suffix);
    const auto missing_record =
        app.Send(member, "GET", std::string("/api/tables/nothing") + suffix);
    EXPECT_EQ(hidden_record.status, 404);
    EXPECT_EQ(hidden_record.body, missing_record.body);
    EXPECT_EQ(hidden_record.Json().at("message"), "Table not found");
  }
  EXPECT_EQ(app.Send(app.admin(), "GET", "/api/tables/secrets/records/abc").Json().at("message"),
            "Record not found");
  EXPECT_EQ(app.Send(app.admin(), "GET", "/api/tables/secrets/records").status, 200);
  // By id and by slug too.
  EXPECT_EQ(app.Send(app.admin(), "GET", "/api/tables/2/records").status, 200);
  EXPECT_EQ(app.Send(member, "GET", "/api/tables/1/records").status, 200);
}

TEST(Records, FieldRulesHideAndGuardFields) {
  RecordsApp app(kTables);
  const Caller member = app.NewUser("member");
  const auto created =
      app.Send(app.admin(), "POST", kContacts, R"({"fields":{"full_name":"S","salary":5000}})");
  ASSERT_EQ(created.status, 201) << created.body;
  EXPECT_EQ(created.Json().at("fields").at("salary"), 5000);
  const std::string id = IdOf(created);

  const auto seen = app.Send(member, "GET", kContacts + "/" + id);
  ASSERT_EQ(seen.status, 200);
  EXPECT_FALSE(seen.Json().at("fields").as_object().contains("salary")) << seen.body;
  EXPECT_EQ(seen.body.find("5000"), std::string::npos);
  const auto listed = app.Send(member, "GET", kContacts);
  EXPECT_EQ(listed.body.find("salary"), std::string::npos) << listed.body;

  // salary is unknown to the member; stage is readable but not writable.
  const auto write = app.Send(member, "PATCH", kContacts + "/" + id,
                              R"({"fields":{"salary":1,"stage":"customer"}})");
  ASSERT_EQ(write.status, 400);
  EXPECT_EQ(ErrorFields(write), (std::vector<std::string>{"fields.salary", "fields.stage"}));
  const auto unknown = app.Send(member, "PATCH", kContacts + "/" + id, R"({"fields":{"x":1}})");
  EXPECT_EQ(unknown.Json().at("errors").at(0).at("message"),
            write.Json().at("errors").at(0).at("message"));
  EXPECT_EQ(app.Send(app.admin(), "GET", kContacts + "/" + id).Json().at("fields").at("salary"),
            5000);
}

TEST(Records, StaleUpdatedAtIsAConflictAndWritesNothing) {
  RecordsApp app(kTables);
  const Caller member = app.NewUser("member");
  const auto created = app.Send(member, "POST", kContacts, R"({"fields":{"full_name":"O"}})");
  const std::string id = IdOf(created);
  const std::string stamp(created.Json().at("updatedAt").as_string());
  const auto first = app.Send(member, "PATCH", kContacts + "/" + id,
                              R"({"updatedAt":")" + stamp + R"(","fields":{"full_name":"P"}})");
  ASSERT_EQ(first.status, 200) << first.body;
  const auto stale = app.Send(member, "PATCH", kContacts + "/" + id,
                              R"({"updatedAt":")" + stamp + R"(","fields":{"full_name":"Q"}})");
  EXPECT_EQ(stale.status, 409);
  EXPECT_EQ(CodeOf(stale), "CONFLICT");
  EXPECT_EQ(app.Send(member, "GET", kContacts + "/" + id).Json().at("fields").at("full_name"), "P");
  EXPECT_EQ(
      app.Send(member, "PATCH", kContacts + "/" + id, R"({"updatedAt":"yesterday","fields":{}})")
          .status,
      400);
}

TEST(Records, HistoryShowsEveryChangeNewestFirstWithoutHiddenFields) {
  RecordsApp app(kTables);
  const Caller member = app.NewUser("member");
  const auto created =
      app.Send(app.admin(), "POST", kContacts, R"({"fields":{"full_name":"H","salary":1}})");
  const std::string id = IdOf(created);
  ASSERT_EQ(
      app.Send(member, "PATCH", kContacts + "/" + id, R"({"fields":{"full_name":"I"}})").status,
      200);
  ASSERT_EQ(app.Send(app.admin(), "DELETE", kContacts + "/" + id).status, 204);
  ASSERT_EQ(app.Send(member, "POST", kContacts + "/" + id + "/restore").status, 200);

  const auto history = app.Send(member, "GET", kContacts + "/" + id + "/history");
  ASSERT_EQ(history.status, 200) << history.body;
  const auto body = history.Json();
  const auto& entries = body.at("history").as_array();
  ASSERT_EQ(entries.size(), 4u);
  EXPECT_EQ(entries[0].at("action"), "restore");
  EXPECT_EQ(entries[1].at("action"), "delete");
  EXPECT_EQ(entries[2].at("action"), "update");
  EXPECT_EQ(entries[3].at("action"), "create");
  EXPECT_EQ(entries[2].at("user").at("id"), boost::json::value(member.user_id));
  EXPECT_EQ(entries[2].at("changes").at("before").at("full_name"), "H");
  EXPECT_EQ(entries[2].at("changes").at("after").at("full_name"), "I");
  EXPECT_TRUE(entries[3].at("changes").at("before").is_null());
  EXPECT_EQ(history.body.find("salary"), std::string::npos) << history.body;
  EXPECT_EQ(history.Json().at("pagination").at("total"), 4);

  const auto admin_view = app.Send(app.admin(), "GET", kContacts + "/" + id + "/history?limit=1");
  ASSERT_EQ(admin_view.Json().at("history").as_array().size(), 1u);
  EXPECT_EQ(admin_view.Json().at("history").at(0).at("changes").at("after").at("salary"), 1);
  EXPECT_EQ(app.Send(member, "GET", kContacts + "/12345/history").status, 404);

  // A record in the trash keeps its history; a permanently deleted one has none to show, even
  // to the admin (its values stay only in the activity log).
  ASSERT_EQ(app.Send(app.admin(), "DELETE", kContacts + "/" + id).status, 204);
  EXPECT_EQ(app.Send(member, "GET", kContacts + "/" + id + "/history").status, 200);
  ASSERT_EQ(app.Send(app.admin(), "DELETE", kContacts + "/" + id + "?permanent=true").status, 204);
  for (const Caller& caller : {member, app.admin()}) {
    const auto purged = app.Send(caller, "GET", kContacts + "/" + id + "/history");
    EXPECT_EQ(purged.status, 404) << purged.body;
    EXPECT_EQ(purged.body.find("\"H\""), std::string::npos) << purged.body;
  }
}

TEST(Records, ListsPageThroughAllMatchingRows) {
  RecordsApp app(kTables);
  const Caller member = app.NewUser("member");
  for (const char* name : {"a", "b", "c"}) {
    ASSERT_EQ(app.Send(member, "POST", kContacts,
                       std::string(R"({"fields":{"full_name":")") + name + "\"}}")
                  .status,
              201);
  }
  const auto first = app.Send(member, "GET", kContacts + "?limit=2");
  ASSERT_EQ(first.status, 200);
  EXPECT_EQ(first.Json().at("records").as_array().size(), 2u);
  EXPECT_EQ(first.Json().at("pagination").at("total"), 3);
  EXPECT_EQ(first.Json().at("pagination").at("totalPages"), 2);
  const auto second = app.Send(member, "GET", kContacts + "?limit=2&page=2");
  ASSERT_EQ(second.Json().at("records").as_array().size(), 1u);
  EXPECT_EQ(second.Json().at("records").at(0).at("fields").at("full_name"), "c");
  EXPECT_EQ(
      app.Send(member, "GET", kContacts + "?limit=2&page=9").Json().at("records").as_array().size(),
      0u);
  EXPECT_EQ(app.Send(member, "GET", kContacts + "?page=1&offset=0").status, 400);
  EXPECT_EQ(app.Send(member, "GET", kContacts + "?limit=1001").status, 400);
  EXPECT_EQ(app.Send(member, "GET", kContacts + "?limit=abc").status, 400);
  EXPECT_EQ(app.Send(member, "GET", kContacts + "/abc").status, 404);
}

}  // namespace
}  // namespace cairn::test
