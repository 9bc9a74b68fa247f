// Better Auth's admin plugin under /api/auth/admin end to end (D10, D14, D17), on the backend of
// this run: who may call each route, what each one answers and what it leaves in the auth tables.
#include <gtest/gtest.h>

#include <algorithm>
#include <memory>
#include <set>
#include <stdexcept>

#include <boost/json.hpp>

#include "common/crypto.hpp"
#include "common/time.hpp"
#include "e2e/auth_test_support.hpp"

namespace cairn::test {
namespace {

namespace json = boost::json;

constexpr const char* kAdminEmail = "root@example.com";
constexpr const char* kAdminPassword = "root password 1";
constexpr const char* kAdminName = "Root Admin";
constexpr const char* kUnknownId = "NoSuchUserId0000000000000000000";
constexpr std::int64_t kHour = 3600LL * 1000;
constexpr std::int64_t kDay = 24 * kHour;

// The emailAndPassword strategy, a custom role `editor`, and the first admin from the settings.
TestAppOptions AdminOptions(const std::string& admin_password = kAdminPassword,
                            const std::string& admin_name = kAdminName) {
  TestAppOptions options =
      AuthAppOptions("", "roles:\n  - name: editor\n    description: Edits content\n");
  options.tune_settings = [admin_password, admin_name](app::Settings& settings) {
    settings.auth_secret = kTestAuthSecret;
    settings.admin_email = kAdminEmail;
    settings.admin_password = admin_password;
    settings.admin_name = admin_name;
  };
  return options;
}

std::string Serialize(const json::object& object) {
  return json::serialize(object);
}

// The cookie value of a Set-Cookie header (`name=value; attributes`).
std::string CookieValue(const std::optional<std::string>& set_cookie) {
  if (!set_cookie) return {};
  const std::size_t start = set_cookie->find('=') + 1;
  return set_cookie->substr(start, set_cookie->find(';') - start);
}

std::int64_t IsoMillis(const json::value& value) {
  const auto millis = time::ParseIso(value.as_string());
  if (!millis) throw std::runtime_error("not an ISO time: " + json::serialize(value));
  return *millis;
}

// The Better Auth user object (D10), every member present.
void ExpectUserShape(const json::value& user) {
  ASSERT_TRUE(user.is_object()) << user;
  for (const char* key : {"id", "name", "email", "emailVerified", "image", "createdAt", "updatedAt",
                          "role", "banned", "banReason", "banExpires", "twoFactorEnabled"}) {
    EXPECT_TRUE(user.as_object().contains(key)) << key << " missing in " << user;
  }
}

// An application with an admin (from the settings), a member (signed up) and a viewer (created
// by the admin), each signed in.
class AuthAdminTest : public ::testing::Test {
 protected:
  void SetUp() override {
    app_ = std::make_unique<TestApp>(AdminOptions());
    admin_ = SignInOk(kAdminEmail, kAdminPassword);
    const auto signed_up = Client().PostJson(
        "/api/auth/sign-up/email",
        R"({"name":"Mia Member","email":"mia@example.com","password":"member password"})");
    ASSERT_EQ(signed_up.status, 200) << signed_up.body;
    member_ = SignInOk("mia@example.com", "member password");
    const auto created = AdminPost("create-user", Serialize({{"email", "vic@example.com"},
                                                             {"name", "Vic Viewer"},
                                                             {"password", "viewer password"},
                                                             {"role", "viewer"}}));
    ASSERT_EQ(created.status, 200) << created.body;
    viewer_ = SignInOk("vic@example.com", "viewer password");
  }

  HttpClient Client() const { return app_->Client(); }
  std::string Origin() const { return "http://127.0.0.1:" + std::to_string(app_->port()); }

  HttpResult SignIn(const std::string& email, const std::string& password) {
    return Client().PostJson("/api/auth/sign-in/email",
                             Serialize({{"email", email}, {"password", password}}));
  }
  Account SignInOk(const std::string& email, const std::string& password) {
    const auto result = SignIn(email, password);
    if (result.status != 200) {
      throw std::runtime_error("sign-in of " + email + " failed: " + result.body);
    }
    Account account;
    account.email = email;
    account.password = password;
    account.user_id = std::string(result.Json().at("user").at("id").as_string());
    account.token = std::string(result.Json().at("token").as_string());
    account.signed_value = result.Header("set-auth-token");
    account.cookie_value = CookieValue(result.SetCookie(kSessionCookieName));
    return account;
  }

  // Admin routes with a Bearer token (empty: no credentials at all).
  HttpResult PostAs(const std::string& token, const std::string& route,
                    const std::string& body = "{}") {
    return Client().PostJson("/api/auth/admin/" + route, body,
                             token.empty() ? Headers{} : BearerHeader(token));
  }
  HttpResult GetAs(const std::string& token, const std::string& route_and_query) {
    return Client().Get("/api/auth/admin/" + route_and_query,
                        token.empty() ? Headers{} : BearerHeader(token));
  }
  HttpResult AdminPost(const std::string& route, const std::string& body) {
    return PostAs(admin_.token, route, body);
  }
  HttpResult AdminGet(const std::string& route_and_query) {
    return GetAs(admin_.token, route_and_query);
  }
  // The session a token belongs to, or null.
  json::value SessionOf(const std::string& token) {
    return Client().Get("/api/auth/get-session", BearerHeader(token)).Json();
  }
  std::string CreateUser(const json::object& body) {
    const auto result = AdminPost("create-user", Serialize(body));
    if (result.status != 200) throw std::runtime_error("create-user failed: " + result.body);
    return std::string(result.Json().at("user").at("id").as_string());
  }

  // The auth tables, read and written directly.
  std::vector<std::vector<std::optional<std::string>>> Rows(
      const std::string& sql, std::initializer_list<db::Value> params = {}) {
    std::vector<std::vector<std::optional<std::string>>> rows;
    const Status status = app_->app().database().Transaction(
        db::Access::kRead, [&](db::Connection& connection) -> Status {
          CAIRN_ASSIGN_OR_RETURN(db::Rows result, connection.Query(sql, params));
          rows = std::move(result.rows);
          return {};
        });
    if (!status.ok()) throw std::runtime_error(sql + ": " + status.error().detail);
    return rows;
  }
  // The columns of one user row, by name.
  std::optional<std::string> UserColumn(const std::string& user_id, const std::string& column) {
    const auto rows = Rows(R"(SELECT ")" + column + R"(" FROM "_cairn_auth_users" WHERE "id" = ?)",
                           {std::string_view(user_id)});
    if (rows.empty()) throw std::runtime_error("no user " + user_id);
    return rows.front().front();
  }
  std::int64_t Count(const std::string& sql, std::initializer_list<db::Value> params = {}) {
    return ToInt(Rows(sql, params).front().front());
  }
  std::int64_t Sessions(const std::string& user_id) {
    return Count(R"(SELECT COUNT(*) FROM "_cairn_auth_sessions" WHERE "user_id" = ?)",
                 {std::string_view(user_id)});
  }
  std::int64_t Users() { return Count(R"(SELECT COUNT(*) FROM "_cairn_auth_users")"); }
  void Execute(const std::string& sql, std::initializer_list<db::Value> params) {
    const Status status = app_->app().database().Transaction(
        db::Access::kWrite, [&](db::Connection& connection) -> Status {
          CAIRN_TRY(connection.Execute(sql, params));
          return {};
        });
    if (!status.ok()) throw std::runtime_error(sql + ": " + status.error().detail);
  }

  std::unique_ptr<TestApp> app_;
  Account admin_, member_, viewer_;
};

// --- The first admin (D14) -------------------------------------------------------------------

TEST(AuthAdminFirstAdmin, ComesFromTheSettingsOnceAcrossRestarts) {
  TestApp first(AdminOptions());
  const auto count_admins = [](TestApp& app) {
    std::vector<std::vector<std::optional<std::string>>> rows;
    const Status status = app.app().database().Transaction(
        db::Access::kRead, [&](db::Connection& connection) -> Status {
          CAIRN_ASSIGN_OR_RETURN(
              db::Rows result,
              connection.Query(R"(SELECT "name", "role", "email_verified" FROM "_cairn_auth_users")"
                               R"( WHERE "email" = ?)",
                               {std::string_view(kAdminEmail)}));
          rows = std::move(result.rows);
          return {};
        });
    EXPECT_TRUE(status.ok());
    return rows;
  };
  auto rows = count_admins(first);
  ASSERT_EQ(rows.size(), 1u);
  EXPECT_EQ(rows[0][0], kAdminName);
  EXPECT_EQ(rows[0][1], "admin");
  EXPECT_EQ(rows[0][2], "1");  // verified
  const auto signed_in = first.Client().PostJson(
      "/api/auth/sign-in/email", Serialize({{"email", kAdminEmail}, {"password", kAdminPassword}}));
  ASSERT_EQ(signed_in.status, 200) << signed_in.body;
  EXPECT_EQ(signed_in.Json().at("user").at("role"), "admin");
  first.app().Shutdown();

  // A restart with the same AUTH_ADMIN_EMAIL (and another password and name) changes nothing.
  TestAppOptions again = AdminOptions("another password 2", "Someone Else");
  again.share_database_with = &first;
  TestApp second(std::move(again));
  rows = count_admins(second);
  ASSERT_EQ(rows.size(), 1u);
  EXPECT_EQ(rows[0][0], kAdminName);
  auto client = second.Client();
  EXPECT_EQ(client
                .PostJson("/api/auth/sign-in/email",
                          Serialize({{"email", kAdminEmail}, {"password", kAdminPassword}}))
                .status,
            200);
  EXPECT_TRUE(IsAuthError(
      client.PostJson("/api/auth/sign-in/email",
                      Serialize({{"email", kAdminEmail}, {"password", "another password 2"}})),
      401, "UNAUTHORIZED", "INVALID_EMAIL_OR_PASSWORD"));
}

// --- Who may call the admin routes (D17)
// ----------------------------------------------------------

TEST_F(AuthAdminTest, EveryAdminRouteNeedsAnAdminSession) {
  struct Call {
    const char* method;
    std::string route;
    std::string body;
  };
  const std::string admin_id = admin_.user_id;
  const std::vector<Call> calls{
      {"POST", "create-user",
       Serialize({{"email", "new@example.com"},
                  {"name", "New"},
                  {"password", "new password 1"},
                  {"role", "admin"}})},
      {"GET", "list-users", ""},
      {"GET", "get-user?id=" + admin_id, ""},
      {"POST", "set-role", Serialize({{"userId", member_.user_id}, {"role", "admin"}})},
      {"POST", "ban-user", Serialize({{"userId", admin_id}})},
      {"POST", "unban-user", Serialize({{"userId", admin_id}})},
      {"POST", "remove-user", Serialize({{"userId", admin_id}})},
      {"POST", "set-user-password",
       Serialize({{"userId", admin_id}, {"newPassword", "hijacked password"}})},
      {"POST", "update-user",
       Serialize({{"userId", member_.user_id}, {"data", {{"role", "admin"}}}})},
      {"POST", "list-user-sessions", Serialize({{"userId", admin_id}})},
      {"POST", "revoke-user-session", Serialize({{"sessionToken", admin_.token}})},
      {"POST", "revoke-user-sessions", Serialize({{"userId", admin_id}})},
      {"POST", "impersonate-user", Serialize({{"userId", viewer_.user_id}})},
  };
  for (const Call& call : calls) {
    SCOPED_TRACE(call.route);
    const auto as = [&](const std::string& token) {
      return std::string(call.method) == "GET" ? GetAs(token, call.route)
                                               : PostAs(token, call.route, call.body);
    };
    EXPECT_TRUE(IsAuthError(as(""), 401, "UNAUTHORIZED", ""));
    EXPECT_TRUE(IsAuthError(as("not-a-session-token"), 401, "UNAUTHORIZED", ""));
    EXPECT_TRUE(IsAuthError(as(member_.token), 403, "FORBIDDEN", ""));
    EXPECT_TRUE(IsAuthError(as(viewer_.token), 403, "FORBIDDEN", ""));
  }
  // stop-impersonating is open to any session (the impersonated one is not an admin's), but
  // without credentials it is a 401 too.
  EXPECT_TRUE(IsAuthError(PostAs("", "stop-impersonating"), 401, "UNAUTHORIZED", ""));
  EXPECT_TRUE(IsAuthError(PostAs(member_.token, "stop-impersonating"), 400, "VALIDATION_ERROR",
                          "NOT_IMPERSONATING"));

  // Nothing happened: same users and roles, no ban, every session alive, no impersonation.
  EXPECT_EQ(Users(), 3);
  EXPECT_EQ(UserColumn(admin_id, "role"), "admin");
  EXPECT_EQ(UserColumn(admin_id, "banned"), "0");
  EXPECT_EQ(UserColumn(member_.user_id, "role"), "member");
  EXPECT_EQ(
      Count(R"(SELECT COUNT(*) FROM "_cairn_auth_sessions" WHERE "impersonated_by" IS NOT NULL)"),
      0);
  EXPECT_TRUE(SessionOf(admin_.token).is_object());
  EXPECT_TRUE(SessionOf(member_.token).is_object());
  EXPECT_EQ(SignIn(kAdminEmail, kAdminPassword).status, 200);
}

TEST_F(AuthAdminTest, UnknownUserIdIsNotFound) {
  const std::vector<std::pair<std::string, std::string>> posts{
      {"set-role", Serialize({{"userId", kUnknownId}, {"role", "member"}})},
      {"ban-user", Serialize({{"userId", kUnknownId}})},
      {"unban-user", Serialize({{"userId", kUnknownId}})},
      {"remove-user", Serialize({{"userId", kUnknownId}})},
      {"set-user-password", Serialize({{"userId", kUnknownId}, {"newPassword", "long enough 1"}})},
      {"update-user", Serialize({{"userId", kUnknownId}, {"data", {{"name", "Nobody"}}}})},
      {"impersonate-user", Serialize({{"userId", kUnknownId}})},
  };
  for (const auto& [route, body] : posts) {
    SCOPED_TRACE(route);
    EXPECT_TRUE(IsAuthError(AdminPost(route, body), 404, "NOT_FOUND", "USER_NOT_FOUND"));
  }
  EXPECT_TRUE(IsAuthError(AdminGet(std::string("get-user?id=") + kUnknownId), 404, "NOT_FOUND",
                          "USER_NOT_FOUND"));
  // As in Better Auth, the session routes answer for an unknown user as for one without
  // sessions.
  const auto listed = AdminPost("list-user-sessions", Serialize({{"userId", kUnknownId}}));
  ASSERT_EQ(listed.status, 200) << listed.body;
  EXPECT_EQ(listed.Json(), json::parse(R"({"sessions":[]})"));
  const auto revoked = AdminPost("revoke-user-sessions", Serialize({{"userId", kUnknownId}}));
  ASSERT_EQ(revoked.status, 200) << revoked.body;
  EXPECT_EQ(revoked.Json(), json::parse(R"({"success":true})"));
  EXPECT_EQ(Users(), 3);
  EXPECT_EQ(
      Count(R"(SELECT COUNT(*) FROM "_cairn_auth_sessions" WHERE "impersonated_by" IS NOT NULL)"),
      0);
}

// --- create-user -------------------------------------------------------------------------------

TEST_F(AuthAdminTest, CreateUser) {
  const auto created = AdminPost("create-user", Serialize({{"email", " New.Person@Example.COM "},
                                                           {"name", "New Person"},
                                                           {"password", "new person pw"}}));
  ASSERT_EQ(created.status, 200) << created.body;
  const auto user = created.Json().at("user");
  ExpectUserShape(user);
  const std::string id(user.at("id").as_string());
  EXPECT_EQ(user.at("email"), "new.person@example.com");
  EXPECT_EQ(user.at("name"), "New Person");
  EXPECT_EQ(user.at("role"), "member");  // the config's defaultRole
  EXPECT_EQ(user.at("emailVerified"), false);
  EXPECT_EQ(user.at("banned"), false);
  EXPECT_EQ(UserColumn(id, "email"), "new.person@example.com");
  EXPECT_EQ(Count(R"(SELECT COUNT(*) FROM "_cairn_auth_accounts" WHERE "user_id" = ? )"
                  R"(AND "provider_id" = 'credential')",
                  {std::string_view(id)}),
            1);
  EXPECT_EQ(Sessions(id), 0);  // creating a user signs nobody in
  const auto signed_in = SignIn("new.person@example.com", "new person pw");
  ASSERT_EQ(signed_in.status, 200) << signed_in.body;
  EXPECT_EQ(signed_in.Json().at("user").at("id"), json::value(id));

  // A custom role from the config, a verified address, no password.
  const auto editor = AdminPost("create-user", Serialize({{"email", "ed@example.com"},
                                                          {"name", "Ed"},
                                                          {"role", "editor"},
                                                          {"data", {{"emailVerified", true}}}}));
  ASSERT_EQ(editor.status, 200) << editor.body;
  EXPECT_EQ(editor.Json().at("user").at("role"), "editor");
  EXPECT_EQ(editor.Json().at("user").at("emailVerified"), true);
  const std::string editor_id(editor.Json().at("user").at("id").as_string());
  EXPECT_EQ(UserColumn(editor_id, "role"), "editor");
  EXPECT_EQ(UserColumn(editor_id, "email_verified"), "1");
  EXPECT_EQ(Count(R"(SELECT COUNT(*) FROM "_cairn_auth_accounts" WHERE "user_id" = ?)",
                  {std::string_view(editor_id)}),
            0);
  EXPECT_TRUE(
      IsAuthError(SignIn("ed@example.com", ""), 401, "UNAUTHORIZED", "INVALID_EMAIL_OR_PASSWORD"));

  // Refusals, none of which writes a row.
  const std::int64_t users = Users();
  EXPECT_TRUE(IsAuthError(AdminPost("create-user", Serialize({{"email", "MIA@example.com"},
                                                              {"name", "Dup"},
                                                              {"password", "dup password"}})),
                          400, "VALIDATION_ERROR", "USER_ALREADY_EXISTS_USE_ANOTHER_EMAIL"));
  EXPECT_TRUE(
      IsAuthError(AdminPost("create-user", Serialize({{"email", "not-an-email"}, {"name", "Bad"}})),
                  400, "VALIDATION_ERROR", "INVALID_EMAIL"));
  EXPECT_TRUE(IsAuthError(
      AdminPost("create-user",
                Serialize({{"email", "wiz@example.com"}, {"name", "Wiz"}, {"role", "wizard"}})),
      400, "VALIDATION_ERROR", "YOU_ARE_NOT_ALLOWED_TO_SET_NON_EXISTENT_VALUE"));
  EXPECT_TRUE(IsAuthError(AdminPost("create-user", Serialize({{"email", "short@example.com"},
                                                              {"name", "Short"},
                                                              {"password", "short"}})),
                          400, "VALIDATION_ERROR", "PASSWORD_TOO_SHORT"));
  EXPECT_TRUE(IsAuthError(AdminPost("create-user", Serialize({{"email", "noname@example.com"}})),
                          400, "VALIDATION_ERROR", ""));
  EXPECT_EQ(Users(), users);
}

// --- list-users and get-user ---------------------------------------------------------------------

// The emails of a list-users answer, in order.
std::vector<std::string> Emails(const HttpResult& result) {
  std::vector<std::string> emails;
  const auto body = result.Json();
  if (!body.is_object()) return emails;
  for (const auto& user : body.at("users").as_array()) {
    emails.emplace_back(user.at("email").as_string());
  }
  return emails;
}

TEST_F(AuthAdminTest, ListUsersSearchesFiltersSortsAndPages) {
  CreateUser({{"email", "alice@example.org"}, {"name", "Alice Anders"}, {"role", "editor"}});
  const std::string bob = CreateUser({{"email", "bob@example.org"}, {"name", "Bob Brown"}});
  CreateUser({{"email", "carol@sub.example.net"},
              {"name", "Carol 100% Real_Name"},
              {"data", {{"emailVerified", true}}}});
  ASSERT_EQ(AdminPost("ban-user", Serialize({{"userId", bob}})).status, 200);
  // Accounts made within one millisecond tie on createdAt: space them a second apart, in the
  // order they were made, so that sorting by createdAt has one right answer.
  const std::vector<std::string> made{"root@example.com", "mia@example.com",
                                      "vic@example.com",  "alice@example.org",
                                      "bob@example.org",  "carol@sub.example.net"};
  for (std::size_t i = 0; i < made.size(); ++i) {
    Execute(R"(UPDATE "_cairn_auth_users" SET "created_at" = ? WHERE "email" = ?)",
            {static_cast<std::int64_t>(1'700'000'000'000 + 1000 * i), std::string_view(made[i])});
  }

  using Emails_ = std::vector<std::string>;
  const auto list = [&](const std::string& query) {
    const auto result = AdminGet("list-users" + query);
    EXPECT_EQ(result.status, 200) << query << ": " << result.body;
    return result;
  };
  const auto total = [](const HttpResult& result) { return result.Json().at("total").as_int64(); };

  // Everyone, oldest first; each entry is a full user object.
  auto all = list("");
  EXPECT_EQ(total(all), 6);
  EXPECT_EQ(Emails(all),
            (Emails_{"root@example.com", "mia@example.com", "vic@example.com", "alice@example.org",
                     "bob@example.org", "carol@sub.example.net"}));
  const auto all_body = all.Json();
  for (const auto& user : all_body.at("users").as_array()) ExpectUserShape(user);

  // Search: email by default, contains by default, case-insensitive; LIKE wildcards are literal.
  auto found = list("?searchValue=EXAMPLE.ORG");
  EXPECT_EQ(Emails(found), (Emails_{"alice@example.org", "bob@example.org"}));
  EXPECT_EQ(total(found), 2);
  EXPECT_EQ(Emails(list("?searchValue=ali&searchField=name&searchOperator=starts_with")),
            (Emails_{"alice@example.org"}));
  EXPECT_EQ(Emails(list("?searchValue=Anders&searchField=name&searchOperator=starts_with")),
            Emails_{});
  EXPECT_EQ(Emails(list("?searchValue=.NET&searchOperator=ends_with")),
            (Emails_{"carol@sub.example.net"}));
  EXPECT_EQ(Emails(list("?searchValue=100%25&searchField=name")),
            (Emails_{"carol@sub.example.net"}));
  EXPECT_EQ(total(list("?searchValue=%25&searchField=email")), 0);
  EXPECT_EQ(Emails(list("?searchValue=l_N&searchField=name")), (Emails_{"carol@sub.example.net"}));
  EXPECT_EQ(total(list("?searchValue=b_b&searchField=name")), 0);

  // Filters: eq by default, ne, contains, starts_with, ends_with, in, not_in, flags.
  EXPECT_EQ(Emails(list("?filterField=role&filterValue=viewer")), (Emails_{"vic@example.com"}));
  EXPECT_EQ(Emails(list("?filterField=role&filterValue=member&filterOperator=ne")),
            (Emails_{"root@example.com", "vic@example.com", "alice@example.org"}));
  EXPECT_EQ(Emails(list("?filterField=name&filterValue=BROWN&filterOperator=contains")),
            (Emails_{"bob@example.org"}));
  EXPECT_EQ(Emails(list("?filterField=email&filterValue=ca&filterOperator=starts_with")),
            (Emails_{"carol@sub.example.net"}));
  EXPECT_EQ(Emails(list("?filterField=email&filterValue=.com&filterOperator=ends_with")),
            (Emails_{"root@example.com", "mia@example.com", "vic@example.com"}));
  EXPECT_EQ(
      Emails(list("?filterField=role&filterOperator=in&filterValue=editor&filterValue=viewer")),
      (Emails_{"vic@example.com", "alice@example.org"}));
  EXPECT_EQ(
      Emails(list("?filterField=role&filterOperator=not_in&filterValue=member&filterValue=admin")),
      (Emails_{"vic@example.com", "alice@example.org"}));
  EXPECT_EQ(Emails(list("?filterField=banned&filterValue=true")), (Emails_{"bob@example.org"}));
  EXPECT_EQ(total(list("?filterField=banned&filterValue=false")), 5);
  EXPECT_EQ(Emails(list("?filterField=emailVerified&filterValue=true")),
            (Emails_{"root@example.com", "carol@sub.example.net"}));
  // filterField defaults to email; an empty filterValue is no filter.
  EXPECT_EQ(Emails(list("?filterValue=mia@example.com")), (Emails_{"mia@example.com"}));
  EXPECT_EQ(total(list("?filterField=role&filterValue=")), 6);
  // Search and filter together.
  found = list("?searchValue=example.com&filterField=role&filterValue=member");
  EXPECT_EQ(Emails(found), (Emails_{"mia@example.com"}));
  EXPECT_EQ(total(found), 1);

  // Sorting and paging: total counts every match, not just the page.
  EXPECT_EQ(Emails(list("?sortBy=email")),
            (Emails_{"alice@example.org", "bob@example.org", "carol@sub.example.net",
                     "mia@example.com", "root@example.com", "vic@example.com"}));
  auto page = list("?sortBy=name&sortDirection=desc&limit=2&offset=1");
  EXPECT_EQ(Emails(page), (Emails_{"root@example.com", "mia@example.com"}));
  EXPECT_EQ(total(page), 6);
  EXPECT_EQ(page.Json().at("limit"), 2);
  EXPECT_EQ(page.Json().at("offset"), 1);
  page = list("?sortBy=createdAt&sortDirection=desc&limit=2");
  EXPECT_EQ(Emails(page), (Emails_{"carol@sub.example.net", "bob@example.org"}));
  EXPECT_EQ(Emails(list("?sortBy=name&offset=5")), (Emails_{"vic@example.com"}));
  EXPECT_EQ(Emails(list("?offset=6")), Emails_{});
  // limit=0 means no limit, as in Better Auth.
  EXPECT_EQ(Emails(list("?limit=0")).size(), 6u);
  page = list("?searchValue=example&searchField=email&limit=1&filterField=role&filterValue=member");
  EXPECT_EQ(Emails(page).size(), 1u);
  EXPECT_EQ(total(page), 3);  // mia, bob, carol
}

TEST_F(AuthAdminTest, ListUsersRejectsBadParameters) {
  for (const std::string query :
       {"searchField=role&searchValue=x", "searchField=password&searchValue=x",
        "searchOperator=like&searchValue=x", "sortBy=password", "sortBy=1;DROP", "sortDirection=up",
        "filterField=password&filterValue=x", "filterField=role&filterValue=x&filterOperator=regex",
        "limit=abc", "limit=-1", "limit=100000", "offset=x", "offset=-5",
        "filterField=createdAt&filterValue=yesterday&filterOperator=gt"}) {
    SCOPED_TRACE(query);
    const auto result = AdminGet("list-users?" + query);
    EXPECT_TRUE(IsAuthError(result, 400, "VALIDATION_ERROR", ""));
    const auto body = result.Json();
    ASSERT_TRUE(body.is_object() && body.as_object().contains("errors")) << result.body;
    EXPECT_FALSE(body.at("errors").as_array().empty());
  }
  EXPECT_EQ(Users(), 3);
}

TEST_F(AuthAdminTest, GetUser) {
  const auto result = AdminGet("get-user?id=" + member_.user_id);
  ASSERT_EQ(result.status, 200) << result.body;
  const auto user = result.Json();  // the bare user, as in Better Auth
  ExpectUserShape(user);
  EXPECT_EQ(user.at("id"), json::value(member_.user_id));
  EXPECT_EQ(user.at("email"), "mia@example.com");
  EXPECT_EQ(user.at("name"), "Mia Member");
  EXPECT_EQ(user.at("role"), "member");
  EXPECT_TRUE(IsAuthError(AdminGet("get-user"), 400, "VALIDATION_ERROR", ""));
  EXPECT_TRUE(IsAuthError(AdminGet("get-user?id="), 400, "VALIDATION_ERROR", ""));
}

// --- set-role ------------------------------------------------------------------------------------

TEST_F(AuthAdminTest, SetRole) {
  auto result = AdminPost("set-role", Serialize({{"userId", member_.user_id}, {"role", "editor"}}));
  ASSERT_EQ(result.status, 200) << result.body;
  ExpectUserShape(result.Json().at("user"));
  EXPECT_EQ(result.Json().at("user").at("role"), "editor");
  EXPECT_EQ(UserColumn(member_.user_id, "role"), "editor");

  EXPECT_TRUE(IsAuthError(
      AdminPost("set-role", Serialize({{"userId", member_.user_id}, {"role", "wizard"}})), 400,
      "VALIDATION_ERROR", "YOU_ARE_NOT_ALLOWED_TO_SET_NON_EXISTENT_VALUE"));
  EXPECT_TRUE(IsAuthError(AdminPost("set-role", Serialize({{"userId", member_.user_id}})), 400,
                          "VALIDATION_ERROR", ""));
  EXPECT_EQ(UserColumn(member_.user_id, "role"), "editor");

  // The new role takes effect on the user's live session at once.
  EXPECT_TRUE(IsAuthError(GetAs(member_.token, "list-users"), 403, "FORBIDDEN", ""));
  result = AdminPost("set-role", Serialize({{"userId", member_.user_id}, {"role", "admin"}}));
  ASSERT_EQ(result.status, 200) << result.body;
  EXPECT_EQ(GetAs(member_.token, "list-users").status, 200);
  result = AdminPost("set-role", Serialize({{"userId", member_.user_id}, {"role", "viewer"}}));
  ASSERT_EQ(result.status, 200) << result.body;
  EXPECT_TRUE(IsAuthError(GetAs(member_.token, "list-users"), 403, "FORBIDDEN", ""));
}

// --- ban-user and unban-user ------------------------------------------------------------------

TEST_F(AuthAdminTest, BanUserEndsTheirSessionsAndRefusesSignIn) {
  const Account second = SignInOk("mia@example.com", "member password");
  ASSERT_EQ(Sessions(member_.user_id), 3);            // sign-up, and two sign-ins
  ASSERT_TRUE(SessionOf(member_.token).is_object());  // resolved (and cached) before the ban

  const std::int64_t before = NowMillis();
  const auto result = AdminPost(
      "ban-user",
      Serialize({{"userId", member_.user_id}, {"banReason", "spam"}, {"banExpiresIn", 3600}}));
  ASSERT_EQ(result.status, 200) << result.body;
  const auto user = result.Json().at("user");
  ExpectUserShape(user);
  EXPECT_EQ(user.at("banned"), true);
  EXPECT_EQ(user.at("banReason"), "spam");
  const std::int64_t expires = IsoMillis(user.at("banExpires"));
  EXPECT_GE(expires, before + kHour);
  EXPECT_LE(expires, NowMillis() + kHour);
  EXPECT_EQ(UserColumn(member_.user_id, "banned"), "1");
  EXPECT_EQ(UserColumn(member_.user_id, "ban_reason"), "spam");
  EXPECT_EQ(ToInt(UserColumn(member_.user_id, "ban_expires")), expires);

  // Every session of the user is gone at once; the tokens no longer work.
  EXPECT_EQ(Sessions(member_.user_id), 0);
  EXPECT_TRUE(SessionOf(member_.token).is_null());
  EXPECT_TRUE(SessionOf(second.token).is_null());
  // Signing in is refused while the ban lasts (after the password check), and makes no session.
  EXPECT_TRUE(
      IsAuthError(SignIn("mia@example.com", "member password"), 403, "FORBIDDEN", "BANNED_USER"));
  EXPECT_TRUE(IsAuthError(SignIn("mia@example.com", "wrong password"), 401, "UNAUTHORIZED",
                          "INVALID_EMAIL_OR_PASSWORD"));
  EXPECT_EQ(Sessions(member_.user_id), 0);
  // Other users keep their sessions.
  EXPECT_TRUE(SessionOf(viewer_.token).is_object());
  EXPECT_TRUE(SessionOf(admin_.token).is_object());

  // Without a reason or expiry: "No reason", banned until lifted.
  const auto forever = AdminPost("ban-user", Serialize({{"userId", viewer_.user_id}}));
  ASSERT_EQ(forever.status, 200) << forever.body;
  EXPECT_EQ(forever.Json().at("user").at("banReason"), "No reason");
  EXPECT_TRUE(forever.Json().at("user").at("banExpires").is_null());
  EXPECT_FALSE(UserColumn(viewer_.user_id, "ban_expires").has_value());
  EXPECT_TRUE(
      IsAuthError(SignIn("vic@example.com", "viewer password"), 403, "FORBIDDEN", "BANNED_USER"));

  // An admin cannot ban themselves; banExpiresIn must be positive.
  EXPECT_TRUE(IsAuthError(AdminPost("ban-user", Serialize({{"userId", admin_.user_id}})), 400,
                          "VALIDATION_ERROR", "YOU_CANNOT_BAN_YOURSELF"));
  EXPECT_EQ(UserColumn(admin_.user_id, "banned"), "0");
  EXPECT_TRUE(SessionOf(admin_.token).is_object());
  EXPECT_TRUE(IsAuthError(
      AdminPost("ban-user", Serialize({{"userId", admin_.user_id}, {"banExpiresIn", 0}})), 400,
      "VALIDATION_ERROR", ""));
}

TEST_F(AuthAdminTest, AnExpiredBanIsLiftedAtSignIn) {
  ASSERT_EQ(AdminPost("ban-user", Serialize({{"userId", member_.user_id},
                                             {"banReason", "cool off"},
                                             {"banExpiresIn", 3600}}))
                .status,
            200);
  EXPECT_TRUE(
      IsAuthError(SignIn("mia@example.com", "member password"), 403, "FORBIDDEN", "BANNED_USER"));
  // The ban ran out.
  Execute(R"(UPDATE "_cairn_auth_users" SET "ban_expires" = ? WHERE "id" = ?)",
          {NowMillis() - 1000, std::string_view(member_.user_id)});
  const auto result = SignIn("mia@example.com", "member password");
  ASSERT_EQ(result.status, 200) << result.body;
  EXPECT_EQ(result.Json().at("user").at("banned"), false);
  EXPECT_TRUE(result.Json().at("user").at("banReason").is_null());
  EXPECT_TRUE(result.Json().at("user").at("banExpires").is_null());
  EXPECT_EQ(UserColumn(member_.user_id, "banned"), "0");
  EXPECT_FALSE(UserColumn(member_.user_id, "ban_reason").has_value());
  EXPECT_FALSE(UserColumn(member_.user_id, "ban_expires").has_value());
  const std::string token(result.Json().at("token").as_string());
  EXPECT_TRUE(SessionOf(token).is_object());
  EXPECT_EQ(Sessions(member_.user_id), 1);
}

TEST_F(AuthAdminTest, UnbanUser) {
  ASSERT_EQ(
      AdminPost(
          "ban-user",
          Serialize({{"userId", member_.user_id}, {"banReason", "spam"}, {"banExpiresIn", 60}}))
          .status,
      200);
  const auto result = AdminPost("unban-user", Serialize({{"userId", member_.user_id}}));
  ASSERT_EQ(result.status, 200) << result.body;
  const auto user = result.Json().at("user");
  ExpectUserShape(user);
  EXPECT_EQ(user.at("banned"), false);
  EXPECT_TRUE(user.at("banReason").is_null());
  EXPECT_TRUE(user.at("banExpires").is_null());
  EXPECT_EQ(UserColumn(member_.user_id, "banned"), "0");
  EXPECT_FALSE(UserColumn(member_.user_id, "ban_reason").has_value());
  EXPECT_FALSE(UserColumn(member_.user_id, "ban_expires").has_value());
  EXPECT_EQ(SignIn("mia@example.com", "member password").status, 200);
  // Unbanning someone who is not banned is harmless.
  EXPECT_EQ(AdminPost("unban-user", Serialize({{"userId", viewer_.user_id}})).status, 200);
}

// --- remove-user ---------------------------------------------------------------------------------

TEST_F(AuthAdminTest, RemoveUser) {
  const auto result = AdminPost("remove-user", Serialize({{"userId", member_.user_id}}));
  ASSERT_EQ(result.status, 200) << result.body;
  EXPECT_EQ(result.Json(), json::parse(R"({"success":true})"));
  const std::string_view id(member_.user_id);
  EXPECT_EQ(Count(R"(SELECT COUNT(*) FROM "_cairn_auth_users" WHERE "id" = ?)", {id}), 0);
  EXPECT_EQ(Count(R"(SELECT COUNT(*) FROM "_cairn_auth_sessions" WHERE "user_id" = ?)", {id}), 0);
  EXPECT_EQ(Count(R"(SELECT COUNT(*) FROM "_cairn_auth_accounts" WHERE "user_id" = ?)", {id}), 0);
  EXPECT_TRUE(SessionOf(member_.token).is_null());
  EXPECT_TRUE(IsAuthError(SignIn("mia@example.com", "member password"), 401, "UNAUTHORIZED",
                          "INVALID_EMAIL_OR_PASSWORD"));
  EXPECT_TRUE(IsAuthError(AdminPost("remove-user", Serialize({{"userId", member_.user_id}})), 404,
                          "NOT_FOUND", "USER_NOT_FOUND"));
  // The address is free again.
  EXPECT_EQ(
      Client()
          .PostJson("/api/auth/sign-up/email",
                    R"({"name":"Mia Again","email":"mia@example.com","password":"pw again 12"})")
          .status,
      200);

  EXPECT_TRUE(IsAuthError(AdminPost("remove-user", Serialize({{"userId", admin_.user_id}})), 400,
                          "VALIDATION_ERROR", "YOU_CANNOT_REMOVE_YOURSELF"));
  EXPECT_EQ(UserColumn(admin_.user_id, "role"), "admin");
  EXPECT_TRUE(SessionOf(admin_.token).is_object());
}

// --- set-user-password ---------------------------------------------------------------------------

TEST_F(AuthAdminTest, SetUserPassword) {
  const auto result =
      AdminPost("set-user-password",
                Serialize({{"userId", member_.user_id}, {"newPassword", "brand new password"}}));
  ASSERT_EQ(result.status, 200) << result.body;
  EXPECT_EQ(result.Json(), json::parse(R"({"status":true})"));
  EXPECT_TRUE(IsAuthError(SignIn("mia@example.com", "member password"), 401, "UNAUTHORIZED",
                          "INVALID_EMAIL_OR_PASSWORD"));
  EXPECT_EQ(SignIn("mia@example.com", "brand new password").status, 200);
  // As in Better Auth, the user's sessions are not ended.
  EXPECT_TRUE(SessionOf(member_.token).is_object());

  EXPECT_TRUE(IsAuthError(AdminPost("set-user-password", Serialize({{"userId", member_.user_id},
                                                                    {"newPassword", "short"}})),
                          400, "VALIDATION_ERROR", "PASSWORD_TOO_SHORT"));
  EXPECT_TRUE(IsAuthError(
      AdminPost("set-user-password",
                Serialize({{"userId", member_.user_id}, {"newPassword", std::string(200, 'x')}})),
      400, "VALIDATION_ERROR", "PASSWORD_TOO_LONG"));
  EXPECT_EQ(SignIn("mia@example.com", "brand new password").status, 200);

  // A user created without a password gets a credential account.
  const std::string id = CreateUser({{"email", "nopw@example.com"}, {"name", "No Password"}});
  ASSERT_EQ(
      AdminPost("set-user-password", Serialize({{"userId", id}, {"newPassword", "first password"}}))
          .status,
      200);
  EXPECT_EQ(Count(R"(SELECT COUNT(*) FROM "_cairn_auth_accounts" WHERE "user_id" = ?)",
                  {std::string_view(id)}),
            1);
  EXPECT_EQ(SignIn("nopw@example.com", "first password").status, 200);
}

// --- update-user ---------------------------------------------------------------------------------

TEST_F(AuthAdminTest, UpdateUser) {
  const auto result =
      AdminPost("update-user", Serialize({{"userId", member_.user_id},
                                          {"data",
                                           {{"name", "Mia Renamed"},
                                            {"email", "Mia.New@Example.com"},
                                            {"emailVerified", true},
                                            {"image", "https://cdn.example.com/mia.png"},
                                            {"role", "editor"}}}}));
  ASSERT_EQ(result.status, 200) << result.body;
  const auto user = result.Json();  // the bare user, as in Better Auth
  ExpectUserShape(user);
  EXPECT_EQ(user.at("name"), "Mia Renamed");
  EXPECT_EQ(user.at("email"), "mia.new@example.com");
  EXPECT_EQ(user.at("emailVerified"), true);
  EXPECT_EQ(user.at("image"), "https://cdn.example.com/mia.png");
  EXPECT_EQ(user.at("role"), "editor");
  EXPECT_EQ(UserColumn(member_.user_id, "name"), "Mia Renamed");
  EXPECT_EQ(UserColumn(member_.user_id, "email"), "mia.new@example.com");
  EXPECT_EQ(UserColumn(member_.user_id, "email_verified"), "1");
  EXPECT_EQ(UserColumn(member_.user_id, "image"), "https://cdn.example.com/mia.png");
  EXPECT_EQ(UserColumn(member_.user_id, "role"), "editor");
  EXPECT_EQ(SignIn("mia.new@example.com", "member password").status, 200);
  EXPECT_EQ(SignIn("mia@example.com", "member password").status, 401);
  // The user's session sees the change.
  EXPECT_EQ(SessionOf(member_.token).at("user").at("name"), "Mia Renamed");

  const auto image_cleared = AdminPost(
      "update-user", Serialize({{"userId", member_.user_id}, {"data", {{"image", nullptr}}}}));
  ASSERT_EQ(image_cleared.status, 200) << image_cleared.body;
  EXPECT_FALSE(UserColumn(member_.user_id, "image").has_value());

  // Refusals leave the row as it was (even when an earlier key was fine).
  const auto update = [&](const json::object& data) {
    return AdminPost("update-user", Serialize({{"userId", member_.user_id}, {"data", data}}));
  };
  EXPECT_TRUE(IsAuthError(update({{"name", "Changed"}, {"email", "VIC@example.com"}}), 400,
                          "VALIDATION_ERROR", "USER_ALREADY_EXISTS_USE_ANOTHER_EMAIL"));
  EXPECT_TRUE(IsAuthError(update({{"name", "Changed"}, {"role", "wizard"}}), 400,
                          "VALIDATION_ERROR", "YOU_ARE_NOT_ALLOWED_TO_SET_NON_EXISTENT_VALUE"));
  EXPECT_TRUE(IsAuthError(update({{"name", "Changed"}, {"email", "not an email"}}), 400,
                          "VALIDATION_ERROR", "INVALID_EMAIL"));
  EXPECT_TRUE(IsAuthError(update({{"password", "sneaky password"}}), 400, "VALIDATION_ERROR",
                          "PASSWORD_CANNOT_BE_UPDATED_VIA_UPDATE_USER"));
  EXPECT_TRUE(IsAuthError(update({{"id", "another-id"}}), 400, "VALIDATION_ERROR",
                          "USER_ID_CANNOT_BE_UPDATED"));
  EXPECT_TRUE(
      IsAuthError(update({{"name", "Changed"}, {"createdAt", 0}}), 400, "VALIDATION_ERROR", ""));
  EXPECT_TRUE(IsAuthError(update({}), 400, "VALIDATION_ERROR", "NO_DATA_TO_UPDATE"));
  EXPECT_TRUE(IsAuthError(AdminPost("update-user", Serialize({{"userId", member_.user_id}})), 400,
                          "VALIDATION_ERROR", ""));
  EXPECT_EQ(UserColumn(member_.user_id, "name"), "Mia Renamed");
  EXPECT_EQ(UserColumn(member_.user_id, "email"), "mia.new@example.com");
  EXPECT_EQ(UserColumn(member_.user_id, "role"), "editor");
  EXPECT_EQ(SignIn("mia.new@example.com", "member password").status, 200);
}

// --- Sessions of a user --------------------------------------------------------------------------

TEST_F(AuthAdminTest, ListUserSessionsShowsHandlesNotTokens) {
  const Account second = SignInOk("mia@example.com", "member password");
  const auto impersonated = AdminPost("impersonate-user", Serialize({{"userId", member_.user_id}}));
  ASSERT_EQ(impersonated.status, 200) << impersonated.body;
  const std::string impersonation_token(impersonated.Json().at("session").at("token").as_string());

  const auto result = AdminPost("list-user-sessions", Serialize({{"userId", member_.user_id}}));
  ASSERT_EQ(result.status, 200) << result.body;
  const auto body = result.Json();
  const auto& sessions = body.at("sessions").as_array();
  ASSERT_EQ(sessions.size(), 4u);  // sign-up, two sign-ins, the impersonation
  std::set<std::string> handles;
  int impersonations = 0;
  for (const auto& session : sessions) {
    EXPECT_EQ(session.at("userId"), json::value(member_.user_id));
    const std::string handle(session.at("token").as_string());
    EXPECT_EQ(handle.size(), 64u);
    EXPECT_TRUE(std::all_of(handle.begin(), handle.end(), [](char c) {
      return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f');
    })) << handle;
    handles.insert(handle);
    if (session.at("impersonatedBy").is_string()) {
      ++impersonations;
      EXPECT_EQ(session.at("impersonatedBy"), json::value(admin_.user_id));
    }
    // The handle is what the database keeps, never the token itself.
    EXPECT_EQ(Count(R"(SELECT COUNT(*) FROM "_cairn_auth_sessions" WHERE "token_hash" = ? )"
                    R"(AND "id" = ?)",
                    {std::string_view(handle), std::string_view(session.at("id").as_string())}),
              1);
  }
  EXPECT_EQ(impersonations, 1);
  for (const std::string& token : {member_.token, second.token, impersonation_token}) {
    EXPECT_FALSE(handles.contains(token));
    EXPECT_TRUE(handles.contains(crypto::Sha256Hex(token)));
  }
  EXPECT_EQ(result.body.find(member_.token), std::string::npos);
  EXPECT_EQ(result.body.find(second.token), std::string::npos);
}

TEST_F(AuthAdminTest, RevokeUserSessionByTokenOrHandle) {
  const Account second = SignInOk("mia@example.com", "member password");
  const Account third = SignInOk("mia@example.com", "member password");
  ASSERT_EQ(Sessions(member_.user_id), 4);

  // By the raw token.
  auto result = AdminPost("revoke-user-session", Serialize({{"sessionToken", second.token}}));
  ASSERT_EQ(result.status, 200) << result.body;
  EXPECT_EQ(result.Json(), json::parse(R"({"success":true})"));
  EXPECT_TRUE(SessionOf(second.token).is_null());
  EXPECT_EQ(Sessions(member_.user_id), 3);

  // By the handle list-user-sessions shows.
  const auto listed = AdminPost("list-user-sessions", Serialize({{"userId", member_.user_id}}));
  ASSERT_EQ(listed.status, 200);
  std::string handle;
  const auto listed_body = listed.Json();
  for (const auto& session : listed_body.at("sessions").as_array()) {
    if (session.at("token") == json::value(crypto::Sha256Hex(third.token))) {
      handle = std::string(session.at("token").as_string());
    }
  }
  ASSERT_FALSE(handle.empty()) << listed.body;
  result = AdminPost("revoke-user-session", Serialize({{"sessionToken", handle}}));
  ASSERT_EQ(result.status, 200) << result.body;
  EXPECT_TRUE(SessionOf(third.token).is_null());
  EXPECT_EQ(Sessions(member_.user_id), 2);
  EXPECT_EQ(Count(R"(SELECT COUNT(*) FROM "_cairn_auth_sessions" WHERE "token_hash" = ?)",
                  {std::string_view(handle)}),
            0);

  // An unknown token is a success that changes nothing (as in Better Auth).
  result = AdminPost("revoke-user-session", Serialize({{"sessionToken", "unknownToken"}}));
  ASSERT_EQ(result.status, 200) << result.body;
  EXPECT_EQ(Sessions(member_.user_id), 2);
  EXPECT_TRUE(SessionOf(member_.token).is_object());
  EXPECT_TRUE(IsAuthError(AdminPost("revoke-user-session", "{}"), 400, "VALIDATION_ERROR", ""));
}

TEST_F(AuthAdminTest, RevokeUserSessions) {
  SignInOk("mia@example.com", "member password");
  ASSERT_EQ(Sessions(member_.user_id), 3);
  const std::int64_t admin_sessions = Sessions(admin_.user_id);
  const auto result = AdminPost("revoke-user-sessions", Serialize({{"userId", member_.user_id}}));
  ASSERT_EQ(result.status, 200) << result.body;
  EXPECT_EQ(result.Json(), json::parse(R"({"success":true})"));
  EXPECT_EQ(Sessions(member_.user_id), 0);
  EXPECT_TRUE(SessionOf(member_.token).is_null());
  EXPECT_EQ(Sessions(admin_.user_id), admin_sessions);
  EXPECT_EQ(Sessions(viewer_.user_id), 1);
  // The user may sign in again: revoking is not banning.
  EXPECT_EQ(SignIn("mia@example.com", "member password").status, 200);
}

// --- Impersonation -------------------------------------------------------------------------------

TEST_F(AuthAdminTest, ImpersonateUser) {
  const std::int64_t before = NowMillis();
  const auto result = AdminPost("impersonate-user", Serialize({{"userId", member_.user_id}}));
  ASSERT_EQ(result.status, 200) << result.body;
  const std::int64_t after = NowMillis();
  const auto body = result.Json();
  ExpectUserShape(body.at("user"));
  EXPECT_EQ(body.at("user").at("id"), json::value(member_.user_id));
  const auto& session = body.at("session");
  EXPECT_EQ(session.at("userId"), json::value(member_.user_id));
  EXPECT_EQ(session.at("impersonatedBy"), json::value(admin_.user_id));
  const std::string token(session.at("token").as_string());
  EXPECT_EQ(token.size(), 32u);
  EXPECT_NE(token, member_.token);
  // An hour at most.
  const std::int64_t expires = IsoMillis(session.at("expiresAt"));
  EXPECT_GE(expires, before + kHour - 1000);
  EXPECT_LE(expires, after + kHour);
  // The token goes to Bearer clients and to the browser; the admin's own session is kept in
  // the admin_session cookie.
  EXPECT_TRUE(result.Header("set-auth-token").starts_with(token + "."));
  const auto session_cookie = result.SetCookie(kSessionCookieName);
  EXPECT_TRUE(CookieValue(session_cookie).starts_with(token + "."));
  // A browser-session cookie, as Better Auth sets it: it does not outlive the hour on disk.
  EXPECT_EQ(session_cookie.value_or("").find("Max-Age"), std::string::npos) << *session_cookie;
  EXPECT_TRUE(
      CookieValue(result.SetCookie("better-auth.admin_session")).starts_with(admin_.token + "."));

  // The row: the member's session, marked with the admin, ending within the hour.
  const auto rows = Rows(R"(SELECT "user_id", "impersonated_by", "expires_at", "created_at" )"
                         R"(FROM "_cairn_auth_sessions" WHERE "token_hash" = ?)",
                         {std::string_view(crypto::Sha256Hex(token))});
  ASSERT_EQ(rows.size(), 1u);
  EXPECT_EQ(rows[0][0], member_.user_id);
  EXPECT_EQ(rows[0][1], admin_.user_id);
  EXPECT_EQ(ToInt(rows[0][2]), expires);
  EXPECT_LE(ToInt(rows[0][2]) - ToInt(rows[0][3]), kHour);

  // The token acts as the member, with the member's rights only.
  const auto as_member = SessionOf(token);
  ASSERT_TRUE(as_member.is_object());
  EXPECT_EQ(as_member.at("user").at("id"), json::value(member_.user_id));
  EXPECT_EQ(as_member.at("user").at("role"), "member");
  EXPECT_EQ(as_member.at("session").at("impersonatedBy"), json::value(admin_.user_id));
  EXPECT_TRUE(IsAuthError(GetAs(token, "list-users"), 403, "FORBIDDEN", ""));
  // The admin's own session is untouched.
  EXPECT_EQ(AdminGet("list-users").status, 200);

  // It is not extended like a normal session, however long ago it was last used.
  Execute(R"(UPDATE "_cairn_auth_sessions" SET "updated_at" = ? WHERE "token_hash" = ?)",
          {NowMillis() - 2 * kDay, std::string_view(crypto::Sha256Hex(token))});
  WaitOutSessionCache();
  ASSERT_TRUE(SessionOf(token).is_object());
  EXPECT_EQ(ToInt(Rows(R"(SELECT "expires_at" FROM "_cairn_auth_sessions" WHERE "token_hash" = ?)",
                       {std::string_view(crypto::Sha256Hex(token))})[0][0]),
            expires);
  // And once its hour is over, it is over.
  Execute(R"(UPDATE "_cairn_auth_sessions" SET "expires_at" = ? WHERE "token_hash" = ?)",
          {NowMillis() - 1, std::string_view(crypto::Sha256Hex(token))});
  WaitOutSessionCache();
  EXPECT_TRUE(SessionOf(token).is_null());
  EXPECT_TRUE(IsAuthError(PostAs(token, "stop-impersonating"), 401, "UNAUTHORIZED", ""));
}

TEST_F(AuthAdminTest, CannotImpersonateAnAdmin) {
  const std::string other_admin = CreateUser({{"email", "second-admin@example.com"},
                                              {"name", "Second Admin"},
                                              {"password", "second admin pw"},
                                              {"role", "admin"}});
  for (const std::string& target : {other_admin, admin_.user_id}) {
    EXPECT_TRUE(IsAuthError(AdminPost("impersonate-user", Serialize({{"userId", target}})), 403,
                            "FORBIDDEN", "YOU_CANNOT_IMPERSONATE_ADMINS"));
  }
  EXPECT_EQ(
      Count(R"(SELECT COUNT(*) FROM "_cairn_auth_sessions" WHERE "impersonated_by" IS NOT NULL)"),
      0);
  // A custom role is not an admin.
  const std::string editor =
      CreateUser({{"email", "ed@example.com"}, {"name", "Ed"}, {"role", "editor"}});
  EXPECT_EQ(AdminPost("impersonate-user", Serialize({{"userId", editor}})).status, 200);
}

TEST_F(AuthAdminTest, StopImpersonatingWithTheAdminCookieRestoresTheAdminSession) {
  // A browser: the admin's session cookie, then impersonation over that cookie.
  auto client = Client();
  const auto started =
      client.PostJson("/api/auth/admin/impersonate-user", Serialize({{"userId", member_.user_id}}),
                      {{"Cookie", std::string(kSessionCookieName) + "=" + admin_.cookie_value},
                       {"Origin", Origin()}});
  ASSERT_EQ(started.status, 200) << started.body;
  const std::string impersonation_token(started.Json().at("session").at("token").as_string());
  const std::string session_cookie = CookieValue(started.SetCookie(kSessionCookieName));
  const std::string admin_cookie = CookieValue(started.SetCookie("better-auth.admin_session"));
  ASSERT_FALSE(session_cookie.empty());
  ASSERT_FALSE(admin_cookie.empty());
  const std::string cookies = std::string(kSessionCookieName) + "=" + session_cookie +
                              "; better-auth.admin_session=" + admin_cookie;

  const auto as_member = client.Get("/api/auth/get-session", {{"Cookie", cookies}});
  ASSERT_EQ(as_member.status, 200);
  EXPECT_EQ(as_member.Json().at("user").at("id"), json::value(member_.user_id));

  const auto stopped = client.PostJson("/api/auth/admin/stop-impersonating", "{}",
                                       {{"Cookie", cookies}, {"Origin", Origin()}});
  ASSERT_EQ(stopped.status, 200) << stopped.body;
  const auto body = stopped.Json();
  EXPECT_EQ(body.at("user").at("id"), json::value(admin_.user_id));
  EXPECT_EQ(body.at("session").at("userId"), json::value(admin_.user_id));
  EXPECT_EQ(body.at("session").at("token"), json::value(admin_.token));
  EXPECT_TRUE(body.at("session").at("impersonatedBy").is_null());
  // The browser gets the admin's session back and loses the admin_session cookie.
  EXPECT_TRUE(CookieValue(stopped.SetCookie(kSessionCookieName)).starts_with(admin_.token + "."));
  const auto cleared = stopped.SetCookie("better-auth.admin_session");
  ASSERT_TRUE(cleared.has_value());
  EXPECT_NE(cleared->find("Max-Age=0"), std::string::npos) << *cleared;

  // The impersonation session is gone; the admin's works.
  EXPECT_EQ(
      Count(R"(SELECT COUNT(*) FROM "_cairn_auth_sessions" WHERE "impersonated_by" IS NOT NULL)"),
      0);
  EXPECT_TRUE(SessionOf(impersonation_token).is_null());
  const auto back =
      client.Get("/api/auth/admin/list-users",
                 {{"Cookie", std::string(kSessionCookieName) + "=" +
                                 CookieValue(stopped.SetCookie(kSessionCookieName))}});
  EXPECT_EQ(back.status, 200) << back.body;
  EXPECT_TRUE(SessionOf(member_.token).is_object());  // the member's own sessions stay
}

TEST_F(AuthAdminTest, StopImpersonatingWithABearerTokenEndsTheImpersonation) {
  const auto started = AdminPost("impersonate-user", Serialize({{"userId", member_.user_id}}));
  ASSERT_EQ(started.status, 200) << started.body;
  const std::string token(started.Json().at("session").at("token").as_string());

  const auto stopped = PostAs(token, "stop-impersonating");
  ASSERT_EQ(stopped.status, 200) << stopped.body;
  EXPECT_EQ(stopped.Json(), json::parse(R"({"session":null,"user":null})"));
  EXPECT_TRUE(SessionOf(token).is_null());
  EXPECT_EQ(
      Count(R"(SELECT COUNT(*) FROM "_cairn_auth_sessions" WHERE "impersonated_by" IS NOT NULL)"),
      0);
  // The admin keeps their own bearer session.
  EXPECT_EQ(AdminGet("list-users").status, 200);
  // Stopping twice: the session is gone.
  EXPECT_TRUE(IsAuthError(PostAs(token, "stop-impersonating"), 401, "UNAUTHORIZED", ""));
  // The admin is not impersonating: nothing to stop.
  EXPECT_TRUE(IsAuthError(PostAs(admin_.token, "stop-impersonating"), 400, "VALIDATION_ERROR",
                          "NOT_IMPERSONATING"));
  EXPECT_EQ(AdminGet("list-users").status, 200);
}

}  // namespace
}  // namespace cairn::test
