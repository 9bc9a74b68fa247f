// The activity log over HTTP (D50), on the backend of this run: who may read it, every filter,
// pagination at its edges, one entry in full, and the auth events and admin actions that land in
// it, each with the right actor and without a password or token anywhere.
#include <gtest/gtest.h>

#include <algorithm>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include <boost/json.hpp>

#include "activity/activity.hpp"
#include "auth/session_token.hpp"
#include "common/time.hpp"
#include "e2e/auth_test_support.hpp"

namespace cairn::test {
namespace {

namespace json = boost::json;

constexpr const char* kAdminEmail = "root@example.com";
constexpr const char* kAdminPassword = "root password 1";
constexpr const char* kAdminName = "Root Admin";
constexpr const char* kAgent = "ActivityTest/1.0 (e2e)";
// Entries the tests write directly are dated 2001, far from the events the requests make now.
constexpr std::int64_t kT0 = 978'307'200'000;  // 2001-01-01T00:00:00Z
constexpr std::int64_t kMinute = 60'000;

TestAppOptions ActivityOptions() {
  TestAppOptions options = AuthAppOptions("", "roles:\n  - name: editor\n");
  options.tune_settings = [](app::Settings& settings) {
    settings.auth_secret = kTestAuthSecret;
    settings.admin_email = kAdminEmail;
    settings.admin_password = kAdminPassword;
    settings.admin_name = kAdminName;
    settings.account_deletion_grace_days = 0;  // delete-user erases at once (D19a)
  };
  return options;
}

std::string Serialize(const json::object& object) {
  return json::serialize(object);
}

Headers WithAgent(Headers headers) {
  headers.emplace_back("User-Agent", kAgent);
  return headers;
}

// A 400 naming `parameter`.
::testing::AssertionResult IsInvalidParameter(const HttpResult& result,
                                              const std::string& parameter) {
  auto envelope = IsAuthError(result, 400, "VALIDATION_ERROR", "");
  if (!envelope) return envelope;
  const json::value body = result.Json();
  const auto& errors = body.at("errors").as_array();
  if (errors.size() != 1 || errors[0].at("field") != json::value(parameter)) {
    return ::testing::AssertionFailure()
           << "expected errors naming " << parameter << ": " << result.body;
  }
  return ::testing::AssertionSuccess();
}

class ActivityApiTest : public ::testing::Test {
 protected:
  void SetUp() override {
    auth_ = std::make_unique<AuthApp>(ActivityOptions());
    admin_ = auth_->SignInOk(kAdminEmail, kAdminPassword);
  }

  HttpClient Client() const { return auth_->Client(); }

  HttpResult GetAs(const std::string& token, const std::string& target) {
    return Client().Get(target, token.empty() ? Headers{} : BearerHeader(token));
  }
  HttpResult PostAs(const std::string& token, const std::string& target,
                    const std::string& body = "{}") {
    return Client().PostJson(target, body, WithAgent(BearerHeader(token)));
  }
  HttpResult AdminPost(const std::string& route, const json::object& body) {
    return PostAs(admin_.token, "/api/auth/admin/" + route, Serialize(body));
  }

  // GET /api/activity<query> as the admin: must answer 200.
  json::object List(const std::string& query = "") {
    const auto result = GetAs(admin_.token, "/api/activity" + query);
    if (result.status != 200) {
      throw std::runtime_error("activity list " + query + ": " + std::to_string(result.status) +
                               " " + result.body);
    }
    return result.Json().as_object();
  }
  std::vector<json::object> Entries(const std::string& query = "?pageSize=100") {
    std::vector<json::object> entries;
    const json::object list = List(query);
    for (const auto& entry : list.at("activities").as_array()) {
      entries.push_back(entry.as_object());
    }
    return entries;
  }
  // The entries with this action, newest first.
  std::vector<json::object> WithAction(const std::string& action) {
    return Entries("?pageSize=100&action=" + action);
  }
  json::object OnlyWithAction(const std::string& action) {
    auto entries = WithAction(action);
    if (entries.size() != 1) {
      throw std::runtime_error("expected one " + action + " entry, found " +
                               std::to_string(entries.size()));
    }
    return entries.front();
  }
  json::object Detail(const json::object& entry) {
    const std::string id(entry.at("id").as_string());
    const auto result = GetAs(admin_.token, "/api/activity/" + id);
    if (result.status != 200) throw std::runtime_error("detail " + id + ": " + result.body);
    return result.Json().as_object();
  }
  json::object Metadata(const json::object& entry) {
    return Detail(entry).at("metadata").as_object();
  }

  // Writes an entry directly, as the record service would, dated `created_at`.
  std::int64_t Insert(const activity::ActivityEntry& entry, std::int64_t created_at) {
    std::int64_t id = 0;
    const Status status = auth_->app().app().database().Transaction(
        db::Access::kWrite, [&](db::Connection& connection) -> Status {
          CAIRN_TRY(activity::RecordActivity(connection, entry));
          CAIRN_TRY(connection.Execute(R"(SELECT MAX("id") FROM "_cairn_activity")", {},
                                       [&](const db::Row& row) { id = row.GetInt64(0); }));
          auto updated = connection.Execute(
              R"(UPDATE "_cairn_activity" SET "created_at" = ? WHERE "id" = ?)", {created_at, id});
          if (!updated.ok()) return std::move(updated).error();
          return {};
        });
    if (!status.ok()) throw std::runtime_error("insert: " + status.error().detail);
    return id;
  }
  std::int64_t InsertRecordEvent(const std::string& action, const std::string& table,
                                 std::int64_t record_id, const std::string& user_id,
                                 std::int64_t created_at) {
    activity::ActivityEntry entry;
    entry.action = action;
    entry.table_name = table;
    entry.record_id = record_id;
    entry.user_id = user_id;
    entry.changes_json = R"({"before":null,"after":{"title":"t"}})";
    return Insert(entry, created_at);
  }

  // Neither the list nor any entry in full, nor any stored column, holds one of `secrets`.
  void ExpectNoSecrets(const std::vector<std::string>& secrets) {
    std::string everything = GetAs(admin_.token, "/api/activity?pageSize=100").body;
    for (const auto& entry : Entries()) everything += json::serialize(Detail(entry));
    for (const auto& row : auth_->Query(
             R"(SELECT "action", "table_name", "user_id", "changes", "ip_address", "user_agent", )"
             R"("metadata" FROM "_cairn_activity")")) {
      for (const auto& cell : row) everything += cell.value_or("") + "\n";
    }
    for (const auto& secret : secrets) {
      ASSERT_FALSE(secret.empty());
      EXPECT_EQ(everything.find(secret), std::string::npos) << "the log holds " << secret;
    }
  }

  std::unique_ptr<AuthApp> auth_;
  Account admin_;
};

// --- Who may read it ------------------------------------------------------------------------

TEST_F(ActivityApiTest, NoSessionIs401AndOnlyAdminsMayRead) {
  EXPECT_TRUE(IsAuthError(GetAs("", "/api/activity"), 401, "UNAUTHORIZED", ""));
  EXPECT_TRUE(IsAuthError(GetAs("", "/api/activity/1"), 401, "UNAUTHORIZED", ""));
  EXPECT_TRUE(IsAuthError(GetAs("not-a-session-token", "/api/activity"), 401, "UNAUTHORIZED", ""));
  // 401 before the query is looked at (D17).
  EXPECT_TRUE(IsAuthError(GetAs("", "/api/activity?page=0"), 401, "UNAUTHORIZED", ""));

  const Account member = auth_->NewAccount("mia@example.com", "member password");
  EXPECT_TRUE(IsAuthError(GetAs(member.token, "/api/activity"), 403, "FORBIDDEN", ""));
  EXPECT_TRUE(IsAuthError(GetAs(member.token, "/api/activity?page=0"), 403, "FORBIDDEN", ""));
  EXPECT_TRUE(IsAuthError(GetAs(member.token, "/api/activity/1"), 403, "FORBIDDEN", ""));
  EXPECT_TRUE(IsAuthError(auth_->GetWithCookie(member.cookie_value, "/api/activity"), 403,
                          "FORBIDDEN", ""));

  // An editor is not an admin either; an admin by role is, whoever made them one.
  ASSERT_EQ(AdminPost("set-role", {{"userId", member.user_id}, {"role", "editor"}}).status, 200);
  EXPECT_TRUE(IsAuthError(GetAs(member.token, "/api/activity"), 403, "FORBIDDEN", ""));
  ASSERT_EQ(AdminPost("set-role", {{"userId", member.user_id}, {"role", "admin"}}).status, 200);
  EXPECT_EQ(GetAs(member.token, "/api/activity").status, 200);

  const auto by_cookie = auth_->GetWithCookie(admin_.cookie_value, "/api/activity");
  EXPECT_EQ(by_cookie.status, 200) << by_cookie.body;
}

TEST_F(ActivityApiTest, ListAndDetailHaveTheDocumentedShape) {
  const Account member = auth_->NewAccount("mia@example.com", "member password", "Mia Member");
  const std::int64_t record_event = InsertRecordEvent("update", "notes", 7, member.user_id, kT0);

  const json::object page = List();
  EXPECT_EQ(page.size(), 2u);
  const json::object& pagination = page.at("pagination").as_object();
  EXPECT_EQ(pagination.size(), 4u);
  EXPECT_TRUE(pagination.at("total").is_int64());
  EXPECT_EQ(pagination.at("page"), 1);
  EXPECT_EQ(pagination.at("pageSize"), 50);  // the default
  EXPECT_TRUE(pagination.at("totalPages").is_int64());

  for (const auto& value : page.at("activities").as_array()) {
    const json::object& entry = value.as_object();
    EXPECT_TRUE(entry.at("id").is_string()) << entry;
    EXPECT_TRUE(entry.at("action").is_string()) << entry;
    EXPECT_TRUE(entry.contains("tableName")) << entry;
    EXPECT_TRUE(time::ParseIso(entry.at("createdAt").as_string())) << entry;
    EXPECT_TRUE(entry.at("user").is_null() || entry.at("user").as_object().size() == 3) << entry;
    // Auth events name no record: recordId is absent, not null.
    if (entry.at("tableName").is_null()) {
      EXPECT_FALSE(entry.contains("recordId")) << entry;
    }
    // The list leaves the detail out.
    EXPECT_FALSE(entry.contains("changes") || entry.contains("metadata") ||
                 entry.contains("ipAddress") || entry.contains("userAgent"))
        << entry;
  }

  const auto entries = Entries("?table=notes");
  ASSERT_EQ(entries.size(), 1u);
  const json::object& entry = entries.front();
  EXPECT_EQ(entry.at("id"), json::value(std::to_string(record_event)));
  EXPECT_EQ(entry.at("action"), "update");
  EXPECT_EQ(entry.at("tableName"), "notes");
  EXPECT_EQ(entry.at("recordId"), 7);
  EXPECT_EQ(entry.at("createdAt"), "2001-01-01T00:00:00.000Z");
  EXPECT_EQ(entry.at("user"), json::parse(R"({"id":")" + member.user_id +
                                          R"(","name":"Mia Member","email":"mia@example.com"})"));

  const json::object detail = Detail(entry);
  EXPECT_EQ(detail.size(), 10u) << detail;
  for (const auto& [key, value] : entry) EXPECT_EQ(detail.at(key), value) << key;
  EXPECT_EQ(detail.at("changes"), json::parse(R"({"before":null,"after":{"title":"t"}})"));
  EXPECT_TRUE(detail.at("ipAddress").is_null());
  EXPECT_TRUE(detail.at("userAgent").is_null());
  EXPECT_TRUE(detail.at("metadata").is_null());
}

TEST_F(ActivityApiTest, UnknownIdsAre404) {
  const std::int64_t id = InsertRecordEvent("create", "notes", 1, admin_.user_id, kT0);
  EXPECT_EQ(GetAs(admin_.token, "/api/activity/" + std::to_string(id)).status, 200);
  for (const std::string& bad :
       {std::to_string(id + 1000), std::string("0"), std::string("-1"), std::string("abc"),
        std::string("1e3"), std::string("%201"), std::string("99999999999999999999999")}) {
    EXPECT_TRUE(IsAuthError(GetAs(admin_.token, "/api/activity/" + bad), 404, "NOT_FOUND", ""))
        << bad;
  }
}

// --- Filters and pages ------------------------------------------------------------------------

TEST_F(ActivityApiTest, FiltersByTableActionUserAndTime) {
  const Account member = auth_->NewAccount("mia@example.com", "member password");
  const auto n1 = InsertRecordEvent("create", "notes", 1, member.user_id, kT0);
  const auto n2 = InsertRecordEvent("update", "notes", 1, admin_.user_id, kT0 + 1 * kMinute);
  const auto t1 = InsertRecordEvent("create", "tasks", 4, member.user_id, kT0 + 2 * kMinute);
  const auto n3 = InsertRecordEvent("delete", "notes", 1, member.user_id, kT0 + 3 * kMinute);
  const auto next_day =
      InsertRecordEvent("restore", "notes", 1, member.user_id, kT0 + 1440 * kMinute);

  const auto ids = [&](const std::string& query) {
    std::vector<std::string> out;
    for (const auto& entry : Entries(query)) out.emplace_back(entry.at("id").as_string());
    return out;
  };
  const auto s = [](std::int64_t id) { return std::to_string(id); };
  using Ids = std::vector<std::string>;

  EXPECT_EQ(ids("?table=notes"), (Ids{s(next_day), s(n3), s(n2), s(n1)}));
  EXPECT_EQ(ids("?tableName=notes"), (Ids{s(next_day), s(n3), s(n2), s(n1)}));
  EXPECT_EQ(ids("?table=tasks"), (Ids{s(t1)}));
  EXPECT_TRUE(ids("?table=nothing").empty());
  EXPECT_EQ(ids("?table=notes&action=create"), (Ids{s(n1)}));
  EXPECT_EQ(ids("?action=update&table=notes"), (Ids{s(n2)}));
  EXPECT_EQ(ids("?table=notes&userId=" + member.user_id), (Ids{s(next_day), s(n3), s(n1)}));
  EXPECT_EQ(ids("?table=notes&userId=" + admin_.user_id), (Ids{s(n2)}));
  // The auth events of the member: sign_up only (its own session came with it).
  EXPECT_EQ(Entries("?userId=" + member.user_id + "&action=sign_up").size(), 1u);

  // Times: inclusive bounds, an offset (sent as %2B or as a raw +, which reads as a space), or
  // a date alone meaning the whole day.
  EXPECT_EQ(ids("?from=2001-01-01T00:01:00Z&to=2001-01-01T00:03:00.000Z"),
            (Ids{s(n3), s(t1), s(n2)}));
  EXPECT_EQ(ids("?from=2001-01-01T00:01:00.001Z&to=2001-01-01T00:02:59.999Z"), (Ids{s(t1)}));
  EXPECT_EQ(ids("?from=2001-01-01T01:01:00%2B01:00&to=2001-01-01T01:02:00+01:00"),
            (Ids{s(t1), s(n2)}));
  EXPECT_EQ(ids("?to=2001-01-01"), (Ids{s(n3), s(t1), s(n2), s(n1)}));
  EXPECT_EQ(ids("?from=2001-01-02&to=2001-01-02"), (Ids{s(next_day)}));
  EXPECT_EQ(ids("?from=2001-01-01&to=2001-01-02&table=notes&action=restore"), (Ids{s(next_day)}));
  // Everything today is after 2001.
  const auto recent = List("?from=2002-01-01").at("pagination").at("total").as_int64();
  EXPECT_EQ(recent, List().at("pagination").at("total").as_int64() - 5);

  // An empty value is no filter.
  EXPECT_EQ(List("?table=&action=&userId=&from=&to=").at("pagination").at("total"),
            List().at("pagination").at("total"));
}

TEST_F(ActivityApiTest, BadParametersAre400sNamingThem) {
  for (const auto& [query, parameter] : std::vector<std::pair<std::string, std::string>>{
           {"page=0", "page"},
           {"page=-1", "page"},
           {"page=abc", "page"},
           {"page=1.5", "page"},
           {"page=2147483648", "page"},
           {"pageSize=0", "pageSize"},
           {"pageSize=101", "pageSize"},
           {"pageSize=ten", "pageSize"},
           {"from=yesterday", "from"},
           {"from=2001-01-01T00:00:00", "from"},  // no offset: ambiguous
           {"to=2001-13-01", "to"},
           {"to=2001-02-30T00:00:00Z", "to"},
           {"from=2001-01-02&to=2001-01-01", "from"},
       }) {
    EXPECT_TRUE(IsInvalidParameter(GetAs(admin_.token, "/api/activity?" + query), parameter))
        << query;
  }
  EXPECT_EQ(GetAs(admin_.token, "/api/activity?pageSize=100").status, 200);
  EXPECT_EQ(GetAs(admin_.token, "/api/activity?pageSize=1&page=2147483647").status, 200);
}

TEST_F(ActivityApiTest, PagesCarryTheirTotalsAndRunEmptyPastTheEnd) {
  std::vector<std::int64_t> ids;  // oldest first
  for (int i = 0; i < 7; ++i) ids.push_back(InsertRecordEvent("create", "pager", i, "", kT0 + i));
  const auto page = [&](int number, int size) {
    return List("?table=pager&page=" + std::to_string(number) +
                "&pageSize=" + std::to_string(size));
  };
  const auto ids_of = [](const json::object& list) {
    std::vector<std::string> out;
    for (const auto& entry : list.at("activities").as_array()) {
      out.emplace_back(entry.at("id").as_string());
    }
    return out;
  };
  const auto pagination = [](std::int64_t total, int number, int size, std::int64_t pages) {
    return json::value{
        {"total", total}, {"page", number}, {"pageSize", size}, {"totalPages", pages}};
  };
  const auto s = [](std::int64_t id) { return std::to_string(id); };
  using Ids = std::vector<std::string>;

  auto list = page(1, 3);
  EXPECT_EQ(ids_of(list), (Ids{s(ids[6]), s(ids[5]), s(ids[4])}));
  EXPECT_EQ(list.at("pagination"), pagination(7, 1, 3, 3));
  list = page(3, 3);
  EXPECT_EQ(ids_of(list), (Ids{s(ids[0])}));
  EXPECT_EQ(list.at("pagination"), pagination(7, 3, 3, 3));
  list = page(4, 3);  // past the end: empty, the totals still right
  EXPECT_TRUE(ids_of(list).empty());
  EXPECT_EQ(list.at("pagination"), pagination(7, 4, 3, 3));
  list = page(1000, 100);
  EXPECT_TRUE(ids_of(list).empty());
  EXPECT_EQ(list.at("pagination"), pagination(7, 1000, 100, 1));
  list = page(1, 7);
  EXPECT_EQ(ids_of(list).size(), 7u);
  EXPECT_EQ(list.at("pagination"), pagination(7, 1, 7, 1));

  list = List("?table=nothing");
  EXPECT_TRUE(ids_of(list).empty());
  EXPECT_EQ(list.at("pagination"), pagination(0, 1, 50, 0));

  // More than a default page: 50 by default, up to 100 on request.
  for (int i = 0; i < 60; ++i) InsertRecordEvent("update", "pager", i, "", kT0 + 100 + i);
  EXPECT_EQ(List("?table=pager").at("activities").as_array().size(), 50u);
  EXPECT_EQ(List("?table=pager&pageSize=100").at("activities").as_array().size(), 67u);
  EXPECT_EQ(List("?table=pager").at("pagination"), pagination(67, 1, 50, 2));
}

// --- What the auth surface records ------------------------------------------------------------

TEST_F(ActivityApiTest, SignUpSignInAndSignOutNameTheUserAndTheRequest) {
  const auto signed_up =
      auth_->SignUp("Mia Member", "mia@example.com", "member password", {{"User-Agent", kAgent}});
  ASSERT_EQ(signed_up.status, 200) << signed_up.body;
  const std::string member_id(signed_up.Json().at("user").at("id").as_string());
  const std::string first_token(signed_up.Json().at("token").as_string());
  const auto signed_in =
      auth_->SignIn("mia@example.com", "member password", "", {{"User-Agent", kAgent}});
  ASSERT_EQ(signed_in.status, 200) << signed_in.body;
  const std::string second_token(signed_in.Json().at("token").as_string());
  // Failed sign-ins and duplicate sign-ups change nothing and record nothing.
  EXPECT_EQ(auth_->SignIn("mia@example.com", "wrong password").status, 401);
  EXPECT_EQ(auth_->SignUp("Again", "mia@example.com", "member password").status, 422);
  ASSERT_EQ(PostAs(second_token, "/api/auth/sign-out").status, 200);
  // Signing out without a session records nothing either.
  ASSERT_EQ(Client().PostJson("/api/auth/sign-out", "{}", {{"Origin", auth_->Origin()}}).status,
            200);

  const json::value member_user =
      json::parse(R"({"id":")" + member_id + R"(","name":"Mia Member","email":"mia@example.com"})");
  const json::object sign_up = OnlyWithAction("sign_up");
  EXPECT_EQ(sign_up.at("user"), member_user);
  EXPECT_TRUE(sign_up.at("tableName").is_null());
  const json::object sign_up_detail = Detail(sign_up);
  EXPECT_EQ(sign_up_detail.at("ipAddress"), "127.0.0.1");
  EXPECT_EQ(sign_up_detail.at("userAgent"), kAgent);
  EXPECT_TRUE(sign_up_detail.at("changes").is_null());

  // The admin's sign-in in SetUp and the member's.
  const auto sign_ins = WithAction("sign_in");
  ASSERT_EQ(sign_ins.size(), 2u);
  EXPECT_EQ(sign_ins[0].at("user"), member_user);
  EXPECT_EQ(sign_ins[1].at("user").at("id"), json::value(admin_.user_id));
  EXPECT_EQ(sign_ins[1].at("user").at("name"), kAdminName);
  EXPECT_EQ(Detail(sign_ins[0]).at("userAgent"), kAgent);
  EXPECT_TRUE(Metadata(sign_ins[0]).at("sessionId").is_string());

  const json::object sign_out = OnlyWithAction("sign_out");
  EXPECT_EQ(sign_out.at("user"), member_user);
  const json::object sign_out_detail = Detail(sign_out);
  EXPECT_EQ(sign_out_detail.at("ipAddress"), "127.0.0.1");
  EXPECT_EQ(sign_out_detail.at("userAgent"), kAgent);
  EXPECT_EQ(sign_out_detail.at("metadata").at("sessionId"), Metadata(sign_ins[0]).at("sessionId"));

  // The first admin came from the settings: the system created them, no user acted.
  const json::object created = OnlyWithAction("user.create");
  EXPECT_TRUE(created.at("user").is_null());
  EXPECT_EQ(Metadata(created), (json::object{{"targetUserId", admin_.user_id}, {"role", "admin"}}));

  ExpectNoSecrets({"member password", "wrong password", kAdminPassword, first_token, second_token,
                   admin_.token, SignatureOf(first_token)});
}

TEST_F(ActivityApiTest, SessionRevocationsAreRecordedWithTheirScope) {
  const Account first = auth_->NewAccount("mia@example.com", "member password");
  const Account second = auth_->SignInOk(first.email, first.password);
  const Account third = auth_->SignInOk(first.email, first.password);
  const Account fourth = auth_->SignInOk(first.email, first.password);

  // One session, by its token: scope one.
  ASSERT_EQ(
      PostAs(fourth.token, "/api/auth/revoke-session", Serialize({{"token", second.token}})).status,
      200);
  // Revoking a session that is already gone ends nothing and records nothing.
  ASSERT_EQ(
      PostAs(fourth.token, "/api/auth/revoke-session", Serialize({{"token", second.token}})).status,
      200);
  // Every other one: scope others (first and third).
  ASSERT_EQ(PostAs(fourth.token, "/api/auth/revoke-other-sessions").status, 200);
  ASSERT_EQ(PostAs(fourth.token, "/api/auth/revoke-other-sessions").status, 200);  // none left
  const Account fifth = auth_->SignInOk(first.email, first.password);
  // All of them: scope all (fourth and fifth).
  ASSERT_EQ(PostAs(fifth.token, "/api/auth/revoke-sessions").status, 200);

  const auto revoked = WithAction("session_revoked");
  ASSERT_EQ(revoked.size(), 3u);
  for (const auto& entry : revoked)
    EXPECT_EQ(entry.at("user").at("id"), json::value(first.user_id));
  const json::object all = Detail(revoked[0]);
  EXPECT_EQ(all.at("metadata"), (json::object{{"scope", "all"}, {"count", 2}}));
  EXPECT_EQ(all.at("userAgent"), kAgent);
  EXPECT_EQ(Metadata(revoked[1]), (json::object{{"scope", "others"}, {"count", 2}}));
  const json::object one = Metadata(revoked[2]);
  EXPECT_EQ(one.at("scope"), "one");
  EXPECT_TRUE(one.at("sessionId").is_string());
  EXPECT_FALSE(one.contains("targetUserId"));  // the caller's own session

  // An admin ending someone else's sessions: the admin acts, the member is the target.
  const Account again = auth_->SignInOk(first.email, first.password);
  ASSERT_EQ(AdminPost("revoke-user-sessions", {{"userId", first.user_id}}).status, 200);
  const json::object by_admin = WithAction("session_revoked").front();
  EXPECT_EQ(by_admin.at("user").at("id"), json::value(admin_.user_id));
  EXPECT_EQ(Metadata(by_admin),
            (json::object{{"scope", "all"}, {"count", 1}, {"targetUserId", first.user_id}}));

  const Account last = auth_->SignInOk(first.email, first.password);
  ASSERT_EQ(AdminPost("revoke-user-session", {{"sessionToken", last.token}}).status, 200);
  const json::object one_by_admin = Metadata(WithAction("session_revoked").front());
  EXPECT_EQ(one_by_admin.at("scope"), "one");
  EXPECT_EQ(one_by_admin.at("targetUserId"), json::value(first.user_id));

  ExpectNoSecrets({"member password", first.token, second.token, third.token, fourth.token,
                   fifth.token, again.token, last.token,
                   auth::SessionTokenCodec::Hash(second.token)});
}

TEST_F(ActivityApiTest, PasswordResetIsRecordedForTheAccountWithoutTheToken) {
  const Account member = auth_->NewAccount("forgot@example.com", "member password");
  ASSERT_EQ(Client()
                .PostJson("/api/auth/request-password-reset", R"({"email":"forgot@example.com"})")
                .status,
            200);
  ASSERT_EQ(auth_->OutboxSize(), 1u);
  const std::string link = FirstLink(auth_->LastMail().text);
  const std::string token = link.substr(link.rfind('/') + 1);
  // A wrong token changes nothing and records nothing.
  EXPECT_EQ(Client()
                .PostJson("/api/auth/reset-password",
                          R"({"newPassword":"fresh start 99","token":"wrong"})")
                .status,
            400);
  const auto reset = Client().PostJson(
      "/api/auth/reset-password", R"({"newPassword":"fresh start 99","token":")" + token + R"("})",
      {{"User-Agent", kAgent}});
  ASSERT_EQ(reset.status, 200) << reset.body;

  const json::object entry = OnlyWithAction("password_reset");
  EXPECT_EQ(entry.at("user").at("id"), json::value(member.user_id));
  const json::object detail = Detail(entry);
  EXPECT_EQ(detail.at("userAgent"), kAgent);
  EXPECT_EQ(detail.at("metadata"), (json::object{{"sessionsRevoked", 1}}));

  // An admin setting a password is a reset by the admin.
  ASSERT_EQ(AdminPost("set-user-password",
                      {{"userId", member.user_id}, {"newPassword", "admin chose this"}})
                .status,
            200);
  const json::object by_admin = WithAction("password_reset").front();
  EXPECT_EQ(by_admin.at("user").at("id"), json::value(admin_.user_id));
  EXPECT_EQ(Metadata(by_admin), (json::object{{"targetUserId", member.user_id}}));

  ExpectNoSecrets({"member password", "fresh start 99", "admin chose this", token, member.token,
                   auth::SessionTokenCodec::Hash(token)});
}

TEST_F(ActivityApiTest, AdminActionsNameTheAdminAndTheTarget) {
  const auto created = AdminPost("create-user", {{"email", "ed@example.com"},
                                                 {"name", "Ed Editor"},
                                                 {"password", "editor password"},
                                                 {"role", "editor"}});
  ASSERT_EQ(created.status, 200) << created.body;
  const std::string ed(created.Json().at("user").at("id").as_string());
  ASSERT_EQ(AdminPost("set-role", {{"userId", ed}, {"role", "member"}}).status, 200);
  ASSERT_EQ(
      AdminPost("ban-user", {{"userId", ed}, {"banReason", "spam"}, {"banExpiresIn", 3600}}).status,
      200);
  ASSERT_EQ(AdminPost("unban-user", {{"userId", ed}}).status, 200);
  // A role change through update-user is a role change too; other changes are not.
  ASSERT_EQ(AdminPost("update-user", {{"userId", ed}, {"data", {{"role", "viewer"}}}}).status, 200);
  ASSERT_EQ(AdminPost("update-user", {{"userId", ed}, {"data", {{"name", "Ed"}}}}).status, 200);
  // Refused actions record nothing.
  EXPECT_EQ(AdminPost("set-role", {{"userId", ed}, {"role", "nope"}}).status, 400);
  EXPECT_EQ(AdminPost("ban-user", {{"userId", admin_.user_id}}).status, 400);

  const auto is_admin = [&](const json::object& entry) {
    return entry.at("user").is_object() && entry.at("user").at("id") == json::value(admin_.user_id);
  };
  const json::object create = WithAction("user.create").front();
  EXPECT_TRUE(is_admin(create)) << create;
  const json::object create_detail = Detail(create);
  EXPECT_EQ(create_detail.at("metadata"), (json::object{{"targetUserId", ed}, {"role", "editor"}}));
  EXPECT_EQ(create_detail.at("userAgent"), kAgent);
  EXPECT_EQ(create_detail.at("ipAddress"), "127.0.0.1");

  const auto roles = WithAction("user.set_role");
  ASSERT_EQ(roles.size(), 2u);
  for (const auto& entry : roles) EXPECT_TRUE(is_admin(entry)) << entry;
  const json::object to_viewer = Detail(roles[0]);
  EXPECT_EQ(to_viewer.at("metadata"), (json::object{{"targetUserId", ed}, {"role", "viewer"}}));
  EXPECT_EQ(to_viewer.at("changes"),
            json::parse(R"({"before":{"role":"member"},"after":{"role":"viewer"}})"));
  const json::object to_member = Detail(roles[1]);
  EXPECT_EQ(to_member.at("metadata"), (json::object{{"targetUserId", ed}, {"role", "member"}}));
  EXPECT_EQ(to_member.at("changes"),
            json::parse(R"({"before":{"role":"editor"},"after":{"role":"member"}})"));

  const json::object ban = OnlyWithAction("user.ban");
  EXPECT_TRUE(is_admin(ban));
  const json::object ban_metadata = Metadata(ban);
  EXPECT_EQ(ban_metadata.at("targetUserId"), json::value(ed));
  EXPECT_EQ(ban_metadata.at("banReason"), "spam");
  EXPECT_TRUE(time::ParseIso(ban_metadata.at("banExpires").as_string()));
  EXPECT_EQ(ban_metadata.at("sessionsRevoked"), 0);

  const json::object unban = OnlyWithAction("user.unban");
  EXPECT_TRUE(is_admin(unban));
  EXPECT_EQ(Metadata(unban), (json::object{{"targetUserId", ed}}));

  ExpectNoSecrets({"editor password", kAdminPassword, admin_.token});
}

TEST_F(ActivityApiTest, ErasedActorsLeaveTheirEntriesWithoutAUser) {
  const Account member = auth_->NewAccount("gone@example.com", "member password");
  auth_->SignInOk(member.email, member.password);
  InsertRecordEvent("create", "notes", 1, member.user_id, kT0);
  ASSERT_EQ(Entries("?userId=" + member.user_id).size(), 3u);  // sign_up, sign_in, create

  ASSERT_EQ(AdminPost("remove-user", {{"userId", member.user_id}}).status, 200);
  // The entries stay, their actor is gone (D50 rules 2 and 3).
  EXPECT_TRUE(Entries("?userId=" + member.user_id).empty());
  EXPECT_EQ(WithAction("sign_up").size(), 1u);
  const json::object sign_up = OnlyWithAction("sign_up");
  EXPECT_TRUE(sign_up.at("user").is_null());
  EXPECT_TRUE(Entries("?table=notes").front().at("user").is_null());
  const json::object removed = OnlyWithAction("user.remove");
  EXPECT_EQ(removed.at("user").at("id"), json::value(admin_.user_id));
  EXPECT_EQ(Metadata(removed), (json::object{{"targetUserId", member.user_id}}));
}

TEST_F(ActivityApiTest, DeletingOnesOwnAccountLeavesAnErasureRecord) {
  const Account member = auth_->NewAccount("leaving@example.com", "member password");
  ASSERT_EQ(
      PostAs(member.token, "/api/auth/delete-user", Serialize({{"password", "member password"}}))
          .status,
      200);
  const json::object purged = OnlyWithAction("account.deletion.purged");
  EXPECT_TRUE(purged.at("user").is_null());
  const json::object detail = Detail(purged);
  EXPECT_EQ(detail.at("metadata"),
            (json::object{{"userId", member.user_id}, {"requestedBy", "user"}}));
  // Nothing else about the person: no address, no user agent.
  EXPECT_TRUE(detail.at("ipAddress").is_null());
  EXPECT_TRUE(detail.at("userAgent").is_null());
  EXPECT_TRUE(OnlyWithAction("sign_up").at("user").is_null());
  ExpectNoSecrets({"member password", member.token, "leaving@example.com"});
}

}  // namespace
}  // namespace cairn::test
