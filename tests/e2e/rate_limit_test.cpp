// Rate limits end to end (D16): the budget of each route group per client address, the 429
// envelope with Retry-After, X-Forwarded-For only from TRUSTED_PROXIES, and on PostgreSQL the
// counters shared by every node on the database. The limiter counts on a clock the test drives
// (TestAppOptions::rate_limit_now_ms; on PostgreSQL the time is a bound parameter of the
// counter upsert), so crossing a window is a clock step, never a sleep.
#include <gtest/gtest.h>

#include <atomic>
#include <memory>
#include <string>

#include <boost/json.hpp>

#include "e2e/auth_test_support.hpp"

namespace cairn::test {
namespace {

namespace json = boost::json;

constexpr const char* kAdminEmail = "root@example.com";
constexpr const char* kAdminPassword = "root password 1";
// The default window of these tests; the clock only moves when a test moves it, so counts are
// exact whatever the window.
constexpr int kLongWindowSeconds = 3600;
// Where the test clock starts: the start of an hour (so of every window of whole seconds
// dividing an hour), 2023-11-14T22:00:00Z.
constexpr std::int64_t kClockStartMs = 1'700'000'000'000 - 1'700'000'000'000 % 3'600'000;

// The limiter's clock, moved by hand. Shared between the test and the server's threads.
class ManualClock {
 public:
  void Advance(std::int64_t ms) { now_ms_->fetch_add(ms); }
  std::function<std::int64_t()> Function() const {
    return [now_ms = now_ms_] { return now_ms->load(); };
  }

 private:
  std::shared_ptr<std::atomic<std::int64_t>> now_ms_ =
      std::make_shared<std::atomic<std::int64_t>>(kClockStartMs);
};
// D16: Retry-After is never more than the window.
constexpr int kMaxRetryAfter = kLongWindowSeconds;

struct LimitOptions {
  int window_seconds = kLongWindowSeconds;
  std::string trusted_proxies;
  bool disabled = false;
  int user_max = 0;   // RATE_LIMIT_USER_MAX; off unless a test sets it
  ManualClock clock;  // a fresh clock at kClockStartMs unless a test passes its own
};

TestAppOptions LimitedOptions(const LimitOptions& limits = {}) {
  TestAppOptions options = AuthAppOptions();
  options.tune_settings = [limits](app::Settings& settings) {
    settings.auth_secret = kTestAuthSecret;
    settings.admin_email = kAdminEmail;
    settings.admin_password = kAdminPassword;
    settings.rate_limit_disabled = limits.disabled;
    settings.rate_limit_window_seconds = limits.window_seconds;
    settings.trusted_proxies = limits.trusted_proxies;
    settings.rate_limit_user_max = limits.user_max;
  };
  options.rate_limit_now_ms = limits.clock.Function();
  return options;
}

std::string Serialize(const json::object& object) {
  return json::serialize(object);
}

Headers ForwardedFor(const std::string& addresses) {
  return {{"X-Forwarded-For", addresses}};
}

// A sign-in the handler refuses at once (no password hashing), but that the limiter counts.
HttpResult CheapSignIn(HttpClient& client, const Headers& headers = {}) {
  return client.PostJson("/api/auth/sign-in/email",
                         R"({"email":"not-an-address","password":"whatever"})", headers);
}

HttpResult SignIn(HttpClient& client, const std::string& email, const std::string& password,
                  const Headers& headers = {}) {
  return client.PostJson("/api/auth/sign-in/email",
                         Serialize({{"email", email}, {"password", password}}), headers);
}

HttpResult SignUp(HttpClient& client, const std::string& email, const Headers& headers = {}) {
  return client.PostJson(
      "/api/auth/sign-up/email",
      Serialize({{"name", "Someone"}, {"email", email}, {"password", "a fine password"}}), headers);
}

HttpResult RequestReset(HttpClient& client) {
  return client.PostJson("/api/auth/request-password-reset", R"({"email":"nobody@example.com"})");
}

// The 429 of D16: the envelope with RATE_LIMITED, and Retry-After (whole seconds, ≥ 1, within
// `max_seconds`).
::testing::AssertionResult IsRateLimited(const HttpResult& result, int max_seconds) {
  auto envelope = IsAuthError(result, 429, "RATE_LIMITED", "RATE_LIMITED");
  if (!envelope) return envelope;
  const std::string header = result.Header("Retry-After");
  int seconds = 0;
  try {
    std::size_t used = 0;
    seconds = std::stoi(header, &used);
    if (used != header.size()) throw std::invalid_argument(header);
  } catch (const std::exception&) {
    return ::testing::AssertionFailure() << "Retry-After is not a number: '" << header << "'";
  }
  if (seconds < 1 || seconds > max_seconds) {
    return ::testing::AssertionFailure()
           << "Retry-After " << seconds << " is not in [1, " << max_seconds << "]";
  }
  return ::testing::AssertionSuccess();
}

int RetryAfter(const HttpResult& result) {
  return std::stoi(result.Header("Retry-After"));
}

std::int64_t Count(TestApp& app, const std::string& sql,
                   std::initializer_list<db::Value> params = {}) {
  std::int64_t count = 0;
  const Status status = app.app().database().Transaction(
      db::Access::kRead, [&](db::Connection& connection) -> Status {
        CAIRN_ASSIGN_OR_RETURN(db::Rows rows, connection.Query(sql, params));
        count = ToInt(rows.rows.at(0).at(0));
        return {};
      });
  EXPECT_TRUE(status.ok()) << sql;
  return count;
}

std::vector<std::optional<std::string>> SessionAddresses(TestApp& app) {
  std::vector<std::optional<std::string>> addresses;
  const Status status = app.app().database().Transaction(
      db::Access::kRead, [&](db::Connection& connection) -> Status {
        CAIRN_ASSIGN_OR_RETURN(
            db::Rows rows,
            connection.Query(R"(SELECT s."ip_address" FROM "_cairn_auth_sessions" s )"
                             R"(JOIN "_cairn_auth_users" u ON u."id" = s."user_id" )"
                             R"(WHERE u."email" <> ? ORDER BY s."created_at")",
                             {std::string_view(kAdminEmail)}));
        for (auto& row : rows.rows) addresses.push_back(row.at(0));
        return {};
      });
  EXPECT_TRUE(status.ok());
  return addresses;
}

TEST(RateLimit, TheTwentyFirstSignInIsRefused) {
  TestApp app(LimitedOptions());
  auto client = app.Client();
  ASSERT_EQ(SignUp(client, "target@example.com").status, 200);
  // A password-guessing run: twenty wrong guesses are answered...
  for (int i = 0; i < 20; ++i) {
    EXPECT_TRUE(IsAuthError(SignIn(client, "target@example.com", "guess " + std::to_string(i)), 401,
                            "UNAUTHORIZED", "INVALID_EMAIL_OR_PASSWORD"))
        << "attempt " << i + 1;
  }
  // ... the twenty-first is not even tried, right password or not.
  auto refused = SignIn(client, "target@example.com", "a fine password");
  EXPECT_TRUE(IsRateLimited(refused, kMaxRetryAfter));
  EXPECT_FALSE(refused.Header("X-Request-Id").empty());
  EXPECT_TRUE(refused.set_cookies.empty());
  EXPECT_TRUE(IsRateLimited(CheapSignIn(client), kMaxRetryAfter));
  // Only the sign-up's session exists.
  EXPECT_EQ(Count(app, R"(SELECT COUNT(*) FROM "_cairn_auth_sessions" s JOIN "_cairn_auth_users")"
                       R"( u ON u."id" = s."user_id" WHERE u."email" = 'target@example.com')"),
            1);
}

TEST(RateLimit, SignUpAllowsTwentyPerWindow) {
  TestApp app(LimitedOptions());
  auto client = app.Client();
  for (int i = 0; i < 20; ++i) {
    const auto result = SignUp(client, "user" + std::to_string(i) + "@example.com");
    EXPECT_EQ(result.status, 200) << i << ": " << result.body;
  }
  EXPECT_TRUE(IsRateLimited(SignUp(client, "one-too-many@example.com"), kMaxRetryAfter));
  // The refused sign-up created nothing: twenty users and the admin.
  EXPECT_EQ(Count(app, R"(SELECT COUNT(*) FROM "_cairn_auth_users")"), 21);
  EXPECT_EQ(Count(app, R"(SELECT COUNT(*) FROM "_cairn_auth_users" WHERE "email" = ?)",
                  {std::string_view("one-too-many@example.com")}),
            0);
}

TEST(RateLimit, PasswordResetAllowsTenPerWindowAcrossItsRoutes) {
  TestApp app(LimitedOptions());
  auto client = app.Client();
  // request-password-reset and reset-password (both of its forms) share a budget.
  for (int i = 0; i < 7; ++i) EXPECT_EQ(RequestReset(client).status, 200) << i;
  const auto followed = client.Get("/api/auth/reset-password/some-token?callbackURL=/reset");
  EXPECT_EQ(followed.status, 302) << followed.body;
  for (int i = 0; i < 2; ++i) {
    EXPECT_TRUE(IsAuthError(client.PostJson("/api/auth/reset-password",
                                            R"({"token":"bogus","newPassword":"new password 1"})"),
                            400, "VALIDATION_ERROR", "INVALID_TOKEN"))
        << i;
  }
  EXPECT_TRUE(IsRateLimited(RequestReset(client), kMaxRetryAfter));
  EXPECT_TRUE(IsRateLimited(client.PostJson("/api/auth/reset-password",
                                            R"({"token":"bogus","newPassword":"new password 1"})"),
                            kMaxRetryAfter));
  EXPECT_TRUE(IsRateLimited(client.Get("/api/auth/reset-password/some-token?callbackURL=/reset"),
                            kMaxRetryAfter));
  // Signing in is another group.
  EXPECT_EQ(SignIn(client, kAdminEmail, kAdminPassword).status, 200);
}

TEST(RateLimit, OtherAuthRoutesAllowAHundredPerWindow) {
  TestApp app(LimitedOptions());
  auto client = app.Client();
  for (int i = 0; i < 60; ++i) {
    const auto result = client.Get("/api/auth/get-session");
    ASSERT_EQ(result.status, 200) << i << ": " << result.body;
  }
  for (int i = 0; i < 40; ++i) {
    // Refused for want of a session, but counted all the same.
    ASSERT_EQ(client.Get("/api/auth/list-sessions").status, 401) << i;
  }
  EXPECT_TRUE(IsRateLimited(client.Get("/api/auth/get-session"), kMaxRetryAfter));
  EXPECT_TRUE(IsRateLimited(client.PostJson("/api/auth/sign-out", "{}"), kMaxRetryAfter));
  // Routes outside /api/auth are not limited.
  for (int i = 0; i < 5; ++i) EXPECT_EQ(client.Get("/api/health").status, 200);
}

TEST(RateLimit, GroupsAreCountedSeparately) {
  TestApp app(LimitedOptions());
  auto client = app.Client();
  const auto admin = SignIn(client, kAdminEmail, kAdminPassword);
  ASSERT_EQ(admin.status, 200) << admin.body;
  const std::string admin_token(admin.Json().at("token").as_string());
  for (int i = 0; i < 19; ++i) ASSERT_EQ(CheapSignIn(client).status, 400) << i;
  EXPECT_TRUE(IsRateLimited(CheapSignIn(client), kMaxRetryAfter));
  EXPECT_TRUE(IsRateLimited(SignIn(client, kAdminEmail, kAdminPassword), kMaxRetryAfter));

  // Every other group still has its whole budget.
  EXPECT_EQ(SignUp(client, "fresh@example.com").status, 200);
  EXPECT_EQ(RequestReset(client).status, 200);
  const auto session = client.Get("/api/auth/get-session", BearerHeader(admin_token));
  ASSERT_EQ(session.status, 200);
  EXPECT_EQ(session.Json().at("user").at("email"), kAdminEmail);
  EXPECT_EQ(client.Get("/api/auth/admin/list-users", BearerHeader(admin_token)).status, 200);
  // And sign-in is still refused.
  EXPECT_TRUE(IsRateLimited(CheapSignIn(client), kMaxRetryAfter));
}

TEST(RateLimit, NoSpellingOfAPathEscapesItsGroup) {
  TestApp app(LimitedOptions());
  auto client = app.Client();
  for (int i = 0; i < 20; ++i) ASSERT_EQ(CheapSignIn(client).status, 400) << i;
  // Whatever reaches the sign-in route counts as sign-in; what does not reach it is a 404.
  for (const char* target :
       {"/api/auth/sign-in/email", "/api/auth/sign-in/email?rememberMe=1",
        "/api/auth/%73ign-in/email", "/api/auth/sign-in/%65mail", "/api/%61uth/sign-in/email",
        "/api/auth//sign-in/email", "/api/auth/sign-in/email/", "/api/auth/./sign-in/email",
        "/api/auth/x/../sign-in/email", "//api/auth/sign-in/email", "/API/auth/sign-in/email",
        "/api/auth/Sign-In/email"}) {
    SCOPED_TRACE(target);
    const auto result =
        client.PostJson(target, R"({"email":"not-an-address","password":"whatever"})");
    if (result.status != 404) {
      EXPECT_TRUE(IsRateLimited(result, kMaxRetryAfter));
    }
  }
  EXPECT_TRUE(IsRateLimited(CheapSignIn(client), kMaxRetryAfter));
}

TEST(RateLimit, AdminRoutesAllowTenPerSecond) {
  ManualClock clock;
  TestApp app(LimitedOptions({.clock = clock}));
  auto client = app.Client();
  const auto admin = SignIn(client, kAdminEmail, kAdminPassword);
  ASSERT_EQ(admin.status, 200) << admin.body;
  const Headers bearer = BearerHeader(std::string(admin.Json().at("token").as_string()));

  // The admin window is one second whatever RATE_LIMIT_WINDOW_SECONDS says: ten calls in it ...
  std::vector<int> statuses;
  for (int i = 0; i < 10; ++i) {
    statuses.push_back(client.Get("/api/auth/admin/list-users", bearer).status);
    clock.Advance(50);
  }
  EXPECT_EQ(statuses, std::vector<int>(10, 200));
  // ... and the eleventh, still inside that second, is refused.
  HttpResult refused = client.Get("/api/auth/admin/list-users", bearer);
  EXPECT_TRUE(IsRateLimited(refused, 2));
  // Every admin route shares the budget; the other groups do not.
  refused = client.PostJson("/api/auth/admin/list-user-sessions", R"({"userId":"x"})", bearer);
  EXPECT_TRUE(IsRateLimited(refused, 2));
  EXPECT_EQ(client.Get("/api/auth/get-session", bearer).status, 200);
  // Retry-After (of the last admin hit) is honest: after waiting that long, a call goes through.
  clock.Advance(std::int64_t{RetryAfter(refused)} * 1000);
  EXPECT_EQ(client.Get("/api/auth/admin/list-users", bearer).status, 200);
}

TEST(RateLimit, ASmallWindowFreesTheBudgetAfterRetryAfter) {
  constexpr int kWindow = 2;
  ManualClock clock;
  TestApp app(LimitedOptions({.window_seconds = kWindow, .clock = clock}));
  auto client = app.Client();
  std::vector<int> statuses;
  for (int i = 0; i < 10; ++i) {
    statuses.push_back(RequestReset(client).status);
    clock.Advance(100);
  }
  EXPECT_EQ(statuses, std::vector<int>(10, 200));
  const HttpResult refused = RequestReset(client);
  EXPECT_TRUE(IsRateLimited(refused, 2 * kWindow));
  clock.Advance(std::int64_t{RetryAfter(refused)} * 1000);
  EXPECT_EQ(RequestReset(client).status, 200);
}

TEST(RateLimit, ABudgetComesBackAsTheWindowSlides) {
  constexpr int kWindow = 10;
  ManualClock clock;
  TestApp app(LimitedOptions({.window_seconds = kWindow, .clock = clock}));
  auto client = app.Client();
  // Ten resets at the very start of a window use the whole budget.
  for (int i = 0; i < 10; ++i) ASSERT_EQ(RequestReset(client).status, 200) << i;
  // Half a window on, the eleventh is still refused (refused hits count as well).
  clock.Advance(kWindow * 1000 / 2);
  EXPECT_TRUE(IsRateLimited(RequestReset(client), 2 * kWindow));
  // Two windows on, nothing of them weighs any more: the whole budget is back.
  clock.Advance(2 * kWindow * 1000);
  for (int i = 0; i < 10; ++i) EXPECT_EQ(RequestReset(client).status, 200) << i;
  EXPECT_TRUE(IsRateLimited(RequestReset(client), 2 * kWindow));
}

TEST(RateLimit, ForwardedForFromAnUntrustedPeerIsIgnored) {
  TestApp app(LimitedOptions());  // no TRUSTED_PROXIES
  auto client = app.Client();
  // The address recorded on a session is the socket peer, whatever the header claims.
  ASSERT_EQ(SignUp(client, "spoofer@example.com", ForwardedFor("203.0.113.9")).status, 200);
  EXPECT_EQ(SessionAddresses(app), (std::vector<std::optional<std::string>>{"127.0.0.1"}));
  // A new made-up address per request does not buy a new budget.
  for (int i = 0; i < 20; ++i) {
    const auto result = CheapSignIn(client, ForwardedFor("198.51.100." + std::to_string(i + 1)));
    ASSERT_EQ(result.status, 400) << i << ": " << result.body;
  }
  EXPECT_TRUE(IsRateLimited(CheapSignIn(client, ForwardedFor("198.51.100.200")), kMaxRetryAfter));
  EXPECT_TRUE(
      IsRateLimited(CheapSignIn(client, ForwardedFor("10.9.8.7, 192.0.2.1")), kMaxRetryAfter));
  EXPECT_TRUE(IsRateLimited(CheapSignIn(client), kMaxRetryAfter));
}

TEST(RateLimit, BehindATrustedProxyEachForwardedClientHasItsOwnBudget) {
  TestApp app(LimitedOptions({.trusted_proxies = "127.0.0.1"}));
  auto client = app.Client();
  // The proxy's client is the one recorded on the session.
  ASSERT_EQ(SignUp(client, "behind@example.com", ForwardedFor("198.51.100.23")).status, 200);
  EXPECT_EQ(SessionAddresses(app), (std::vector<std::optional<std::string>>{"198.51.100.23"}));

  for (int i = 0; i < 20; ++i) {
    ASSERT_EQ(CheapSignIn(client, ForwardedFor("203.0.113.7")).status, 400) << i;
  }
  EXPECT_TRUE(IsRateLimited(CheapSignIn(client, ForwardedFor("203.0.113.7")), kMaxRetryAfter));
  // A client cannot escape by writing its own X-Forwarded-For: the proxy appends the address
  // it saw, and that right-most untrusted hop is the client.
  EXPECT_TRUE(
      IsRateLimited(CheapSignIn(client, ForwardedFor("192.0.2.44, 203.0.113.7")), kMaxRetryAfter));
  EXPECT_TRUE(
      IsRateLimited(CheapSignIn(client, ForwardedFor("203.0.113.7:51234")), kMaxRetryAfter));
  // Other clients of the proxy, and the proxy itself, have their own budgets.
  EXPECT_EQ(CheapSignIn(client, ForwardedFor("203.0.113.8")).status, 400);
  EXPECT_EQ(CheapSignIn(client, ForwardedFor("203.0.113.7, 203.0.113.8")).status, 400);
  EXPECT_EQ(CheapSignIn(client).status, 400);
  const auto signed_in =
      SignIn(client, "behind@example.com", "a fine password", ForwardedFor("2001:DB8::1"));
  ASSERT_EQ(signed_in.status, 200) << signed_in.body;
  EXPECT_EQ(SessionAddresses(app),
            (std::vector<std::optional<std::string>>{"198.51.100.23", "2001:db8::1"}));
}

// D16: one IPv6 subscriber usually holds a whole /64, so its addresses share one budget.
TEST(RateLimit, IPv6ClientsAreCountedByTheirSlash64) {
  TestApp app(LimitedOptions({.trusted_proxies = "127.0.0.1"}));
  auto client = app.Client();
  for (int i = 0; i < 20; ++i) {
    const std::string address = "2001:db8:1:2::" + std::to_string(i + 1);
    ASSERT_EQ(CheapSignIn(client, ForwardedFor(address)).status, 400) << address;
  }
  EXPECT_TRUE(
      IsRateLimited(CheapSignIn(client, ForwardedFor("2001:db8:1:2:ffff::99")), kMaxRetryAfter));
  EXPECT_EQ(CheapSignIn(client, ForwardedFor("2001:db8:1:3::1")).status, 400);
  EXPECT_EQ(CheapSignIn(client, ForwardedFor("203.0.113.9")).status, 400);
}

// Every signed-in user has a per-node budget on every route (RATE_LIMIT_USER_MAX), so one member
// cannot degrade a node; other users and anonymous callers keep theirs.
TEST(RateLimit, EachSignedInUserHasABudgetOnEveryRoute) {
  ManualClock clock;
  TestApp app(LimitedOptions({.user_max = 5, .clock = clock}));
  auto client = app.Client();
  ASSERT_EQ(SignUp(client, "busy@example.com").status, 200);
  const auto busy = SignIn(client, "busy@example.com", "a fine password");
  ASSERT_EQ(busy.status, 200) << busy.body;
  const Headers busy_bearer = BearerHeader(std::string(busy.Json().at("token").as_string()));
  const auto admin = SignIn(client, kAdminEmail, kAdminPassword);
  ASSERT_EQ(admin.status, 200) << admin.body;
  const Headers admin_bearer = BearerHeader(std::string(admin.Json().at("token").as_string()));

  for (int i = 0; i < 5; ++i) {
    ASSERT_EQ(client.Get("/api/auth/get-session", busy_bearer).status, 200) << i;
  }
  const HttpResult refused = client.Get("/api/tables", busy_bearer);
  EXPECT_TRUE(IsRateLimited(refused, kLongWindowSeconds));
  EXPECT_EQ(client.Get("/api/auth/get-session", admin_bearer).status, 200);
  EXPECT_EQ(client.Get("/api/health").status, 200);
  clock.Advance(std::int64_t{RetryAfter(refused)} * 1000);
  clock.Advance(kLongWindowSeconds * 1000LL);  // the weighted previous window is gone too
  EXPECT_EQ(client.Get("/api/auth/get-session", busy_bearer).status, 200);
}

TEST(RateLimit, DisabledMeansNeverLimited) {
  TestApp app(LimitedOptions({.disabled = true}));
  auto client = app.Client();
  for (int i = 0; i < 30; ++i) ASSERT_EQ(CheapSignIn(client).status, 400) << i;
  for (int i = 0; i < 15; ++i) ASSERT_EQ(RequestReset(client).status, 200) << i;
}

TEST(RateLimit, NodesOnOnePostgresDatabaseShareTheirCounters) {
  if (!IsPostgres()) {
    GTEST_SKIP() << "the embedded SQLite mode is one process; its counters are in memory";
  }
  ManualClock clock;
  TestApp first(LimitedOptions({.clock = clock}));
  TestAppOptions options = LimitedOptions({.clock = clock});
  options.share_database_with = &first;
  TestApp second(std::move(options));
  auto client_a = first.Client();
  auto client_b = second.Client();
  for (int i = 0; i < 10; ++i) {
    ASSERT_EQ(CheapSignIn(client_a).status, 400) << i;
    ASSERT_EQ(CheapSignIn(client_b).status, 400) << i;
  }
  EXPECT_TRUE(IsRateLimited(CheapSignIn(client_a), kMaxRetryAfter));
  EXPECT_TRUE(IsRateLimited(CheapSignIn(client_b), kMaxRetryAfter));
  // One counter row for this client and group, holding every allowed hit of both nodes (the two
  // refusals were taken back).
  EXPECT_EQ(Count(first, R"(SELECT "count" FROM "_cairn_rate_limits" WHERE "key" = ?)",
                  {std::string_view("sign-in|127.0.0.1")}),
            20);
  // Other groups are untouched on both nodes.
  EXPECT_EQ(client_a.Get("/api/auth/get-session").status, 200);
  EXPECT_EQ(client_b.Get("/api/auth/get-session").status, 200);
}

}  // namespace
}  // namespace cairn::test
