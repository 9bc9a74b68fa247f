// /api/auth end to end (D10–D17): sign-up, sign-in, the CSRF origin check, 401 before the body
// (D17) and password hashing off the I/O threads, on the backend of this run.
#include <gtest/gtest.h>

#include <atomic>
#include <future>
#include <regex>
#include <thread>

#include "common/crypto.hpp"
#include "e2e/auth_test_support.hpp"

namespace cairn::test {
namespace {

constexpr const char* kArgon2idPrefix = "$argon2id$v=19$m=19456,t=2,p=1$";
// A taken address at sign-up: Better Auth's status (422), cairn's code, Better Auth's reason.
constexpr int kDuplicateEmailStatus = 422;

// --- sign-up ------------------------------------------------------------------------------------

TEST(AuthSignUp, CreatesUserSessionAndSignedCookie) {
  AuthApp auth;
  const auto result = auth.SignUp("Ada Lovelace", "Ada@Example.com", "correct horse 1");
  ASSERT_EQ(result.status, 200) << result.body;
  const auto body = result.Json();
  const std::string token(body.at("token").as_string());
  EXPECT_TRUE(std::regex_match(token, std::regex("[A-Za-z0-9]{32}"))) << token;
  const auto& user = body.at("user").as_object();
  EXPECT_EQ(user.at("name"), "Ada Lovelace");
  EXPECT_EQ(user.at("email"), "ada@example.com");  // stored and answered lower-case
  EXPECT_EQ(user.at("emailVerified"), false);
  EXPECT_TRUE(user.at("image").is_null());
  EXPECT_EQ(user.at("role"), "member");
  EXPECT_EQ(user.at("banned"), false);
  EXPECT_TRUE(user.at("banReason").is_null());
  EXPECT_TRUE(user.at("banExpires").is_null());
  EXPECT_TRUE(std::regex_match(std::string(user.at("createdAt").as_string()),
                               std::regex(R"(\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z)")))
      << user.at("createdAt");
  const std::string user_id(user.at("id").as_string());

  // The cookie is Better Auth's signed value, URL-encoded, with its attributes.
  const std::string signature = SignatureOf(token);
  std::string encoded = signature;
  encoded = std::regex_replace(encoded, std::regex("\\+"), "%2B");
  encoded = std::regex_replace(encoded, std::regex("/"), "%2F");
  encoded = std::regex_replace(encoded, std::regex("="), "%3D");
  ASSERT_EQ(result.set_cookies.size(), 1u);
  EXPECT_EQ(result.set_cookies[0], std::string(kSessionCookieName) + "=" + token + "." + encoded +
                                       "; Max-Age=604800; Path=/; HttpOnly; SameSite=Lax");
  EXPECT_EQ(result.Header("set-auth-token"), token + "." + signature);
  EXPECT_NE(result.Header("Access-Control-Expose-Headers").find("set-auth-token"),
            std::string::npos);

  // The database: the user, a credential account with an argon2id hash, a session stored by the
  // hash of its token.
  auto users = auth.Query(R"(SELECT "email", "name", "email_verified", "role" FROM )"
                          R"("_cairn_auth_users" WHERE "id" = ?)",
                          {std::string_view(user_id)});
  ASSERT_EQ(users.size(), 1u);
  EXPECT_EQ(users[0][0], "ada@example.com");
  EXPECT_EQ(users[0][1], "Ada Lovelace");
  EXPECT_EQ(ToInt(users[0][2]), 0);
  EXPECT_EQ(users[0][3], "member");
  auto accounts = auth.Query(R"(SELECT "provider_id", "account_id", "password" FROM )"
                             R"("_cairn_auth_accounts" WHERE "user_id" = ?)",
                             {std::string_view(user_id)});
  ASSERT_EQ(accounts.size(), 1u);
  EXPECT_EQ(accounts[0][0], "credential");
  EXPECT_EQ(accounts[0][1], user_id);
  ASSERT_TRUE(accounts[0][2].has_value());
  EXPECT_TRUE(accounts[0][2]->starts_with(kArgon2idPrefix)) << *accounts[0][2];
  EXPECT_EQ(accounts[0][2]->find("correct horse"), std::string::npos);
  auto sessions = auth.Query(R"(SELECT "token_hash", "expires_at", "created_at" FROM )"
                             R"("_cairn_auth_sessions" WHERE "user_id" = ?)",
                             {std::string_view(user_id)});
  ASSERT_EQ(sessions.size(), 1u);
  EXPECT_EQ(sessions[0][0], crypto::Sha256Hex(token));
  EXPECT_EQ(ToInt(sessions[0][1]) - ToInt(sessions[0][2]), 7LL * 24 * 3600 * 1000);
  // Neither the token nor the password is stored in clear anywhere in the auth tables.
  for (const char* table : {"_cairn_auth_users", "_cairn_auth_sessions", "_cairn_auth_accounts",
                            "_cairn_auth_verifications"}) {
    for (const auto& row : auth.Query(std::string("SELECT * FROM \"") + table + "\"")) {
      for (const auto& cell : row) {
        if (!cell) continue;
        EXPECT_EQ(cell->find(token), std::string::npos) << table;
        EXPECT_EQ(cell->find("correct horse 1"), std::string::npos) << table;
      }
    }
  }

  // The session works at once.
  const auto session = auth.GetAs(token, "/api/auth/get-session");
  ASSERT_EQ(session.status, 200) << session.body;
  EXPECT_EQ(session.Json().at("user").at("id"), boost::json::value(user_id));
}

TEST(AuthSignUp, DuplicateEmailIsRefusedWhateverTheCase) {
  AuthApp auth;
  ASSERT_EQ(auth.SignUp("Bob", "bob@example.com", "correct horse 1").status, 200);
  const auto again = auth.SignUp("Bob Two", "BOB@Example.COM", "another horse 2");
  EXPECT_TRUE(IsAuthError(again, kDuplicateEmailStatus, "VALIDATION_ERROR",
                          "USER_ALREADY_EXISTS_USE_ANOTHER_EMAIL"));
  EXPECT_TRUE(again.set_cookies.empty());
  EXPECT_EQ(auth.Count(R"(SELECT COUNT(*) FROM "_cairn_auth_users")"), 1);
  EXPECT_EQ(auth.Count(R"(SELECT COUNT(*) FROM "_cairn_auth_accounts")"), 1);
  EXPECT_EQ(auth.Count(R"(SELECT COUNT(*) FROM "_cairn_auth_sessions")"), 1);
  // The first password still signs in; the second one does not.
  EXPECT_EQ(auth.SignIn("bob@example.com", "correct horse 1").status, 200);
  EXPECT_EQ(auth.SignIn("bob@example.com", "another horse 2").status, 401);
}

TEST(AuthSignUp, InvalidEmailIsRefused) {
  AuthApp auth;
  for (const char* email :
       {"not-an-email", "a@b", "@example.com", "a@@example.com", "two words@example.com", ""}) {
    const auto result = auth.SignUp("X", email, "correct horse 1");
    EXPECT_TRUE(IsAuthError(result, 400, "VALIDATION_ERROR", "INVALID_EMAIL")) << email;
  }
  const auto missing =
      auth.Client().PostJson("/api/auth/sign-up/email", R"({"name":"X","password":"abcdefgh"})");
  EXPECT_TRUE(IsAuthError(missing, 400, "VALIDATION_ERROR", ""));
  EXPECT_EQ(auth.Count(R"(SELECT COUNT(*) FROM "_cairn_auth_users")"), 0);
}

TEST(AuthSignUp, DefaultPasswordBoundsAreEightTo128) {
  AuthApp auth;
  EXPECT_TRUE(IsAuthError(auth.SignUp("X", "short@example.com", std::string(7, 'a')), 400,
                          "VALIDATION_ERROR", "PASSWORD_TOO_SHORT"));
  EXPECT_TRUE(IsAuthError(auth.SignUp("X", "long@example.com", std::string(129, 'a')), 400,
                          "VALIDATION_ERROR", "PASSWORD_TOO_LONG"));
  EXPECT_EQ(auth.Count(R"(SELECT COUNT(*) FROM "_cairn_auth_users")"), 0);
  EXPECT_EQ(auth.SignUp("X", "min@example.com", std::string(8, 'a')).status, 200);
  EXPECT_EQ(auth.SignUp("X", "max@example.com", std::string(128, 'a')).status, 200);
  EXPECT_EQ(auth.SignIn("max@example.com", std::string(128, 'a')).status, 200);
}

TEST(AuthSignUp, PasswordLengthCountsCharactersNotBytes) {
  // Better Auth counts a JavaScript string's length (UTF-16 code units); so does cairn.
  AuthApp auth;
  std::string e_acute;  // "é": 2 bytes, 1 character
  for (int i = 0; i < 100; ++i) e_acute += "\xC3\xA9";
  const auto accepted = auth.SignUp("X", "accented@example.com", e_acute);
  ASSERT_EQ(accepted.status, 200) << accepted.body;
  EXPECT_EQ(auth.SignIn("accented@example.com", e_acute).status, 200);
  EXPECT_TRUE(IsAuthError(auth.SignUp("X", "seven@example.com", e_acute.substr(0, 14)), 400,
                          "VALIDATION_ERROR", "PASSWORD_TOO_SHORT"));
  std::string emoji;  // U+1F600: 4 bytes, 2 UTF-16 units
  for (int i = 0; i < 64; ++i) emoji += "\xF0\x9F\x98\x80";
  EXPECT_EQ(auth.SignUp("X", "emoji@example.com", emoji).status, 200);
  EXPECT_EQ(auth.SignIn("emoji@example.com", emoji).status, 200);
  EXPECT_TRUE(IsAuthError(auth.SignUp("X", "more-emoji@example.com", emoji + "\xF0\x9F\x98\x80"),
                          400, "VALIDATION_ERROR", "PASSWORD_TOO_LONG"));
}

TEST(AuthSignUp, ConcurrentSignUpsWithOneEmailMakeOneAccount) {
  AuthApp auth;
  std::vector<std::future<HttpResult>> attempts;
  for (int i = 0; i < 4; ++i) {
    attempts.push_back(std::async(std::launch::async, [&auth, i] {
      return auth.SignUp("Racer", i % 2 ? "race@example.com" : "RACE@example.com",
                         "racing horse " + std::to_string(i));
    }));
  }
  int created = 0;
  for (auto& attempt : attempts) {
    const HttpResult result = attempt.get();
    if (result.status == 200) {
      ++created;
    } else {
      EXPECT_TRUE(IsAuthError(result, kDuplicateEmailStatus, "VALIDATION_ERROR",
                              "USER_ALREADY_EXISTS_USE_ANOTHER_EMAIL"));
    }
  }
  EXPECT_EQ(created, 1);
  EXPECT_EQ(auth.Count(R"(SELECT COUNT(*) FROM "_cairn_auth_users")"), 1);
  EXPECT_EQ(auth.Count(R"(SELECT COUNT(*) FROM "_cairn_auth_accounts")"), 1);
  EXPECT_EQ(auth.Count(R"(SELECT COUNT(*) FROM "_cairn_auth_sessions")"), 1);
}

TEST(AuthSignUp, HttpsBaseUrlMakesTheCookieSecure) {
  TestAppOptions options = AuthAppOptions();
  options.tune_settings = [](app::Settings& settings) {
    settings.auth_secret = kTestAuthSecret;
    settings.base_url = "https://app.example.com";
    settings.base_url_explicit = true;
  };
  TestApp app(std::move(options));
  const auto result = app.Client().PostJson(
      "/api/auth/sign-up/email",
      R"({"name":"S","email":"secure@example.com","password":"correct horse 1"})");
  ASSERT_EQ(result.status, 200) << result.body;
  const auto cookie = result.SetCookie(kSessionCookieName);
  ASSERT_TRUE(cookie.has_value());
  EXPECT_TRUE(cookie->ends_with("; Path=/; HttpOnly; SameSite=Lax; Secure")) << *cookie;
  // BASE_URL's origin is the trusted one now.
  const std::string value = cookie->substr(0, cookie->find(';'));
  const auto own = app.Client().PostJson(
      "/api/auth/sign-out", "{}", {{"Cookie", value}, {"Origin", "https://app.example.com"}});
  EXPECT_EQ(own.status, 200) << own.body;
  const auto local = app.Client().PostJson(
      "/api/auth/sign-out", "{}",
      {{"Cookie", value}, {"Origin", "http://127.0.0.1:" + std::to_string(app.port())}});
  EXPECT_TRUE(IsAuthError(local, 403, "FORBIDDEN", "INVALID_ORIGIN"));
}

TEST(AuthSignUp, ConfiguredPasswordBounds) {
  AuthApp auth("minPasswordLength: 10\nmaxPasswordLength: 20");
  EXPECT_TRUE(IsAuthError(auth.SignUp("X", "a@example.com", std::string(9, 'a')), 400,
                          "VALIDATION_ERROR", "PASSWORD_TOO_SHORT"));
  EXPECT_TRUE(IsAuthError(auth.SignUp("X", "b@example.com", std::string(21, 'a')), 400,
                          "VALIDATION_ERROR", "PASSWORD_TOO_LONG"));
  EXPECT_EQ(auth.SignUp("X", "c@example.com", std::string(10, 'a')).status, 200);
  EXPECT_EQ(auth.SignUp("X", "d@example.com", std::string(20, 'a')).status, 200);
  EXPECT_EQ(auth.Count(R"(SELECT COUNT(*) FROM "_cairn_auth_users")"), 2);
}

TEST(AuthSignUp, DisabledSignUpIsForbidden) {
  AuthApp auth("", "allowSignUp: false");
  const auto result = auth.SignUp("X", "x@example.com", "correct horse 1");
  EXPECT_TRUE(IsAuthError(result, 403, "FORBIDDEN", "EMAIL_PASSWORD_SIGN_UP_DISABLED"));
  EXPECT_TRUE(result.set_cookies.empty());
  EXPECT_EQ(auth.Count(R"(SELECT COUNT(*) FROM "_cairn_auth_users")"), 0);
}

TEST(AuthSignUp, RequiredVerificationGivesNoSessionAndMailsALink) {
  AuthApp auth("requireEmailVerification: true");
  const auto result = auth.SignUp("Vera", "vera@example.com", "correct horse 1");
  ASSERT_EQ(result.status, 200) << result.body;
  const auto body = result.Json();
  EXPECT_TRUE(body.at("token").is_null());
  EXPECT_EQ(body.at("user").at("email"), "vera@example.com");
  EXPECT_EQ(body.at("user").at("emailVerified"), false);
  EXPECT_TRUE(result.set_cookies.empty());
  EXPECT_TRUE(result.Header("set-auth-token").empty());
  EXPECT_EQ(auth.Count(R"(SELECT COUNT(*) FROM "_cairn_auth_sessions")"), 0);
  EXPECT_EQ(auth.Count(R"(SELECT COUNT(*) FROM "_cairn_auth_users" WHERE "email_verified" = 0)"),
            1);

  ASSERT_EQ(auth.OutboxSize(), 1u);
  const auto mail = auth.LastMail();
  EXPECT_NE(mail.Header("to").find("vera@example.com"), std::string::npos) << mail.Header("to");
  const std::string link = FirstLink(mail.text);
  EXPECT_TRUE(link.starts_with(auth.Origin() + "/api/auth/verify-email?token=")) << link;
  EXPECT_EQ(QueryParam(link, "callbackURL"), "/");

  // Signing up again with the same address looks the same (no enumeration) and sends nothing.
  const auto again = auth.SignUp("Vera", "VERA@example.com", "other horse 22");
  ASSERT_EQ(again.status, 200) << again.body;
  EXPECT_TRUE(again.Json().at("token").is_null());
  EXPECT_NE(again.Json().at("user").at("id"), body.at("user").at("id"));
  EXPECT_EQ(auth.OutboxSize(), 1u);
  EXPECT_EQ(auth.Count(R"(SELECT COUNT(*) FROM "_cairn_auth_users")"), 1);
}

TEST(AuthSignUp, AutoSignInFalseCreatesTheAccountWithoutASession) {
  AuthApp auth("autoSignIn: false");
  const auto result = auth.SignUp("Manual", "manual@example.com", "correct horse 1");
  ASSERT_EQ(result.status, 200) << result.body;
  EXPECT_TRUE(result.Json().at("token").is_null());
  EXPECT_EQ(result.Json().at("user").at("email"), "manual@example.com");
  EXPECT_TRUE(result.set_cookies.empty());
  EXPECT_EQ(auth.Count(R"(SELECT COUNT(*) FROM "_cairn_auth_users")"), 1);
  EXPECT_EQ(auth.Count(R"(SELECT COUNT(*) FROM "_cairn_auth_sessions")"), 0);
  EXPECT_EQ(auth.OutboxSize(), 0u);
  // A duplicate looks the same; signing in works (no verification is required).
  const auto again = auth.SignUp("Manual", "manual@example.com", "other horse 22");
  EXPECT_EQ(again.status, 200) << again.body;
  EXPECT_TRUE(again.Json().at("token").is_null());
  EXPECT_EQ(auth.SignIn("manual@example.com", "correct horse 1").status, 200);
}

// --- sign-in ------------------------------------------------------------------------------------

TEST(AuthSignIn, IssuesANewSession) {
  AuthApp auth;
  const Account first = auth.NewAccount("sam@example.com");
  const auto result = auth.SignIn("SAM@example.com", "correct horse 1");
  ASSERT_EQ(result.status, 200) << result.body;
  const auto body = result.Json();
  EXPECT_EQ(body.at("redirect"), false);
  EXPECT_FALSE(body.as_object().contains("url"));
  EXPECT_EQ(body.at("user").at("id"), boost::json::value(first.user_id));
  const std::string token(body.at("token").as_string());
  EXPECT_NE(token, first.token);
  const auto cookie = result.SetCookie(kSessionCookieName);
  ASSERT_TRUE(cookie.has_value());
  EXPECT_NE(cookie->find("; Max-Age=604800;"), std::string::npos) << *cookie;
  EXPECT_EQ(result.Header("set-auth-token"), token + "." + SignatureOf(token));
  EXPECT_EQ(auth.Count(R"(SELECT COUNT(*) FROM "_cairn_auth_sessions" WHERE "user_id" = ?)",
                       {std::string_view(first.user_id)}),
            2);
  // Both sessions are live.
  EXPECT_EQ(auth.GetAs(first.token, "/api/auth/list-sessions").status, 200);
  EXPECT_EQ(auth.GetAs(token, "/api/auth/list-sessions").status, 200);
}

TEST(AuthSignIn, CallbackUrlIsEchoedAndChecked) {
  AuthApp auth;
  auth.NewAccount("cb@example.com");
  const auto result =
      auth.SignIn("cb@example.com", "correct horse 1", R"("callbackURL":"/dashboard")");
  ASSERT_EQ(result.status, 200) << result.body;
  EXPECT_EQ(result.Json().at("redirect"), true);
  EXPECT_EQ(result.Json().at("url"), "/dashboard");
  EXPECT_EQ(result.Header("Location"), "/dashboard");
  const auto foreign =
      auth.SignIn("cb@example.com", "correct horse 1", R"("callbackURL":"https://evil.example/")");
  EXPECT_TRUE(IsAuthError(foreign, 400, "VALIDATION_ERROR", "INVALID_CALLBACK_URL"));
  EXPECT_TRUE(foreign.set_cookies.empty());
}

TEST(AuthSignIn, WrongPasswordAndUnknownEmailAnswerAlike) {
  AuthApp auth;
  auth.NewAccount("known@example.com");
  const auto wrong = auth.SignIn("known@example.com", "not the password");
  const auto unknown = auth.SignIn("nobody@example.com", "not the password");
  EXPECT_TRUE(IsAuthError(wrong, 401, "UNAUTHORIZED", "INVALID_EMAIL_OR_PASSWORD"));
  EXPECT_TRUE(IsAuthError(unknown, 401, "UNAUTHORIZED", "INVALID_EMAIL_OR_PASSWORD"));
  EXPECT_EQ(wrong.status, unknown.status);
  EXPECT_EQ(wrong.body, unknown.body);
  EXPECT_EQ(wrong.Json().at("message"), unknown.Json().at("message"));
  EXPECT_TRUE(wrong.set_cookies.empty());
  EXPECT_TRUE(unknown.set_cookies.empty());
  EXPECT_EQ(auth.Count(R"(SELECT COUNT(*) FROM "_cairn_auth_sessions")"), 1);
  // An over-long password is not a different answer either.
  const auto long_password = auth.SignIn("known@example.com", std::string(500, 'x'));
  EXPECT_EQ(long_password.status, 401);
  EXPECT_EQ(long_password.body, wrong.body);
}

TEST(AuthSignIn, RememberMeFalseGivesABrowserSessionCookie) {
  AuthApp auth;
  auth.NewAccount("brief@example.com");
  const auto result = auth.SignIn("brief@example.com", "correct horse 1", R"("rememberMe":false)");
  ASSERT_EQ(result.status, 200) << result.body;
  const auto cookie = result.SetCookie(kSessionCookieName);
  ASSERT_TRUE(cookie.has_value());
  EXPECT_EQ(cookie->find("Max-Age"), std::string::npos) << *cookie;
  EXPECT_EQ(cookie->find("Expires"), std::string::npos) << *cookie;
  EXPECT_NE(cookie->find("; Path=/; HttpOnly; SameSite=Lax"), std::string::npos) << *cookie;
  const std::string token(result.Json().at("token").as_string());
  auto rows = auth.Query(R"(SELECT "expires_at", "created_at", "remember" FROM )"
                         R"("_cairn_auth_sessions" WHERE "token_hash" = ?)",
                         {std::string_view(crypto::Sha256Hex(token))});
  ASSERT_EQ(rows.size(), 1u);
  EXPECT_EQ(ToInt(rows[0][0]) - ToInt(rows[0][1]), 24LL * 3600 * 1000);
  EXPECT_EQ(ToInt(rows[0][2]), 0);
}

TEST(AuthSignIn, UnverifiedUserIsRefusedAndMailed) {
  AuthApp auth("requireEmailVerification: true");
  ASSERT_EQ(auth.SignUp("U", "unverified@example.com", "correct horse 1").status, 200);
  ASSERT_EQ(auth.OutboxSize(), 1u);
  const auto refused = auth.SignIn("unverified@example.com", "correct horse 1");
  EXPECT_TRUE(IsAuthError(refused, 403, "FORBIDDEN", "EMAIL_NOT_VERIFIED"));
  EXPECT_TRUE(refused.set_cookies.empty());
  EXPECT_EQ(auth.Count(R"(SELECT COUNT(*) FROM "_cairn_auth_sessions")"), 0);
  ASSERT_EQ(auth.OutboxSize(), 2u);
  const auto mail = auth.LastMail();
  EXPECT_NE(mail.Header("to").find("unverified@example.com"), std::string::npos);
  // A wrong password does not reveal that the account exists and is unverified.
  EXPECT_TRUE(IsAuthError(auth.SignIn("unverified@example.com", "wrong password"), 401,
                          "UNAUTHORIZED", "INVALID_EMAIL_OR_PASSWORD"));
  EXPECT_EQ(auth.OutboxSize(), 2u);

  // The mailed link verifies the address; then sign-in works.
  const auto verified = auth.Client().Get(TargetOf(FirstLink(mail.text)));
  EXPECT_EQ(verified.status, 302) << verified.body;
  EXPECT_EQ(verified.Header("Location"), "/");
  EXPECT_EQ(auth.SignIn("unverified@example.com", "correct horse 1").status, 200);
}

TEST(AuthSignIn, InvalidEmailIsAValidationError) {
  AuthApp auth;
  EXPECT_TRUE(
      IsAuthError(auth.SignIn("nope", "whatever1"), 400, "VALIDATION_ERROR", "INVALID_EMAIL"));
}

// --- CSRF origin check --------------------------------------------------------------------------

TEST(AuthCsrf, CookieWritesNeedATrustedOrigin) {
  AuthApp auth;
  const Account account = auth.NewAccount("csrf@example.com");
  const Headers cookie = CookieHeader(account.cookie_value);

  const auto missing = auth.Client().PostJson("/api/auth/sign-out", "{}", cookie);
  EXPECT_TRUE(IsAuthError(missing, 403, "FORBIDDEN", "MISSING_OR_NULL_ORIGIN"));
  Headers null_origin = cookie;
  null_origin.emplace_back("Origin", "null");
  EXPECT_TRUE(IsAuthError(auth.Client().PostJson("/api/auth/sign-out", "{}", null_origin), 403,
                          "FORBIDDEN", "MISSING_OR_NULL_ORIGIN"));
  Headers foreign = cookie;
  foreign.emplace_back("Origin", "https://evil.example");
  EXPECT_TRUE(IsAuthError(auth.Client().PostJson("/api/auth/sign-out", "{}", foreign), 403,
                          "FORBIDDEN", "INVALID_ORIGIN"));
  Headers foreign_referer = cookie;
  foreign_referer.emplace_back("Referer", "http://evil.example/page");
  EXPECT_TRUE(IsAuthError(auth.Client().PostJson("/api/auth/sign-out", "{}", foreign_referer), 403,
                          "FORBIDDEN", "INVALID_ORIGIN"));
  // Another port of the same host is another origin.
  Headers other_port = cookie;
  other_port.emplace_back("Origin", "http://127.0.0.1:1");
  EXPECT_TRUE(IsAuthError(auth.Client().PostJson("/api/auth/sign-out", "{}", other_port), 403,
                          "FORBIDDEN", "INVALID_ORIGIN"));
  // Nothing happened: the session is still there.
  EXPECT_EQ(auth.Count(R"(SELECT COUNT(*) FROM "_cairn_auth_sessions")"), 1);
  EXPECT_EQ(
      auth.GetWithCookie(account.cookie_value, "/api/auth/get-session").Json().at("user").at("id"),
      boost::json::value(account.user_id));

  // A same-origin Referer is enough; then the server's own Origin.
  Headers referer = cookie;
  referer.emplace_back("Referer", auth.Origin() + "/settings?tab=1");
  const auto by_referer =
      auth.Client().PostJson("/api/auth/update-user", R"({"name":"Via Referer"})", referer);
  EXPECT_EQ(by_referer.status, 200) << by_referer.body;
  Headers own = cookie;
  own.emplace_back("Origin", auth.Origin());
  const auto ok = auth.Client().PostJson("/api/auth/sign-out", "{}", own);
  EXPECT_EQ(ok.status, 200) << ok.body;
  EXPECT_EQ(auth.Count(R"(SELECT COUNT(*) FROM "_cairn_auth_sessions")"), 0);
}

TEST(AuthCsrf, BearerWritesAndReadsAreNotOriginChecked) {
  AuthApp auth;
  const Account account = auth.NewAccount("bearer@example.com");
  // No Cookie header: an API client, not a browser.
  const auto update = auth.PostAs(account.token, "/api/auth/update-user", R"({"name":"API"})");
  EXPECT_EQ(update.status, 200) << update.body;
  // GET with a cookie and no Origin is fine.
  const auto read = auth.GetWithCookie(account.cookie_value, "/api/auth/get-session");
  ASSERT_EQ(read.status, 200) << read.body;
  EXPECT_EQ(read.Json().at("user").at("name"), "API");
}

TEST(AuthCsrf, SignInFromCrossSiteNavigationIsBlocked) {
  AuthApp auth;
  auth.NewAccount("nav@example.com");
  const std::string body = R"({"email":"nav@example.com","password":"correct horse 1"})";
  const auto blocked =
      auth.Client().PostJson("/api/auth/sign-in/email", body,
                             {{"Sec-Fetch-Site", "cross-site"}, {"Sec-Fetch-Mode", "navigate"}});
  EXPECT_TRUE(IsAuthError(blocked, 403, "FORBIDDEN", "CROSS_SITE_NAVIGATION_LOGIN_BLOCKED"));
  EXPECT_TRUE(blocked.set_cookies.empty());
  // A browser fetch without an Origin is refused; from a foreign page too.
  EXPECT_TRUE(IsAuthError(
      auth.Client().PostJson("/api/auth/sign-in/email", body, {{"Sec-Fetch-Mode", "cors"}}), 403,
      "FORBIDDEN", "MISSING_OR_NULL_ORIGIN"));
  EXPECT_TRUE(IsAuthError(
      auth.Client().PostJson("/api/auth/sign-in/email", body, {{"Origin", "https://evil.example"}}),
      403, "FORBIDDEN", "INVALID_ORIGIN"));
  EXPECT_TRUE(IsAuthError(
      auth.Client().PostJson("/api/auth/sign-up/email",
                             R"({"name":"E","email":"evil@example.com","password":"abcdefgh1"})",
                             {{"Sec-Fetch-Site", "cross-site"}, {"Sec-Fetch-Mode", "navigate"}}),
      403, "FORBIDDEN", "CROSS_SITE_NAVIGATION_LOGIN_BLOCKED"));
  EXPECT_EQ(auth.Count(R"(SELECT COUNT(*) FROM "_cairn_auth_sessions")"), 1);
  EXPECT_EQ(auth.Count(R"(SELECT COUNT(*) FROM "_cairn_auth_users")"), 1);
  // The same browser request from the app itself is fine.
  const auto same_site = auth.Client().PostJson(
      "/api/auth/sign-in/email", body,
      {{"Sec-Fetch-Site", "same-origin"}, {"Sec-Fetch-Mode", "cors"}, {"Origin", auth.Origin()}});
  EXPECT_EQ(same_site.status, 200) << same_site.body;
}

// --- D17 ----------------------------------------------------------------------------------------

TEST(AuthSessionRequired, UnauthenticatedComesBeforeTheBody) {
  AuthApp auth;
  for (const char* path : {"/api/auth/change-password", "/api/auth/update-user",
                           "/api/auth/revoke-session", "/api/auth/delete-user"}) {
    const auto result = auth.Client().PostJson(path, "{not json");
    EXPECT_TRUE(IsAuthError(result, 401, "UNAUTHORIZED", "")) << path;
    const auto schema = auth.Client().PostJson(path, R"({"unexpected":[1,2]})");
    EXPECT_EQ(schema.status, 401) << path << " " << schema.body;
    const auto bad_token = auth.Client().PostJson(path, "{not json", BearerHeader("nope"));
    EXPECT_EQ(bad_token.status, 401) << path << " " << bad_token.body;
  }
  EXPECT_EQ(auth.Client().Get("/api/auth/list-sessions").status, 401);
  // With a session the same body is a 400.
  const Account account = auth.NewAccount("d17@example.com");
  const auto invalid = auth.PostAs(account.token, "/api/auth/change-password", "{not json");
  EXPECT_EQ(invalid.status, 400) << invalid.body;
}

// --- hashing on workers -------------------------------------------------------------------------

TEST(AuthHashing, HealthAnswersWhileSignInsHash) {
  AuthApp auth;
  for (int i = 0; i < 4; ++i) auth.NewAccount("worker" + std::to_string(i) + "@example.com");
  std::atomic<bool> stop{false};
  std::vector<std::future<int>> sign_ins;
  for (int i = 0; i < 4; ++i) {
    sign_ins.push_back(std::async(std::launch::async, [&auth, &stop, i] {
      int ok = 0;
      for (int round = 0; round < 3 && !stop; ++round) {
        if (auth.SignIn("worker" + std::to_string(i) + "@example.com", "correct horse 1").status ==
            200) {
          ++ok;
        }
      }
      return ok;
    }));
  }
  std::this_thread::sleep_for(std::chrono::milliseconds(20));
  int health_ok = 0;
  for (int i = 0; i < 5; ++i) {
    const auto health = auth.Client().Get("/api/health");
    EXPECT_EQ(health.status, 200) << health.body;
    if (health.status == 200 && health.Json().at("status") == "ok") ++health_ok;
  }
  EXPECT_EQ(health_ok, 5);
  int signed_in = 0;
  for (auto& sign_in : sign_ins) signed_in += sign_in.get();
  EXPECT_EQ(signed_in, 12);
  EXPECT_EQ(auth.Count(R"(SELECT COUNT(*) FROM "_cairn_auth_sessions")"), 16);
}

}  // namespace
}  // namespace cairn::test
