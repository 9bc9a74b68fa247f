// /api/auth sessions end to end (D11): cookie and Bearer credentials, get-session, the session
// list and revocation, sign-out, expiry and the daily refresh, on the backend of this run.
#include <gtest/gtest.h>

#include <set>

#include "common/crypto.hpp"
#include "common/time.hpp"
#include "e2e/auth_test_support.hpp"

namespace cairn::test {
namespace {

constexpr std::int64_t kDay = 24LL * 3600 * 1000;

bool IsLive(AuthApp& auth, const std::string& token) {
  const auto result = auth.GetAs(token, "/api/auth/get-session");
  return result.status == 200 && result.Json().is_object();
}

std::int64_t SessionRows(AuthApp& auth, const std::string& user_id) {
  return auth.Count(R"(SELECT COUNT(*) FROM "_cairn_auth_sessions" WHERE "user_id" = ?)",
                    {std::string_view(user_id)});
}

bool ClearsSessionCookie(const HttpResult& result) {
  const auto cookie = result.SetCookie(kSessionCookieName);
  return cookie && cookie->starts_with(std::string(kSessionCookieName) + "=; Max-Age=0;");
}

TEST(AuthSessions, CookieBearerAndSignedBearerAllIdentifyTheCaller) {
  AuthApp auth;
  const Account account = auth.NewAccount("who@example.com");
  const auto by_cookie = auth.GetWithCookie(account.cookie_value, "/api/auth/get-session");
  const auto by_bearer = auth.GetAs(account.token, "/api/auth/get-session");
  const auto by_signed = auth.GetAs(account.signed_value, "/api/auth/get-session");
  const auto by_lower =
      auth.Client().Get("/api/auth/get-session", {{"Authorization", "bearer " + account.token}});
  for (const HttpResult* result : {&by_cookie, &by_bearer, &by_signed, &by_lower}) {
    ASSERT_EQ(result->status, 200) << result->body;
    const auto body = result->Json();
    ASSERT_TRUE(body.is_object()) << result->body;
    EXPECT_EQ(body.at("user").at("id"), boost::json::value(account.user_id));
    EXPECT_EQ(body.at("user").at("email"), "who@example.com");
    EXPECT_EQ(body.at("session").at("userId"), boost::json::value(account.user_id));
    EXPECT_EQ(body.at("session").at("token"), boost::json::value(account.token));
    EXPECT_TRUE(body.at("session").at("impersonatedBy").is_null());
    EXPECT_EQ(result->Header("Cache-Control"), "no-store");
    EXPECT_TRUE(result->set_cookies.empty());  // a fresh session is not refreshed
  }
  // A URL-encoded signed value is accepted as a Bearer credential too.
  EXPECT_TRUE(IsLive(auth, account.cookie_value));
  // And each credential opens the required-session routes.
  EXPECT_EQ(auth.GetWithCookie(account.cookie_value, "/api/auth/list-sessions").status, 200);
  EXPECT_EQ(auth.GetAs(account.signed_value, "/api/auth/list-sessions").status, 200);
}

TEST(AuthSessions, BearerSchemeIsCaseInsensitiveAndAnInvalidOneFallsBackToTheCookie) {
  AuthApp auth;
  const Account account = auth.NewAccount("scheme@example.com");
  const auto upper =
      auth.Client().Get("/api/auth/get-session", {{"Authorization", "BEARER " + account.token}});
  ASSERT_TRUE(upper.Json().is_object()) << upper.body;
  EXPECT_EQ(upper.Json().at("user").at("id"), boost::json::value(account.user_id));
  // A malformed Bearer credential is ignored, as Better Auth's bearer plugin does: the cookie
  // still identifies the caller.
  const auto fallback =
      auth.Client().Get("/api/auth/get-session",
                        {{"Authorization", "Bearer not a token!"},
                         {"Cookie", std::string(kSessionCookieName) + "=" + account.cookie_value}});
  ASSERT_TRUE(fallback.Json().is_object()) << fallback.body;
  EXPECT_EQ(fallback.Json().at("user").at("id"), boost::json::value(account.user_id));
  // Without a cookie it is no session.
  EXPECT_EQ(
      auth.Client().Get("/api/auth/get-session", {{"Authorization", "Bearer not a token!"}}).body,
      "null");
  EXPECT_EQ(auth.Client()
                .Get("/api/auth/list-sessions", {{"Authorization", "Basic " + account.token}})
                .status,
            401);
}

TEST(AuthSessions, BetterAuthCookieTestVectorIsAccepted) {
  // CONTRACT §2.2: secret kTestAuthSecret, token Jg2d… → this exact cookie.
  AuthApp auth;
  const Account account = auth.NewAccount("vector@example.com");
  const std::string token = "Jg2dsjSqX3TgeAaTtEqCllqJ75uN0QDk";
  EXPECT_EQ(SignatureOf(token), "JL+A1rXWQIBknMqpsoUbqnJYDsFo/EarNUSKwGm13Rs=");
  ASSERT_EQ(
      auth.Execute(R"(UPDATE "_cairn_auth_sessions" SET "token_hash" = ? WHERE "user_id" = ?)",
                   {std::string_view(crypto::Sha256Hex(token)), std::string_view(account.user_id)}),
      1);
  const auto result = auth.GetWithCookie(
      "Jg2dsjSqX3TgeAaTtEqCllqJ75uN0QDk.JL%2BA1rXWQIBknMqpsoUbqnJYDsFo%2FEarNUSKwGm13Rs%3D",
      "/api/auth/get-session");
  ASSERT_EQ(result.status, 200) << result.body;
  ASSERT_TRUE(result.Json().is_object()) << result.body;
  EXPECT_EQ(result.Json().at("user").at("id"), boost::json::value(account.user_id));
  EXPECT_FALSE(IsLive(auth, account.token));
}

TEST(AuthSessions, TamperedOrForeignCredentialsAreNoSession) {
  AuthApp auth;
  const Account account = auth.NewAccount("tamper@example.com");
  const std::size_t dot = account.cookie_value.find('.');
  ASSERT_NE(dot, std::string::npos);
  std::string tampered = account.cookie_value;
  tampered[dot + 1] = tampered[dot + 1] == 'A' ? 'B' : 'A';
  std::string other_secret = account.token + ".";
  other_secret += crypto::Base64(crypto::HmacSha256("another secret entirely", account.token));
  const std::string no_signature = account.token;
  // Differs from the real token in its first character, whatever that is.
  const std::string unknown_token = (account.token[0] == 'x' ? "y" : "x") + account.token.substr(1);
  const std::string forged = unknown_token + "." + SignatureOf(unknown_token);

  for (const std::string& cookie : {tampered, other_secret, no_signature, forged}) {
    const auto result = auth.GetWithCookie(cookie, "/api/auth/get-session");
    EXPECT_EQ(result.status, 200) << cookie;
    EXPECT_EQ(result.body, "null") << cookie;
    EXPECT_TRUE(
        IsAuthError(auth.GetWithCookie(cookie, "/api/auth/list-sessions"), 401, "UNAUTHORIZED", ""))
        << cookie;
  }
  std::string tampered_signed = account.signed_value;
  tampered_signed[dot + 1] = tampered_signed[dot + 1] == 'A' ? 'B' : 'A';
  EXPECT_EQ(auth.GetAs(tampered_signed, "/api/auth/get-session").body, "null");
  EXPECT_EQ(auth.GetAs(tampered_signed, "/api/auth/list-sessions").status, 401);
  EXPECT_EQ(auth.GetAs(unknown_token, "/api/auth/list-sessions").status, 401);
  // The real one still works.
  EXPECT_TRUE(IsLive(auth, account.token));
}

TEST(AuthSessions, GetSessionWithoutSessionIsNull) {
  AuthApp auth;
  const auto result = auth.Client().Get("/api/auth/get-session");
  EXPECT_EQ(result.status, 200);
  EXPECT_EQ(result.body, "null");
  EXPECT_EQ(result.Header("Content-Type"), "application/json");
  EXPECT_TRUE(result.set_cookies.empty());
  EXPECT_TRUE(IsAuthError(auth.Client().Get("/api/auth/list-sessions"), 401, "UNAUTHORIZED", ""));
}

TEST(AuthSessions, ListSessionsShowsOwnTokenAndHandlesForOthers) {
  AuthApp auth;
  const Account a = auth.NewAccount("list@example.com");
  const Account b = auth.SignInOk(a.email, a.password);
  const Account c = auth.SignInOk(a.email, a.password);
  const Account stranger = auth.NewAccount("stranger@example.com");
  const auto result = auth.GetAs(b.token, "/api/auth/list-sessions");
  ASSERT_EQ(result.status, 200) << result.body;
  const auto json = result.Json();
  const auto& list = json.as_array();
  ASSERT_EQ(list.size(), 3u) << result.body;
  std::set<std::string> tokens;
  for (const auto& item : list) {
    const auto& session = item.as_object();
    EXPECT_EQ(session.at("userId"), boost::json::value(a.user_id));
    auto expires = time::ParseIso(session.at("expiresAt").as_string());
    ASSERT_TRUE(expires.has_value());
    EXPECT_GT(*expires, NowMillis() + 6 * kDay);
    EXPECT_TRUE(session.contains("createdAt"));
    EXPECT_TRUE(session.contains("ipAddress"));
    EXPECT_TRUE(session.contains("userAgent"));
    tokens.insert(std::string(session.at("token").as_string()));
  }
  // The caller's own session shows its token; the others show the SHA-256 handle only.
  EXPECT_EQ(tokens, (std::set<std::string>{b.token, crypto::Sha256Hex(a.token),
                                           crypto::Sha256Hex(c.token)}));
  EXPECT_EQ(tokens.count(a.token), 0u);
  EXPECT_EQ(tokens.count(stranger.token), 0u);
}

TEST(AuthSessions, RevokeSessionByTokenOrHandleOnlyForOwnSessions) {
  AuthApp auth;
  const Account a = auth.NewAccount("revoke@example.com");
  const Account b = auth.SignInOk(a.email, a.password);
  const Account c = auth.SignInOk(a.email, a.password);
  const Account other = auth.NewAccount("other@example.com");

  // By raw token.
  auto result =
      auth.PostAs(a.token, "/api/auth/revoke-session", R"({"token":")" + b.token + R"("})");
  ASSERT_EQ(result.status, 200) << result.body;
  EXPECT_EQ(result.Json(), boost::json::parse(R"({"status":true})"));
  EXPECT_FALSE(ClearsSessionCookie(result));
  EXPECT_FALSE(IsLive(auth, b.token));
  EXPECT_EQ(SessionRows(auth, a.user_id), 2);

  // By the handle list-sessions shows.
  result = auth.PostAs(a.token, "/api/auth/revoke-session",
                       R"({"token":")" + crypto::Sha256Hex(c.token) + R"("})");
  ASSERT_EQ(result.status, 200) << result.body;
  EXPECT_FALSE(IsLive(auth, c.token));
  EXPECT_EQ(SessionRows(auth, a.user_id), 1);

  // Another user's session: a silent no-op, whatever form the token takes.
  for (const std::string& token : {other.token, crypto::Sha256Hex(other.token)}) {
    result = auth.PostAs(a.token, "/api/auth/revoke-session", R"({"token":")" + token + R"("})");
    EXPECT_EQ(result.status, 200) << result.body;
  }
  EXPECT_TRUE(IsLive(auth, other.token));
  EXPECT_EQ(SessionRows(auth, other.user_id), 1);
  // An unknown token too.
  EXPECT_EQ(auth.PostAs(a.token, "/api/auth/revoke-session", R"({"token":"nothing-here"})").status,
            200);

  // Its own session, through the cookie: the cookie is cleared.
  result = auth.PostWithCookie(a.cookie_value, "/api/auth/revoke-session",
                               R"({"token":")" + a.token + R"("})");
  ASSERT_EQ(result.status, 200) << result.body;
  EXPECT_TRUE(ClearsSessionCookie(result))
      << (result.set_cookies.empty() ? "" : result.set_cookies[0]);
  EXPECT_FALSE(IsLive(auth, a.token));
  EXPECT_EQ(SessionRows(auth, a.user_id), 0);
  EXPECT_TRUE(IsLive(auth, other.token));
}

TEST(AuthSessions, RevokeSessionsEndsAllOfTheCallersSessions) {
  AuthApp auth;
  const Account a = auth.NewAccount("all@example.com");
  const Account b = auth.SignInOk(a.email, a.password);
  const Account other = auth.NewAccount("keep@example.com");
  const auto result = auth.PostWithCookie(a.cookie_value, "/api/auth/revoke-sessions");
  ASSERT_EQ(result.status, 200) << result.body;
  EXPECT_EQ(result.Json(), boost::json::parse(R"({"status":true})"));
  EXPECT_TRUE(ClearsSessionCookie(result));
  EXPECT_FALSE(IsLive(auth, a.token));
  EXPECT_FALSE(IsLive(auth, b.token));
  EXPECT_EQ(SessionRows(auth, a.user_id), 0);
  EXPECT_TRUE(IsLive(auth, other.token));
  EXPECT_EQ(auth.GetAs(b.token, "/api/auth/list-sessions").status, 401);
}

TEST(AuthSessions, RevokeOtherSessionsKeepsTheCurrentOne) {
  AuthApp auth;
  const Account a = auth.NewAccount("others@example.com");
  const Account b = auth.SignInOk(a.email, a.password);
  const Account c = auth.SignInOk(a.email, a.password);
  const Account other = auth.NewAccount("untouched@example.com");
  const auto result = auth.PostAs(b.token, "/api/auth/revoke-other-sessions");
  ASSERT_EQ(result.status, 200) << result.body;
  EXPECT_EQ(result.Json(), boost::json::parse(R"({"status":true})"));
  EXPECT_FALSE(ClearsSessionCookie(result));
  EXPECT_TRUE(IsLive(auth, b.token));
  EXPECT_FALSE(IsLive(auth, a.token));
  EXPECT_FALSE(IsLive(auth, c.token));
  EXPECT_EQ(SessionRows(auth, a.user_id), 1);
  EXPECT_EQ(auth.Count(R"(SELECT COUNT(*) FROM "_cairn_auth_sessions" WHERE "token_hash" = ?)",
                       {std::string_view(crypto::Sha256Hex(b.token))}),
            1);
  EXPECT_TRUE(IsLive(auth, other.token));
}

TEST(AuthSessions, SignOutEndsTheSessionAtOnce) {
  AuthApp auth;
  const Account a = auth.NewAccount("bye@example.com");
  const Account b = auth.SignInOk(a.email, a.password);
  ASSERT_EQ(auth.GetAs(a.token, "/api/auth/list-sessions").status, 200);
  const auto result = auth.PostAs(a.token, "/api/auth/sign-out");
  ASSERT_EQ(result.status, 200) << result.body;
  EXPECT_EQ(result.Json(), boost::json::parse(R"({"success":true})"));
  EXPECT_TRUE(ClearsSessionCookie(result));
  EXPECT_TRUE(IsAuthError(auth.GetAs(a.token, "/api/auth/list-sessions"), 401, "UNAUTHORIZED", ""));
  EXPECT_EQ(auth.GetAs(a.token, "/api/auth/get-session").body, "null");
  EXPECT_EQ(auth.Count(R"(SELECT COUNT(*) FROM "_cairn_auth_sessions" WHERE "token_hash" = ?)",
                       {std::string_view(crypto::Sha256Hex(a.token))}),
            0);
  // Only that session: the other one lives on.
  EXPECT_TRUE(IsLive(auth, b.token));

  // Through the cookie as well; and without any session it still answers success.
  const auto by_cookie = auth.PostWithCookie(b.cookie_value, "/api/auth/sign-out");
  ASSERT_EQ(by_cookie.status, 200) << by_cookie.body;
  EXPECT_FALSE(IsLive(auth, b.token));
  EXPECT_EQ(SessionRows(auth, a.user_id), 0);
  const auto anonymous = auth.Client().PostJson("/api/auth/sign-out", "{}");
  EXPECT_EQ(anonymous.status, 200) << anonymous.body;
  EXPECT_TRUE(ClearsSessionCookie(anonymous));
}

// On SQLite, resolved sessions are reused for kSessionCacheTtlMillis and every auth write drops
// them at once. PostgreSQL's nodes read every session, so each node refuses an ended session at
// once; a second process on one SQLite file (one node is meant to own it) does once its cached
// copy has lapsed.
TEST(AuthSessions, AnEndedSessionIsRefusedAtOnceOnItsNodeAndOnPostgresOnEveryNode) {
  AuthApp first;
  TestAppOptions options = AuthAppOptions();
  options.share_database_with = &first.app();
  AuthApp second(std::move(options));
  const Account a = first.NewAccount("nodes@example.com");
  const Account b = first.SignInOk(a.email, a.password);
  for (AuthApp* node : {&first, &second}) {  // both nodes resolve both sessions
    ASSERT_TRUE(IsLive(*node, a.token));
    ASSERT_TRUE(IsLive(*node, b.token));
  }

  ASSERT_EQ(first.PostAs(a.token, "/api/auth/sign-out").status, 200);
  EXPECT_FALSE(IsLive(first, a.token));
  EXPECT_TRUE(IsLive(first, b.token));
  WaitOutSessionCache();
  EXPECT_FALSE(IsLive(second, a.token));
  EXPECT_TRUE(IsLive(second, b.token));

  ASSERT_EQ(second.PostAs(b.token, "/api/auth/revoke-sessions").status, 200);
  EXPECT_FALSE(IsLive(second, b.token));
  WaitOutSessionCache();
  EXPECT_FALSE(IsLive(first, b.token));
  EXPECT_EQ(SessionRows(first, a.user_id), 0);
}

TEST(AuthSessions, ExpiredSessionIsNoSession) {
  AuthApp auth;
  const Account a = auth.NewAccount("expired@example.com");
  ASSERT_EQ(
      auth.Execute(R"(UPDATE "_cairn_auth_sessions" SET "expires_at" = ? WHERE "user_id" = ?)",
                   {NowMillis() - 1000, std::string_view(a.user_id)}),
      1);
  EXPECT_EQ(auth.GetAs(a.token, "/api/auth/get-session").body, "null");
  EXPECT_EQ(auth.GetWithCookie(a.cookie_value, "/api/auth/get-session").body, "null");
  EXPECT_TRUE(IsAuthError(auth.GetAs(a.token, "/api/auth/list-sessions"), 401, "UNAUTHORIZED", ""));
  EXPECT_EQ(auth.PostAs(a.token, "/api/auth/update-user", R"({"name":"Late"})").status, 401);
  // An expired session is not listed either.
  const Account b = auth.SignInOk(a.email, a.password);
  const auto list = auth.GetAs(b.token, "/api/auth/list-sessions");
  ASSERT_EQ(list.status, 200) << list.body;
  EXPECT_EQ(list.Json().as_array().size(), 1u);
}

TEST(AuthSessions, SessionUnusedForADayIsRefreshed) {
  AuthApp auth;
  const Account a = auth.NewAccount("refresh@example.com");
  const std::int64_t now = NowMillis();
  const std::int64_t old_expiry = now + 5 * kDay;
  ASSERT_EQ(auth.Execute(R"(UPDATE "_cairn_auth_sessions" SET "updated_at" = ?, "expires_at" = ? )"
                         R"(WHERE "user_id" = ?)",
                         {now - 2 * kDay, old_expiry, std::string_view(a.user_id)}),
            1);
  const auto result = auth.GetWithCookie(a.cookie_value, "/api/auth/get-session");
  ASSERT_EQ(result.status, 200) << result.body;
  ASSERT_TRUE(result.Json().is_object()) << result.body;

  auto rows = auth.Query(R"(SELECT "expires_at", "updated_at" FROM "_cairn_auth_sessions" )"
                         R"(WHERE "user_id" = ?)",
                         {std::string_view(a.user_id)});
  ASSERT_EQ(rows.size(), 1u);
  const std::int64_t new_expiry = ToInt(rows[0][0]);
  EXPECT_GE(new_expiry, now + 7 * kDay);
  EXPECT_LE(new_expiry, NowMillis() + 7 * kDay);
  EXPECT_GE(ToInt(rows[0][1]), now);
  // The answer shows the extended expiry, and the cookie is sent again for another 7 days.
  auto shown = time::ParseIso(result.Json().at("session").at("expiresAt").as_string());
  ASSERT_TRUE(shown.has_value());
  EXPECT_EQ(*shown, new_expiry);
  const auto cookie = result.SetCookie(kSessionCookieName);
  ASSERT_TRUE(cookie.has_value());
  EXPECT_EQ(*cookie, std::string(kSessionCookieName) + "=" + a.cookie_value +
                         "; Max-Age=604800; Path=/; HttpOnly; SameSite=Lax");
  EXPECT_EQ(result.Header("set-auth-token"), a.signed_value);

  // Refreshed once: the next call within the day does not write or re-send.
  const auto again = auth.GetWithCookie(a.cookie_value, "/api/auth/get-session");
  EXPECT_TRUE(again.set_cookies.empty());
  EXPECT_EQ(
      ToInt(auth.Scalar(R"(SELECT "expires_at" FROM "_cairn_auth_sessions" WHERE "user_id" = ?)",
                        {std::string_view(a.user_id)})),
      new_expiry);
}

TEST(AuthSessions, RecentlyRefreshedSessionIsNotExtended) {
  AuthApp auth;
  const Account a = auth.NewAccount("norefresh@example.com");
  const std::int64_t now = NowMillis();
  ASSERT_EQ(auth.Execute(R"(UPDATE "_cairn_auth_sessions" SET "updated_at" = ?, "expires_at" = ? )"
                         R"(WHERE "user_id" = ?)",
                         {now - kDay / 2, now + 6 * kDay, std::string_view(a.user_id)}),
            1);
  const auto result = auth.GetWithCookie(a.cookie_value, "/api/auth/get-session");
  ASSERT_EQ(result.status, 200) << result.body;
  EXPECT_TRUE(result.set_cookies.empty());
  EXPECT_EQ(
      ToInt(auth.Scalar(R"(SELECT "expires_at" FROM "_cairn_auth_sessions" WHERE "user_id" = ?)",
                        {std::string_view(a.user_id)})),
      now + 6 * kDay);
}

}  // namespace
}  // namespace cairn::test
