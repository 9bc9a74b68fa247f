// Publishing a change of `auth`, `buckets` or `analytics` applies it without a restart (D51):
// the services built from them are part of the version's snapshot. Over HTTP on the backend of
// this run: a strategy, two-factor, roles and an OAuth provider turned on and used at once (its
// table created by the publish), sessions that outlive the swaps, a bucket added and uploaded
// to, its limit changed, analytics turned on, changed and off (routes, tables, the retention
// job), the purge job on the served auth service, the one refusal left (adding or removing
// `auth`), and (PostgreSQL) a second node that follows.
#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <string>
#include <thread>
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
constexpr const char* kChrome =
    "Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) "
    "Chrome/120.0.0.0 Safari/537.36";
constexpr std::int64_t kDay = 24LL * 60 * 60 * 1000;

constexpr const char* kConfig = R"(
name: live-app
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
)";

// The schema API on, the first admin, and (when `google`) Google's credentials in the
// environment the way the operator gives them: never in the config.
TestAppOptions Options(bool google = false) {
  TestAppOptions options = AuthAppOptionsWithConfig(kConfig, kAdminEmail, kAdminPassword);
  auto base = options.tune_settings;
  options.tune_settings = [base, google](app::Settings& settings) {
    base(settings);
    settings.schema_edit_api_enabled = true;
    settings.env = [google](const char* name) -> std::optional<std::string> {
      const std::string_view wanted(name);
      if (google && (wanted == "GOOGLE_CLIENT_ID" || wanted == "GOOGLE_CLIENT_SECRET")) {
        return "from-the-environment";
      }
      return std::nullopt;
    };
  };
  return options;
}

class LiveApp : public SchemaAdminApp {
 public:
  explicit LiveApp(TestAppOptions options)
      : SchemaAdminApp(std::move(options), kAdminEmail, kAdminPassword) {}

  // Publishes the draft; the new version number.
  std::int64_t Publish() {
    const json::value published = Ok("POST", kSchemaBase + "/draft/publish", "{}");
    return published.is_object() ? published.at("version").as_int64() : 0;
  }

  bool HasTable(const std::string& table) {
    bool found = false;
    const Status status = app().app().database().Transaction(
        db::Access::kRead, [&](db::Connection& connection) -> Status {
          CAIRN_ASSIGN_OR_RETURN(auto live, connection.dialect().introspector().Read(connection));
          found = live.FindTable(table) != nullptr;
          return {};
        });
    EXPECT_TRUE(status.ok());
    return found;
  }

  HttpResult RequestMagicLink(const std::string& email) {
    return auth().Client().PostJson("/api/auth/sign-in/magic-link",
                                    R"({"email":")" + email + R"("})");
  }

  // Signs an upload into `bucket` as the admin and PUTs `bytes` (text).
  HttpResult Upload(const std::string& bucket, const std::string& path, const std::string& bytes) {
    const HttpResult signed_url = Send("POST", "/api/buckets/" + bucket + "/sign",
                                       R"({"path":")" + path + R"(","operation":"upload"})");
    if (signed_url.status != 200) return signed_url;
    return auth().Client().Request(
        "PUT", TargetOf(std::string(signed_url.Json().at("signedUrl").as_string())), bytes,
        {{"Content-Type", "text/plain"}});
  }

  HttpResult Download(const std::string& bucket, const std::string& path) {
    const HttpResult signed_url = Send("POST", "/api/buckets/" + bucket + "/sign",
                                       R"({"path":")" + path + R"(","operation":"download"})");
    if (signed_url.status != 200) return signed_url;
    return auth().Client().Get(
        TargetOf(std::string(signed_url.Json().at("signedUrl").as_string())));
  }

  HttpResult Collect(const std::string& path) {
    return auth().Client().PostJson("/api/analytics/collect", R"({"p":")" + path + R"("})",
                                    {{"User-Agent", kChrome}});
  }
};

std::string RoleOf(LiveApp& live, const std::string& token) {
  const HttpResult session = live.auth().GetAs(token, "/api/auth/get-session");
  EXPECT_EQ(session.status, 200) << session.body;
  const json::value body = session.Json();
  if (!body.is_object()) return {};
  return std::string(body.at("user").at("role").as_string());
}

// --- auth -------------------------------------------------------------------------------------

TEST(LiveAuth, AStrategyTurnedOnIsUsableAtOnceAndSessionsOutliveTheSwap) {
  LiveApp live(Options());
  const Account early = live.auth().NewAccount("early@example.com");
  EXPECT_EQ(live.RequestMagicLink("new@example.com").status, 404);

  live.Ok("POST", kSchemaBase + "/draft/auth/strategies", R"({"type":"magicLink"})");
  EXPECT_EQ(live.Ok("GET", kSchemaBase + "/draft/auth/strategies/magicLink").at("type"),
            "magicLink");
  EXPECT_EQ(live.Ok("GET", kSchemaBase + "/draft/auth/strategies").at("items").as_array().size(),
            2u);
  ASSERT_EQ(live.Publish(), 2);

  // The link is mailed by the version just published and signs in.
  const std::size_t before = live.auth().OutboxSize();
  const HttpResult requested = live.RequestMagicLink("new@example.com");
  ASSERT_EQ(requested.status, 200) << requested.body;
  ASSERT_EQ(live.auth().OutboxSize(), before + 1);
  const std::string link = FirstLink(live.auth().LastMail().text);
  const HttpResult verified =
      live.auth().Client().Get("/api/auth/magic-link/verify?token=" + QueryParam(link, "token"));
  ASSERT_EQ(verified.status, 200) << verified.body;
  const std::string token(verified.Json().at("token").as_string());
  EXPECT_EQ(live.auth().GetAs(token, "/api/auth/get-session").Json().at("user").at("email"),
            "new@example.com");

  // Sessions made before the publish are still valid, by Bearer token and by cookie.
  EXPECT_EQ(live.auth().GetAs(early.token, "/api/auth/get-session").Json().at("user").at("id"),
            json::value(early.user_id));
  EXPECT_EQ(live.auth()
                .GetWithCookie(early.cookie_value, "/api/auth/get-session")
                .Json()
                .at("user")
                .at("id"),
            json::value(early.user_id));
  EXPECT_EQ(live.Send("GET", "/api/tables/notes/records", {}, early.token).status, 200);

  // And off again: the routes go with the version.
  live.Ok("DELETE", kSchemaBase + "/draft/auth/strategies/magicLink");
  ASSERT_EQ(live.Publish(), 3);
  EXPECT_EQ(live.RequestMagicLink("new@example.com").status, 404);
  EXPECT_EQ(live.auth().GetAs(token, "/api/auth/get-session").Json().at("user").at("email"),
            "new@example.com");
}

TEST(LiveAuth, RolesDefaultRoleAndTwoFactorApplyOnPublish) {
  LiveApp live(Options());
  const Account member = live.auth().NewAccount("member@example.com");
  EXPECT_EQ(RoleOf(live, member.token), "member");
  EXPECT_EQ(
      live.auth()
          .PostAs(member.token, "/api/auth/two-factor/enable", R"({"password":"correct horse 1"})")
          .status,
      404);

  live.Ok("POST", kSchemaBase + "/draft/auth/roles", R"({"name":"editor","description":"Edits"})");
  EXPECT_EQ(live.Send("POST", kSchemaBase + "/draft/auth/roles", R"({"name":"editor"})").status,
            409);
  live.Ok("PATCH", kSchemaBase + "/draft/auth", R"({"defaultRole":"editor","twoFactor":true})");
  EXPECT_EQ(live.Ok("GET", kSchemaBase + "/draft/auth").at("value").at("defaultRole"), "editor");
  ASSERT_EQ(live.Publish(), 2);

  // A sign-up gets the new default role; an admin may give the new role.
  const Account editor = live.auth().NewAccount("editor@example.com");
  EXPECT_EQ(RoleOf(live, editor.token), "editor");
  const HttpResult set_role =
      live.auth().PostAs(live.admin(), "/api/auth/admin/set-role",
                         R"({"userId":")" + member.user_id + R"(","role":"editor"})");
  EXPECT_EQ(set_role.status, 200) << set_role.body;
  // Two-factor's routes exist now, labelled with the app's name.
  const HttpResult enabled = live.auth().PostAs(member.token, "/api/auth/two-factor/enable",
                                                R"({"password":"correct horse 1"})");
  ASSERT_EQ(enabled.status, 200) << enabled.body;
  EXPECT_NE(std::string(enabled.Json().at("totpURI").as_string()).find("issuer=live-app"),
            std::string::npos);
}

TEST(LiveAuth, AnOAuthProviderNeedsItsCredentialsAndGetsItsTableInThePublish) {
  LiveApp live(Options(/*google=*/true));
  EXPECT_FALSE(live.HasTable("_cairn_auth_oauth_states"));
  // GitHub's credentials are not in the environment: validation and publish name the provider.
  live.Ok("POST", kSchemaBase + "/draft/auth/strategies",
          R"({"type":"oauth","providers":["google","github"]})");
  const json::value validation = live.Ok("POST", kSchemaBase + "/draft/validate");
  EXPECT_EQ(validation.at("valid"), false);
  EXPECT_EQ(validation.at("errors").at(0).at("path"), "auth.strategies[1].providers[1]")
      << validation;
  const HttpResult refused = live.Send("POST", kSchemaBase + "/draft/publish", "{}");
  ASSERT_EQ(refused.status, 400) << refused.body;
  EXPECT_EQ(refused.Json().at("errors").at(0).at("field"), "auth.strategies[1].providers[1]");
  EXPECT_NE(refused.body.find("GITHUB_CLIENT_ID"), std::string::npos) << refused.body;
  EXPECT_FALSE(live.HasTable("_cairn_auth_oauth_states"));
  EXPECT_EQ(live.Ok("GET", kSchemaBase + "/status").at("activeVersion"), 1);

  // Google's are: its sign-in starts at once, its pending state in the table the publish made.
  live.Ok("PATCH", kSchemaBase + "/draft/auth/strategies/oauth", R"({"providers":["google"]})");
  ASSERT_EQ(live.Publish(), 2);
  EXPECT_TRUE(live.HasTable("_cairn_auth_oauth_states"));
  const std::string origin = live.auth().Origin();
  const HttpResult started = live.auth().Client().PostJson(
      "/api/auth/sign-in/social", R"({"provider":"google","callbackURL":")" + origin + R"(/home"})",
      {{"Origin", origin}});
  ASSERT_EQ(started.status, 200) << started.body;
  EXPECT_EQ(std::string(started.Json().at("url").as_string())
                .rfind("https://accounts.google.com/o/oauth2/v2/auth?", 0),
            0u);
  EXPECT_EQ(live.auth().Count(R"(SELECT COUNT(*) FROM "_cairn_auth_oauth_states")"), 1);
}

TEST(LiveAuth, AddingOrRemovingTheAuthSectionIsTheOneRefusal) {
  LiveApp live(Options());
  live.Ok("DELETE", kSchemaBase + "/draft/auth");
  const json::value validation = live.Ok("POST", kSchemaBase + "/draft/validate");
  EXPECT_EQ(validation.at("errors").at(0).at("path"), "auth") << validation;
  const HttpResult refused = live.Send("POST", kSchemaBase + "/draft/publish", "{}");
  ASSERT_EQ(refused.status, 400);
  EXPECT_EQ(refused.Json().at("code"), "VALIDATION_ERROR") << refused.body;
  EXPECT_EQ(refused.Json().at("errors").at(0).at("field"), "auth") << refused.body;
  EXPECT_NE(refused.body.find("RESTART_REQUIRED"), std::string::npos) << refused.body;
  // The scalar keys have their routes too.
  live.Ok("POST", kSchemaBase + "/draft/discard");
  live.Ok("POST", kSchemaBase + "/draft/description", R"("A live app")");
  EXPECT_EQ(live.Ok("GET", kSchemaBase + "/draft/description").at("value"), "A live app");
  ASSERT_EQ(live.Publish(), 2);
}

TEST(LiveAuth, SessionsKeepWorkingWhileAuthChangesArePublished) {
  LiveApp live(Options());
  const Account reader = live.auth().NewAccount("reader@example.com");
  std::atomic<bool> stop{false};
  std::atomic<int> served{0};
  std::atomic<int> failed{0};
  std::thread client([&] {
    while (!stop.load()) {
      const HttpResult session = live.auth().GetAs(reader.token, "/api/auth/get-session");
      const json::value body = session.Json();
      const bool ok = session.status == 200 && body.is_object() &&
                      body.at("user").at("id") == json::value(reader.user_id);
      ++(ok ? served : failed);
    }
  });
  for (int round = 0; round < 6; ++round) {
    if (round % 2 == 0) {
      live.Ok("POST", kSchemaBase + "/draft/auth/strategies", R"({"type":"emailOtp"})");
    } else {
      live.Ok("DELETE", kSchemaBase + "/draft/auth/strategies/emailOtp");
    }
    live.Ok("PATCH", kSchemaBase + "/draft/auth",
            R"({"allowSignUp":)" + std::string(round % 2 == 0 ? "false" : "true") + "}");
    ASSERT_EQ(live.Publish(), round + 2);
  }
  stop = true;
  client.join();
  EXPECT_EQ(failed.load(), 0);
  EXPECT_GT(served.load(), 0);
}

TEST(LiveAuth, ThePurgeJobRunsOnTheServedAuthService) {
  LiveApp live(Options());
  const Account leaving = live.auth().NewAccount("leaving@example.com");
  const HttpResult deleted = live.auth().PostAs(leaving.token, "/api/auth/delete-user",
                                                R"({"password":"correct horse 1"})");
  ASSERT_EQ(deleted.status, 200) << deleted.body;
  // The service the deletion went through is replaced before the job runs.
  live.Ok("PATCH", kSchemaBase + "/draft/auth", R"({"allowSignUp":false})");
  ASSERT_EQ(live.Publish(), 2);
  auto report = live.app().app().RunPurgeJob(time::NowMillis() + 400 * kDay);
  ASSERT_TRUE(report.ok()) << report.error().message;
  EXPECT_EQ(report->erased_user_ids, std::vector<std::string>{leaving.user_id});
  EXPECT_EQ(live.auth().Count(R"(SELECT COUNT(*) FROM "_cairn_auth_users" WHERE "id" = ?)",
                              {std::string_view(leaving.user_id)}),
            0);
}

// --- buckets ----------------------------------------------------------------------------------

TEST(LiveBuckets, AnAddedBucketServesUploadsAndItsLimitFollowsThePublish) {
  LiveApp live(Options());
  EXPECT_EQ(live.Upload("photos", "a.txt", "hello").status, 404);
  live.Ok("POST", kSchemaBase + "/draft/buckets", R"({"name":"photos"})");
  EXPECT_EQ(live.Send("POST", kSchemaBase + "/draft/buckets", R"({"name":"photos"})").status, 409);
  ASSERT_EQ(live.Publish(), 2);

  const json::value listed = live.Ok("GET", "/api/buckets");
  const auto& buckets = listed.at("buckets").as_array();
  EXPECT_TRUE(std::any_of(buckets.begin(), buckets.end(), [](const json::value& bucket) {
    return bucket.at("name") == "photos";
  })) << listed;
  const HttpResult uploaded = live.Upload("photos", "a.txt", std::string(200, 'a'));
  ASSERT_EQ(uploaded.status, 201) << uploaded.body;
  const HttpResult downloaded = live.Download("photos", "a.txt");
  ASSERT_EQ(downloaded.status, 200) << downloaded.body;
  EXPECT_EQ(downloaded.body, std::string(200, 'a'));

  live.Ok("PATCH", kSchemaBase + "/draft/buckets/photos", R"({"maxFileSize":100})");
  EXPECT_EQ(live.Ok("GET", kSchemaBase + "/draft/buckets/photos").at("maxFileSize"), 100);
  ASSERT_EQ(live.Publish(), 3);
  EXPECT_EQ(live.Upload("photos", "b.txt", std::string(200, 'b')).status, 413);
  EXPECT_EQ(live.Upload("photos", "c.txt", std::string(50, 'c')).status, 201);
  EXPECT_EQ(live.Download("photos", "a.txt").body, std::string(200, 'a'));

  // Removed: its routes answer 404 again; its files stay in the store.
  live.Ok("DELETE", kSchemaBase + "/draft/buckets/photos");
  ASSERT_EQ(live.Publish(), 4);
  EXPECT_EQ(live.Download("photos", "a.txt").status, 404);
}

// --- analytics --------------------------------------------------------------------------------

TEST(LiveAnalytics, TurnedOnChangedAndOffWithItsRoutesTablesAndJob) {
  LiveApp live(Options());
  EXPECT_EQ(live.Collect("/").status, 404);
  EXPECT_FALSE(live.HasTable("_cairn_analytics_events"));
  EXPECT_EQ(live.app().app().RunAnalyticsJob(time::NowMillis()).error().code, ErrorCode::kNotFound);

  live.Ok("POST", kSchemaBase + "/draft/analytics",
          R"({"retentionDays":30,"excludedPaths":["/private/*"]})");
  ASSERT_EQ(live.Publish(), 2);
  EXPECT_TRUE(live.HasTable("_cairn_analytics_events"));
  EXPECT_EQ(live.Collect("/").status, 204);
  EXPECT_EQ(live.Collect("/private/x").status, 204);  // excluded: answered, not recorded
  const json::value events = live.Ok("GET", "/api/analytics/events");
  ASSERT_EQ(events.at("events").as_array().size(), 1u) << events;
  EXPECT_EQ(events.at("events").at(0).at("path"), "/");
  // 30 days' retention keeps a 10-day-old event.
  auto kept = live.app().app().RunAnalyticsJob(time::NowMillis() + 10 * kDay);
  ASSERT_TRUE(kept.ok());
  EXPECT_EQ(kept->events_deleted, 0);

  // Changed: the excluded paths and the retention the job applies are the new version's.
  live.Ok("PATCH", kSchemaBase + "/draft/analytics", R"({"retentionDays":1,"excludedPaths":null})");
  ASSERT_EQ(live.Publish(), 3);
  EXPECT_EQ(live.Collect("/private/y").status, 204);
  EXPECT_EQ(live.Ok("GET", "/api/analytics/events").at("events").as_array().size(), 2u);
  auto deleted = live.app().app().RunAnalyticsJob(time::NowMillis() + 10 * kDay);
  ASSERT_TRUE(deleted.ok());
  EXPECT_EQ(deleted->events_deleted, 2);

  // Off: every analytics route is gone, and so is the job's work.
  live.Ok("POST", kSchemaBase + "/draft/analytics", "false");
  ASSERT_EQ(live.Publish(), 4);
  EXPECT_EQ(live.Collect("/").status, 404);
  EXPECT_EQ(live.Send("GET", "/api/analytics/events").status, 404);
  EXPECT_EQ(live.app().app().RunAnalyticsJob(time::NowMillis()).error().code, ErrorCode::kNotFound);
}

// --- several nodes ----------------------------------------------------------------------------

// Polls `probe` on the other node until it answers `status` (each node checks the active
// version every 250 ms).
bool WaitForStatus(const std::function<int()>& probe, int status) {
  const auto start = std::chrono::steady_clock::now();
  while (std::chrono::steady_clock::now() - start < std::chrono::seconds(10)) {
    if (probe() == status) return true;
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  return false;
}

TEST(LiveNodes, ASecondNodeFollowsAuthBucketsAndAnalytics) {
  if (!IsPostgres()) GTEST_SKIP() << "SQLite is one process";
  LiveApp first(Options());
  TestAppOptions second_options = Options();
  second_options.share_database_with = &first.app();
  LiveApp second(std::move(second_options));
  const Account early = first.auth().NewAccount("early@example.com");

  first.Ok("POST", kSchemaBase + "/draft/auth/strategies", R"({"type":"magicLink"})");
  first.Ok("POST", kSchemaBase + "/draft/buckets", R"({"name":"photos"})");
  first.Ok("POST", kSchemaBase + "/draft/analytics", "true");
  const auto published = std::chrono::steady_clock::now();
  ASSERT_EQ(first.Publish(), 2);
  const auto switched = std::chrono::steady_clock::now();

  EXPECT_TRUE(WaitForStatus([&] { return second.RequestMagicLink("n@example.com").status; }, 200));
  std::printf(
      "publish took %lld ms; the second node served it %lld ms after the publish answered\n",
      static_cast<long long>(
          std::chrono::duration_cast<std::chrono::milliseconds>(switched - published).count()),
      static_cast<long long>(std::chrono::duration_cast<std::chrono::milliseconds>(
                                 std::chrono::steady_clock::now() - switched)
                                 .count()));
  EXPECT_EQ(second.Upload("photos", "a.txt", "from the second node").status, 201);
  EXPECT_EQ(first.Download("photos", "a.txt").body, "from the second node");
  EXPECT_EQ(second.Collect("/").status, 204);
  EXPECT_EQ(second.auth().GetAs(early.token, "/api/auth/get-session").Json().at("user").at("id"),
            json::value(early.user_id));

  // And back, published on the second node. (Polled on a route both versions have: an answer
  // of the old version checked against the new version's documents would not match.)
  second.Ok("POST", kSchemaBase + "/draft/analytics", "false");
  ASSERT_EQ(second.Publish(), 3);
  EXPECT_TRUE(WaitForStatus(
      [&] {
        // The diff names the version this node serves (status reads the database's).
        const json::value diff = first.Ok("GET", kSchemaBase + "/diff");
        return diff.is_object() && diff.at("activeVersion") == 3 ? 200 : 0;
      },
      200));
  EXPECT_EQ(first.Collect("/").status, 404);
}

}  // namespace
}  // namespace cairn::test
