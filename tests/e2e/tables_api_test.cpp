// The Tables API end to end (D7, D17, D20, D21), on the backend of this run: who sees which
// tables and fields, lookups by id, name and slug, the effective rules and the caller's answers,
// 401 without a session, and one 404 for unknown and unreadable tables alike.
#include <gtest/gtest.h>

#include <stdexcept>
#include <string>
#include <vector>

#include <boost/json.hpp>

#include "e2e/auth_test_support.hpp"

namespace cairn::test {
namespace {

namespace json = boost::json;

constexpr const char* kAdminEmail = "root@example.com";
constexpr const char* kAdminPassword = "root password 1";

// Projects: every signed-in role reads it; `budget` is readable only by admin, `notes` writable
// only by editor (and admin). Admin Secrets: admin only. Team Notes: admin and the custom role
// editor. Plain: no permissions block at all (the D20 defaults).
constexpr const char* kConfig = R"(
name: tables-e2e
version: 1.0.0
tables:
  - id: 3
    name: Projects
    fields:
      - name: title
        type: single-line-text
        required: true
        unique: true
      - name: budget
        type: currency
        currency: EUR
        precision: 2
      - name: status
        type: single-select
        options: [open, closed]
        default: open
      - name: notes
        type: long-text
    views:
      - id: open
        name: Open projects
        filters:
          and:
            - { field: status, operator: equals, value: open }
      - id: 2
        name: Biggest first
        sorts:
          - { field: budget, direction: desc }
    permissions:
      create: [admin, editor]
      comment: all
      fields:
        - field: budget
          read: [admin]
          write: [admin]
        - field: notes
          write: [editor]
  - id: 7
    name: Admin Secrets
    fields:
      - name: secret
        type: long-text
    permissions:
      read: [admin]
  - name: Team Notes
    fields:
      - name: body
        type: long-text
    permissions:
      read: [editor]
      update: authenticated
  - name: plain
    fields:
      - name: label
        type: single-line-text
auth:
  strategies:
    - type: emailAndPassword
  roles:
    - name: editor
      description: Edits content
)";

std::string Serialize(const json::object& object) {
  return json::serialize(object);
}

std::vector<std::string> Names(const json::array& items, const char* key = "name") {
  std::vector<std::string> names;
  for (const auto& item : items) names.emplace_back(item.at(key).as_string());
  return names;
}

::testing::AssertionResult IsNotFound(const HttpResult& result) {
  if (result.status != 404) {
    return ::testing::AssertionFailure() << "status " << result.status << ": " << result.body;
  }
  const json::value body = result.Json();
  if (!body.is_object() || body.at("code") != "NOT_FOUND" ||
      body.at("message") != "Table not found" || body.at("success") != false) {
    return ::testing::AssertionFailure() << "envelope: " << result.body;
  }
  return ::testing::AssertionSuccess();
}

// One application for the suite: an admin (from the settings), a member (signed up), a viewer
// and an editor (created by the admin), and `ghost`, whose role the config does not know.
class TablesApiTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    auth_ = new AuthApp(AuthAppOptionsWithConfig(kConfig, kAdminEmail, kAdminPassword));
    admin_ = auth_->SignInOk(kAdminEmail, kAdminPassword).token;
    member_ = auth_->NewAccount("mia@example.com", "member password").token;
    viewer_ = CreateAndSignIn("vic@example.com", "viewer");
    editor_ = CreateAndSignIn("eda@example.com", "editor");
    ghost_ = CreateAndSignIn("gus@example.com", "member");
    auth_->Execute(R"(UPDATE "_cairn_auth_users" SET "role" = ? WHERE "email" = ?)",
                   {std::string("ghost"), std::string("gus@example.com")});
  }
  static void TearDownTestSuite() {
    delete auth_;
    auth_ = nullptr;
  }

  static std::string CreateAndSignIn(const std::string& email, const std::string& role) {
    const auto created = auth_->PostAs(admin_, "/api/auth/admin/create-user",
                                       Serialize({{"email", email},
                                                  {"name", role + " user"},
                                                  {"password", "some password 1"},
                                                  {"role", role}}));
    if (created.status != 200) throw std::runtime_error("create-user: " + created.body);
    return auth_->SignInOk(email, "some password 1").token;
  }

  static HttpResult Get(const std::string& token, const std::string& target) {
    return auth_->GetAs(token, target);
  }
  static json::value GetJson(const std::string& token, const std::string& target) {
    const auto result = Get(token, target);
    if (result.status != 200) {
      throw std::runtime_error(target + ": " + std::to_string(result.status) + " " + result.body);
    }
    return result.Json();
  }
  static std::vector<std::string> TableNames(const std::string& token) {
    return Names(GetJson(token, "/api/tables").at("tables").as_array());
  }

  static AuthApp* auth_;
  static std::string admin_, member_, viewer_, editor_, ghost_;
};

AuthApp* TablesApiTest::auth_ = nullptr;
std::string TablesApiTest::admin_, TablesApiTest::member_, TablesApiTest::viewer_,
    TablesApiTest::editor_, TablesApiTest::ghost_;

TEST_F(TablesApiTest, WithoutASessionEveryRouteIs401) {
  for (const char* target :
       {"/api/tables", "/api/tables/3", "/api/tables/projects", "/api/tables/3/permissions",
        "/api/tables/nope", "/api/tables/nope/permissions"}) {
    const auto result = auth_->Client().Get(target);
    EXPECT_EQ(result.status, 401) << target << " " << result.body;
    EXPECT_EQ(result.Json().at("code"), "UNAUTHORIZED") << target;
  }
  // A token that is not a live session is no session.
  EXPECT_EQ(Get("not-a-session-token", "/api/tables").status, 401);
}

TEST_F(TablesApiTest, ListShowsOnlyTheTablesTheCallerMayRead) {
  using Tables = std::vector<std::string>;
  EXPECT_EQ(TableNames(admin_), (Tables{"Projects", "Admin Secrets", "Team Notes", "plain"}));
  EXPECT_EQ(TableNames(member_), (Tables{"Projects", "plain"}));
  EXPECT_EQ(TableNames(viewer_), (Tables{"Projects", "plain"}));
  EXPECT_EQ(TableNames(editor_), (Tables{"Projects", "Team Notes", "plain"}));
  EXPECT_EQ(TableNames(ghost_), (Tables{"Projects", "plain"}));
}

TEST_F(TablesApiTest, TableShapeForAdmin) {
  const json::value table = GetJson(admin_, "/api/tables/3");
  EXPECT_EQ(table.at("id"), 3);
  EXPECT_EQ(table.at("name"), "Projects");
  EXPECT_EQ(table.at("slug"), "projects");
  const json::array& fields = table.at("fields").as_array();
  EXPECT_EQ(Names(fields), (std::vector<std::string>{"title", "budget", "status", "notes"}));
  EXPECT_EQ(fields[0], json::parse(R"({"id":1,"name":"title","type":"single-line-text",
      "required":true,"unique":true,"indexed":false})"));
  EXPECT_EQ(fields[1], json::parse(R"({"id":2,"name":"budget","type":"currency",
      "required":false,"unique":false,"indexed":false,"currency":"EUR","precision":2})"));
  EXPECT_EQ(fields[2], json::parse(R"({"id":3,"name":"status","type":"single-select",
      "required":false,"unique":false,"indexed":false,"default":"open",
      "options":["open","closed"]})"));
  EXPECT_EQ(
      table.at("views"),
      json::parse(R"([{"id":"open","name":"Open projects"},{"id":"2","name":"Biggest first"}])"));
  EXPECT_EQ(table.at("permissions"), json::parse(R"({
      "read":"authenticated","create":["admin","editor"],"update":["admin","member"],
      "delete":["admin","member"],"restore":["admin","member"],"permanentDelete":["admin"],
      "comment":"all",
      "fields":[{"field":"budget","read":["admin"],"write":["admin"]},
                {"field":"notes","read":"all","write":["editor"]}]})"));
}

TEST_F(TablesApiTest, FieldsTheCallerMayNotReadAppearNowhere) {
  for (const std::string* token : {&member_, &viewer_, &editor_, &ghost_}) {
    for (const char* target : {"/api/tables/3", "/api/tables/3/permissions", "/api/tables"}) {
      const auto result = Get(*token, target);
      ASSERT_EQ(result.status, 200) << target << " " << result.body;
      EXPECT_EQ(result.body.find("budget"), std::string::npos) << target << " " << result.body;
    }
    const json::value table = GetJson(*token, "/api/tables/projects");
    EXPECT_EQ(Names(table.at("fields").as_array()),
              (std::vector<std::string>{"title", "status", "notes"}));
    EXPECT_EQ(table.at("permissions").at("fields"),
              json::parse(R"([{"field":"notes","read":"all","write":["editor"]}])"));
  }
}

TEST_F(TablesApiTest, LookupByIdNameAnyCaseAndSlug) {
  for (const char* id :
       {"7", "Admin%20Secrets", "admin%20secrets", "ADMIN%20SECRETS", "admin-secrets"}) {
    const auto result = Get(admin_, std::string("/api/tables/") + id);
    ASSERT_EQ(result.status, 200) << id << " " << result.body;
    EXPECT_EQ(result.Json().at("name"), "Admin Secrets") << id;
    EXPECT_EQ(result.Json().at("id"), 7) << id;
    const auto permissions = Get(admin_, std::string("/api/tables/") + id + "/permissions");
    ASSERT_EQ(permissions.status, 200) << id << " " << permissions.body;
    EXPECT_EQ(permissions.Json().at("table"),
              json::parse(R"({"id":7,"name":"Admin Secrets","slug":"admin-secrets"})"));
  }
  // Ids are assigned max+1 in array order when missing (D7).
  EXPECT_EQ(GetJson(editor_, "/api/tables/team-notes").at("id"), 8);
  EXPECT_EQ(GetJson(editor_, "/api/tables/8").at("name"), "Team Notes");
  EXPECT_EQ(GetJson(member_, "/api/tables/9").at("name"), "plain");
}

TEST_F(TablesApiTest, UnknownAndUnreadableTablesAreTheSame404) {
  for (const std::string* token : {&member_, &viewer_, &ghost_}) {
    for (const char* id : {"7", "Admin%20Secrets", "admin-secrets", "8", "team-notes"}) {
      EXPECT_TRUE(IsNotFound(Get(*token, std::string("/api/tables/") + id))) << id;
      EXPECT_TRUE(IsNotFound(Get(*token, std::string("/api/tables/") + id + "/permissions"))) << id;
    }
  }
  for (const std::string* token : {&admin_, &member_, &editor_}) {
    for (const char* id : {"999", "0", "-3", "nope", "Projects2", "projects-"}) {
      EXPECT_TRUE(IsNotFound(Get(*token, std::string("/api/tables/") + id))) << id;
      EXPECT_TRUE(IsNotFound(Get(*token, std::string("/api/tables/") + id + "/permissions"))) << id;
    }
  }
  // The unreadable and the unknown answer byte for byte alike, apart from the request id.
  const auto unreadable = Get(member_, "/api/tables/7");
  const auto unknown = Get(member_, "/api/tables/999");
  json::object a = unreadable.Json().as_object(), b = unknown.Json().as_object();
  a.erase("requestId");
  b.erase("requestId");
  EXPECT_EQ(a, b);
}

TEST_F(TablesApiTest, PermissionsForAdmin) {
  const json::value body = GetJson(admin_, "/api/tables/projects/permissions");
  EXPECT_EQ(body.at("table"), json::parse(R"({"id":3,"name":"Projects","slug":"projects"})"));
  EXPECT_EQ(body.at("permissions"), GetJson(admin_, "/api/tables/3").at("permissions"));
  EXPECT_EQ(body.at("caller"), json::parse(R"({"role":"admin","read":true,"create":true,
      "update":true,"delete":true,"restore":true,"permanentDelete":true,"comment":true,
      "fields":{"title":{"read":true,"write":true},"budget":{"read":true,"write":true},
                "status":{"read":true,"write":true},"notes":{"read":true,"write":true}}})"));
  // Admin overrides an admin-only read rule and every default.
  const json::value secrets = GetJson(admin_, "/api/tables/7/permissions");
  EXPECT_EQ(secrets.at("caller").at("permanentDelete"), true);
  EXPECT_EQ(secrets.at("permissions").at("read"), json::parse(R"(["admin"])"));
}

TEST_F(TablesApiTest, PermissionsForMember) {
  const json::value body = GetJson(member_, "/api/tables/3/permissions");
  EXPECT_EQ(body.at("caller"), json::parse(R"({"role":"member","read":true,"create":false,
      "update":true,"delete":true,"restore":true,"permanentDelete":false,"comment":true,
      "fields":{"title":{"read":true,"write":true},"status":{"read":true,"write":true},
                "notes":{"read":true,"write":false}}})"));
  // The D20 defaults, as they apply to a table without a permissions block.
  const json::value plain = GetJson(member_, "/api/tables/plain/permissions");
  EXPECT_EQ(plain.at("permissions"), json::parse(R"({"read":"authenticated",
      "create":["admin","member"],"update":["admin","member"],"delete":["admin","member"],
      "restore":["admin","member"],"permanentDelete":["admin"],"comment":["admin","member"],
      "fields":[]})"));
  EXPECT_EQ(plain.at("caller"), json::parse(R"({"role":"member","read":true,"create":true,
      "update":true,"delete":true,"restore":true,"permanentDelete":false,"comment":true,
      "fields":{"label":{"read":true,"write":true}}})"));
}

TEST_F(TablesApiTest, PermissionsForViewer) {
  const json::value body = GetJson(viewer_, "/api/tables/3/permissions");
  EXPECT_EQ(body.at("caller"), json::parse(R"({"role":"viewer","read":true,"create":false,
      "update":false,"delete":false,"restore":false,"permanentDelete":false,"comment":true,
      "fields":{"title":{"read":true,"write":true},"status":{"read":true,"write":true},
                "notes":{"read":true,"write":false}}})"));
  const json::value plain = GetJson(viewer_, "/api/tables/plain/permissions");
  EXPECT_EQ(plain.at("caller"), json::parse(R"({"role":"viewer","read":true,"create":false,
      "update":false,"delete":false,"restore":false,"permanentDelete":false,"comment":false,
      "fields":{"label":{"read":true,"write":true}}})"));
}

TEST_F(TablesApiTest, PermissionsForACustomRole) {
  const json::value body = GetJson(editor_, "/api/tables/Projects/permissions");
  EXPECT_EQ(body.at("caller"), json::parse(R"({"role":"editor","read":true,"create":true,
      "update":false,"delete":false,"restore":false,"permanentDelete":false,"comment":true,
      "fields":{"title":{"read":true,"write":true},"status":{"read":true,"write":true},
                "notes":{"read":true,"write":true}}})"));
  const json::value notes = GetJson(editor_, "/api/tables/team-notes/permissions");
  EXPECT_EQ(notes.at("permissions").at("read"), json::parse(R"(["editor"])"));
  EXPECT_EQ(notes.at("permissions").at("update"), "authenticated");
  EXPECT_EQ(notes.at("caller"), json::parse(R"({"role":"editor","read":true,"create":false,
      "update":true,"delete":false,"restore":false,"permanentDelete":false,"comment":false,
      "fields":{"body":{"read":true,"write":true}}})"));
}

TEST_F(TablesApiTest, ARoleTheConfigDoesNotKnowIsInNoList) {
  const json::value body = GetJson(ghost_, "/api/tables/3/permissions");
  EXPECT_EQ(body.at("caller"), json::parse(R"({"role":"ghost","read":true,"create":false,
      "update":false,"delete":false,"restore":false,"permanentDelete":false,"comment":true,
      "fields":{"title":{"read":true,"write":true},"status":{"read":true,"write":true},
                "notes":{"read":true,"write":false}}})"));
}

TEST_F(TablesApiTest, OnlyGetIsRouted) {
  const auto post = auth_->PostAs(admin_, "/api/tables", "{}");
  EXPECT_EQ(post.status, 404) << post.body;
  EXPECT_EQ(post.Json().at("code"), "NOT_FOUND");
}

TEST(TablesApiWithoutAuth, RoutesAreNotRegistered) {
  TestAppOptions options;
  options.config_yaml = kMinimalConfig;
  TestApp app(std::move(options));
  for (const char* target : {"/api/tables", "/api/tables/notes", "/api/tables/notes/permissions"}) {
    const auto result = app.Client().Get(target);
    EXPECT_EQ(result.status, 404) << target << " " << result.body;
  }
}

}  // namespace
}  // namespace cairn::test
