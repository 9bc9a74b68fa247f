// /api/auth/two-factor/* end to end (D19), on the backend of this run: setup with TOTP and
// backup codes, the sign-in challenge (no session before the second factor), replay refused
// (also across two nodes on one database), trusted devices, single-use backup codes, codes by
// mail read from the outbox, per-user and per-address guess limits, CSRF, and what is stored.
#include <gtest/gtest.h>

#include <regex>
#include <set>

#include "auth/totp.hpp"
#include "e2e/auth_test_support.hpp"

namespace cairn::test {
namespace {

constexpr const char* kTwoFactorCookie = "better-auth.two_factor";
constexpr const char* kTrustCookie = "better-auth.trust_device";
constexpr const char* kPassword = "correct horse 1";

std::string Decode32(const std::string& text) {
  static const std::string kAlphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZ234567";
  std::string out;
  std::uint32_t buffer = 0;
  int bits = 0;
  for (char c : text) {
    buffer = (buffer << 5) | static_cast<std::uint32_t>(kAlphabet.find(c));
    bits += 5;
    if (bits >= 8) {
      out.push_back(static_cast<char>((buffer >> (bits - 8)) & 0xFF));
      bits -= 8;
    }
  }
  return out;
}

std::int64_t CurrentStep() {
  return NowMillis() / 1000 / auth::totp::kPeriodSeconds;
}

// A cookie's value as a Set-Cookie header set it (nullopt when not set).
std::optional<std::string> CookieSet(const HttpResult& result, const std::string& name) {
  const auto header = result.SetCookie(name);
  if (!header) return std::nullopt;
  const std::size_t start = name.size() + 1;
  return header->substr(start, header->find(';') - start);
}

struct Enrolled {
  std::string uri;
  std::string key;  // the TOTP key's bytes
  std::vector<std::string> backup_codes;
};

class TwoFactorTest : public ::testing::Test {
 protected:
  TwoFactorTest() : auth_("", "twoFactor: true") {}
  explicit TwoFactorTest(TestAppOptions options) : auth_(std::move(options)) {}

  HttpResult Post(const std::string& target, const std::string& json, const Headers& headers) {
    Headers with_origin = headers;
    with_origin.emplace_back("Origin", auth_.Origin());
    return auth_.Client().PostJson(target, json, with_origin);
  }
  // A request that carries the challenge cookie (and the trusted origin, as a browser would).
  HttpResult PostWithChallenge(const std::string& challenge, const std::string& target,
                               const std::string& json = "{}") {
    return Post(target, json, {{"Cookie", std::string(kTwoFactorCookie) + "=" + challenge}});
  }

  Enrolled Enable(const Account& account) {
    const auto result = auth_.PostAs(account.token, "/api/auth/two-factor/enable",
                                     R"({"password":")" + account.password + R"("})");
    EXPECT_EQ(result.status, 200) << result.body;
    const auto body = result.Json();
    Enrolled enrolled;
    enrolled.uri = std::string(body.at("totpURI").as_string());
    enrolled.key = Decode32(QueryParam(enrolled.uri, "secret"));
    for (const auto& code : body.at("backupCodes").as_array()) {
      enrolled.backup_codes.emplace_back(code.as_string());
    }
    return enrolled;
  }

  // Enables two-factor and confirms it with the current code (that step is then used).
  Enrolled EnableAndConfirm(const Account& account) {
    Enrolled enrolled = Enable(account);
    const auto result = auth_.PostAs(account.token, "/api/auth/two-factor/verify-totp",
                                     R"({"code":")" + Code(enrolled, 0) + R"("})");
    EXPECT_EQ(result.status, 200) << result.body;
    return enrolled;
  }

  static std::string Code(const Enrolled& enrolled, std::int64_t steps_ahead) {
    return auth::totp::Hotp(enrolled.key, static_cast<std::uint64_t>(CurrentStep() + steps_ahead));
  }

  // Lets the user's next code be any code of the window again (tests that verify many times).
  void ForgetUsedSteps() {
    auth_.Execute(R"(UPDATE "_cairn_auth_two_factor" SET "last_totp_step" = NULL)");
  }

  // Signs in with the password and expects the challenge; returns the challenge cookie.
  std::string Challenge(const Account& account, const Headers& headers = {}) {
    const auto result = auth_.SignIn(account.email, account.password, "", headers);
    EXPECT_EQ(result.status, 200) << result.body;
    EXPECT_EQ(result.Json().at("twoFactorRedirect"), true) << result.body;
    EXPECT_FALSE(result.SetCookie(kSessionCookieName).has_value());
    const auto cookie = CookieSet(result, kTwoFactorCookie);
    EXPECT_TRUE(cookie.has_value()) << result.body;
    return cookie.value_or("");
  }

  std::int64_t SessionsOf(const Account& account) {
    return auth_.Count(R"(SELECT COUNT(*) FROM "_cairn_auth_sessions" WHERE "user_id" = ?)",
                       {std::string_view(account.user_id)});
  }
  std::int64_t Events(const std::string& action, const Account& account) {
    return auth_.Count(
        R"(SELECT COUNT(*) FROM "_cairn_activity" WHERE "action" = ? AND "user_id" = ?)",
        {std::string_view(action), std::string_view(account.user_id)});
  }

  AuthApp auth_;
};

// --- Config -------------------------------------------------------------------------------------

TEST(TwoFactorConfig, RoutesExistOnlyWithTwoFactorOn) {
  AuthApp off;
  const Account a = off.NewAccount("off@example.com");
  for (const char* path : {"enable", "disable", "get-totp-uri", "generate-backup-codes",
                           "verify-totp", "verify-backup-code", "send-otp", "verify-otp"}) {
    EXPECT_EQ(off.PostAs(a.token, std::string("/api/auth/two-factor/") + path, "{}").status, 404)
        << path;
  }
  // And sign-in ignores the flag: there is no second factor to ask for.
  off.Execute(R"(UPDATE "_cairn_auth_users" SET "two_factor_enabled" = 1)");
  const auto signed_in = off.SignIn("off@example.com", kPassword);
  EXPECT_EQ(signed_in.status, 200);
  EXPECT_TRUE(signed_in.Json().as_object().contains("token"));
}

// --- Setup --------------------------------------------------------------------------------------

TEST_F(TwoFactorTest, EnableAnswersUriAndTenBackupCodesAndStoresThemSealed) {
  const Account a = auth_.NewAccount("enable@example.com");
  EXPECT_TRUE(IsAuthError(
      auth_.Client().PostJson("/api/auth/two-factor/enable", R"({"password":"correct horse 1"})"),
      401, "UNAUTHORIZED", ""));
  EXPECT_TRUE(IsAuthError(
      auth_.PostAs(a.token, "/api/auth/two-factor/enable", R"({"password":"wrong horse 1"})"), 400,
      "VALIDATION_ERROR", "INVALID_PASSWORD"));
  EXPECT_TRUE(IsAuthError(auth_.PostAs(a.token, "/api/auth/two-factor/enable", "{}"), 400,
                          "VALIDATION_ERROR", ""));

  const auto result =
      auth_.PostAs(a.token, "/api/auth/two-factor/enable", R"({"password":"correct horse 1"})");
  ASSERT_EQ(result.status, 200) << result.body;
  const auto body = result.Json();
  EXPECT_EQ(body.at("method"), "totp");
  const std::string uri(body.at("totpURI").as_string());
  EXPECT_TRUE(uri.starts_with("otpauth://totp/e2e-app:enable%40example.com?secret=")) << uri;
  EXPECT_NE(uri.find("&issuer=e2e-app&digits=6&period=30"), std::string::npos) << uri;
  const std::string secret32 = QueryParam(uri, "secret");
  const std::string key = Decode32(secret32);
  EXPECT_EQ(key.size(), 32u);
  const auto& codes = body.at("backupCodes").as_array();
  ASSERT_EQ(codes.size(), 10u);
  std::set<std::string> distinct;
  for (const auto& code : codes) {
    const std::string text(code.as_string());
    EXPECT_TRUE(std::regex_match(text, std::regex("[A-Za-z0-9]{5}-[A-Za-z0-9]{5}"))) << text;
    distinct.insert(text);
  }
  EXPECT_EQ(distinct.size(), 10u);

  // Stored sealed: neither the key (raw or base32) nor any backup code is in the row.
  auto rows = auth_.Query(R"(SELECT "secret", "backup_codes", "verified" FROM )"
                          R"("_cairn_auth_two_factor" WHERE "user_id" = ?)",
                          {std::string_view(a.user_id)});
  ASSERT_EQ(rows.size(), 1u);
  const std::string stored_secret = rows[0][0].value_or("");
  const std::string stored_codes = rows[0][1].value_or("");
  EXPECT_FALSE(stored_secret.empty());
  EXPECT_EQ(stored_secret.find(key), std::string::npos);
  EXPECT_EQ(stored_secret.find(secret32), std::string::npos);
  for (const auto& code : distinct) EXPECT_EQ(stored_codes.find(code), std::string::npos);
  EXPECT_EQ(ToInt(rows[0][2]), 0);
  // Not on until a code confirms the secret.
  EXPECT_EQ(auth_.GetAs(a.token, "/api/auth/get-session").Json().at("user").at("twoFactorEnabled"),
            false);
  EXPECT_EQ(auth_.SignIn(a.email, a.password).Json().as_object().count("twoFactorRedirect"), 0u);
}

TEST_F(TwoFactorTest, AFirstCodeTurnsItOnAndIsRecorded) {
  const Account a = auth_.NewAccount("confirm@example.com");
  const Enrolled enrolled = Enable(a);
  EXPECT_TRUE(IsAuthError(
      auth_.PostAs(a.token, "/api/auth/two-factor/verify-totp", R"({"code":"000000x"})"), 401,
      "UNAUTHORIZED", "INVALID_CODE"));
  const std::string code = Code(enrolled, 0);
  const auto result =
      auth_.PostAs(a.token, "/api/auth/two-factor/verify-totp", R"({"code":")" + code + R"("})");
  ASSERT_EQ(result.status, 200) << result.body;
  EXPECT_EQ(result.Json().at("token"), boost::json::value(a.token));
  EXPECT_EQ(result.Json().at("user").at("twoFactorEnabled"), true);
  EXPECT_EQ(auth_.Count(R"(SELECT "two_factor_enabled" FROM "_cairn_auth_users" WHERE "id" = ?)",
                        {std::string_view(a.user_id)}),
            1);
  EXPECT_EQ(auth_.Count(R"(SELECT "verified" FROM "_cairn_auth_two_factor" WHERE "user_id" = ?)",
                        {std::string_view(a.user_id)}),
            1);
  EXPECT_EQ(Events("two_factor_enabled", a), 1);
  // The same code a second time: refused.
  EXPECT_TRUE(IsAuthError(
      auth_.PostAs(a.token, "/api/auth/two-factor/verify-totp", R"({"code":")" + code + R"("})"),
      401, "UNAUTHORIZED", "INVALID_CODE"));
  // Enabling again while on is refused; the secret stays.
  EXPECT_TRUE(IsAuthError(
      auth_.PostAs(a.token, "/api/auth/two-factor/enable", R"({"password":"correct horse 1"})"),
      400, "VALIDATION_ERROR", "TOTP_ALREADY_ENABLED"));
}

TEST_F(TwoFactorTest, GetTotpUriNeedsTheSecretAndThePassword) {
  const Account a = auth_.NewAccount("uri@example.com");
  EXPECT_TRUE(IsAuthError(auth_.PostAs(a.token, "/api/auth/two-factor/get-totp-uri",
                                       R"({"password":"correct horse 1"})"),
                          400, "VALIDATION_ERROR", "TOTP_NOT_ENABLED"));
  const Enrolled enrolled = Enable(a);
  EXPECT_TRUE(IsAuthError(
      auth_.PostAs(a.token, "/api/auth/two-factor/get-totp-uri", R"({"password":"wrong horse 1"})"),
      400, "VALIDATION_ERROR", "INVALID_PASSWORD"));
  const auto result = auth_.PostAs(a.token, "/api/auth/two-factor/get-totp-uri",
                                   R"({"password":"correct horse 1"})");
  ASSERT_EQ(result.status, 200) << result.body;
  EXPECT_EQ(result.Json().at("totpURI"), boost::json::value(enrolled.uri));
  EXPECT_EQ(auth_.Client().PostJson("/api/auth/two-factor/get-totp-uri", "{}").status, 401);
}

TEST_F(TwoFactorTest, DisableNeedsThePasswordAndEndsTheChallenge) {
  const Account a = auth_.NewAccount("disable@example.com");
  EnableAndConfirm(a);
  EXPECT_TRUE(IsAuthError(
      auth_.PostAs(a.token, "/api/auth/two-factor/disable", R"({"password":"wrong horse 1"})"), 400,
      "VALIDATION_ERROR", "INVALID_PASSWORD"));
  const auto result =
      auth_.PostAs(a.token, "/api/auth/two-factor/disable", R"({"password":"correct horse 1"})");
  ASSERT_EQ(result.status, 200) << result.body;
  EXPECT_EQ(result.Json(), boost::json::parse(R"({"status":true})"));
  EXPECT_EQ(auth_.Count(R"(SELECT COUNT(*) FROM "_cairn_auth_two_factor" WHERE "user_id" = ?)",
                        {std::string_view(a.user_id)}),
            0);
  EXPECT_EQ(Events("two_factor_disabled", a), 1);
  const auto signed_in = auth_.SignIn(a.email, a.password);
  ASSERT_EQ(signed_in.status, 200);
  EXPECT_TRUE(signed_in.Json().as_object().contains("token")) << signed_in.body;
  EXPECT_EQ(signed_in.Json().at("user").at("twoFactorEnabled"), false);
}

// --- The sign-in challenge ----------------------------------------------------------------------

TEST_F(TwoFactorTest, SignInAsksForTheSecondFactorBeforeAnySession) {
  const Account a = auth_.NewAccount("challenge@example.com");
  const Enrolled enrolled = EnableAndConfirm(a);
  const std::int64_t sessions = SessionsOf(a);
  const std::int64_t sign_ins = Events("sign_in", a);

  const auto result = auth_.SignIn(a.email, a.password);
  ASSERT_EQ(result.status, 200) << result.body;
  EXPECT_EQ(result.Json(),
            boost::json::parse(R"({"twoFactorRedirect":true,"twoFactorMethods":["totp","otp"]})"));
  EXPECT_FALSE(result.SetCookie(kSessionCookieName).has_value());
  EXPECT_TRUE(result.Header("set-auth-token").empty());
  const auto header = result.SetCookie(kTwoFactorCookie);
  ASSERT_TRUE(header.has_value());
  EXPECT_NE(header->find("Max-Age=600"), std::string::npos) << *header;
  EXPECT_NE(header->find("HttpOnly"), std::string::npos) << *header;
  const std::string challenge = CookieSet(result, kTwoFactorCookie).value();
  EXPECT_EQ(SessionsOf(a), sessions);  // no session before the second factor
  EXPECT_EQ(Events("sign_in", a), sign_ins);

  // No cookie, a forged one, a wrong code: refused, still no session.
  EXPECT_TRUE(IsAuthError(
      Post("/api/auth/two-factor/verify-totp", R"({"code":")" + Code(enrolled, 1) + R"("})", {}),
      401, "UNAUTHORIZED", "INVALID_TWO_FACTOR_COOKIE"));
  const std::string value = challenge.substr(0, challenge.find('.'));
  EXPECT_TRUE(IsAuthError(PostWithChallenge(value + ".AAAA", "/api/auth/two-factor/verify-totp",
                                            R"({"code":")" + Code(enrolled, 1) + R"("})"),
                          401, "UNAUTHORIZED", "INVALID_TWO_FACTOR_COOKIE"));
  EXPECT_TRUE(IsAuthError(
      PostWithChallenge(challenge, "/api/auth/two-factor/verify-totp", R"({"code":"123456"})"), 401,
      "UNAUTHORIZED", "INVALID_CODE"));
  EXPECT_EQ(SessionsOf(a), sessions);

  // The right code (the next step: this one was used to confirm) signs in.
  const std::string code = Code(enrolled, 1);
  const auto passed = PostWithChallenge(challenge, "/api/auth/two-factor/verify-totp",
                                        R"({"code":")" + code + R"("})");
  ASSERT_EQ(passed.status, 200) << passed.body;
  const std::string token(passed.Json().at("token").as_string());
  EXPECT_EQ(passed.Json().at("user").at("id"), boost::json::value(a.user_id));
  EXPECT_TRUE(passed.SetCookie(kSessionCookieName).has_value());
  EXPECT_EQ(CookieSet(passed, kTwoFactorCookie), "");  // the challenge cookie is cleared
  EXPECT_FALSE(passed.SetCookie(kTrustCookie).has_value());
  EXPECT_EQ(SessionsOf(a), sessions + 1);
  const auto session = auth_.GetAs(token, "/api/auth/get-session");
  EXPECT_EQ(session.Json().at("user").at("id"), boost::json::value(a.user_id));
  EXPECT_EQ(auth_.Count(R"(SELECT COUNT(*) FROM "_cairn_activity" WHERE "action" = 'sign_in' )"
                        R"(AND "user_id" = ? AND "metadata" LIKE '%"secondFactor":"totp"%')",
                        {std::string_view(a.user_id)}),
            1);

  // The challenge is spent, and the code is refused on a new challenge (replay).
  EXPECT_TRUE(IsAuthError(PostWithChallenge(challenge, "/api/auth/two-factor/verify-totp",
                                            R"({"code":")" + code + R"("})"),
                          401, "UNAUTHORIZED", "INVALID_TWO_FACTOR_COOKIE"));
  const std::string again = Challenge(a);
  EXPECT_TRUE(IsAuthError(
      PostWithChallenge(again, "/api/auth/two-factor/verify-totp", R"({"code":")" + code + R"("})"),
      401, "UNAUTHORIZED", "INVALID_CODE"));
}

TEST_F(TwoFactorTest, ChallengeEndsAfterFiveWrongCodes) {
  const Account a = auth_.NewAccount("attempts@example.com");
  const Enrolled enrolled = EnableAndConfirm(a);
  ForgetUsedSteps();
  const std::string challenge = Challenge(a);
  for (int i = 0; i < 5; ++i) {
    EXPECT_TRUE(IsAuthError(
        PostWithChallenge(challenge, "/api/auth/two-factor/verify-totp", R"({"code":"999999"})"),
        401, "UNAUTHORIZED", "INVALID_CODE"));
  }
  EXPECT_TRUE(IsAuthError(PostWithChallenge(challenge, "/api/auth/two-factor/verify-totp",
                                            R"({"code":")" + Code(enrolled, 0) + R"("})"),
                          400, "VALIDATION_ERROR", "TOO_MANY_ATTEMPTS_REQUEST_NEW_CODE"));
  EXPECT_TRUE(IsAuthError(PostWithChallenge(challenge, "/api/auth/two-factor/verify-totp",
                                            R"({"code":")" + Code(enrolled, 0) + R"("})"),
                          401, "UNAUTHORIZED", "INVALID_TWO_FACTOR_COOKIE"));
}

TEST_F(TwoFactorTest, ChallengeCookieNeedsATrustedOrigin) {
  const Account a = auth_.NewAccount("csrf@example.com");
  const Enrolled enrolled = EnableAndConfirm(a);
  const std::string challenge = Challenge(a);
  const auto result = auth_.Client().PostJson(
      "/api/auth/two-factor/verify-totp", R"({"code":")" + Code(enrolled, 1) + R"("})",
      {{"Cookie", std::string(kTwoFactorCookie) + "=" + challenge},
       {"Origin", "https://evil.example"}});
  EXPECT_EQ(result.status, 403) << result.body;
  EXPECT_EQ(SessionsOf(a), 1);  // the sign-up's only
}

TEST_F(TwoFactorTest, ATrustedDeviceSkipsTheChallenge) {
  const Account a = auth_.NewAccount("trust@example.com");
  const Account b = auth_.NewAccount("other-device@example.com");
  const Enrolled enrolled = EnableAndConfirm(a);
  EnableAndConfirm(b);
  const auto passed =
      PostWithChallenge(Challenge(a), "/api/auth/two-factor/verify-totp",
                        R"({"code":")" + Code(enrolled, 1) + R"(","trustDevice":true})");
  ASSERT_EQ(passed.status, 200) << passed.body;
  const auto header = passed.SetCookie(kTrustCookie);
  ASSERT_TRUE(header.has_value());
  EXPECT_NE(header->find("Max-Age=2592000"), std::string::npos) << *header;
  const std::string trust = CookieSet(passed, kTrustCookie).value();
  EXPECT_EQ(auth_.Count(R"(SELECT COUNT(*) FROM "_cairn_auth_verifications" )"
                        R"(WHERE "purpose" = 'trust-device' AND "user_id" = ?)",
                        {std::string_view(a.user_id)}),
            1);

  const auto trusted = [&](const std::string& cookie) {
    return Headers{{"Cookie", std::string(kTrustCookie) + "=" + cookie},
                   {"Origin", auth_.Origin()}};
  };
  const auto direct = auth_.SignIn(a.email, a.password, "", trusted(trust));
  ASSERT_EQ(direct.status, 200) << direct.body;
  EXPECT_TRUE(direct.Json().as_object().contains("token")) << direct.body;
  EXPECT_TRUE(direct.SetCookie(kSessionCookieName).has_value());
  // Each trusted sign-in renews the cookie (30 days from now); the old one stops counting.
  std::string renewed = CookieSet(direct, kTrustCookie).value_or("");
  EXPECT_FALSE(renewed.empty());
  EXPECT_NE(renewed, trust);
  EXPECT_EQ(auth_.Count(R"(SELECT COUNT(*) FROM "_cairn_auth_verifications" )"
                        R"(WHERE "purpose" = 'trust-device' AND "user_id" = ?)",
                        {std::string_view(a.user_id)}),
            1);
  const auto stale = auth_.SignIn(a.email, a.password, "", trusted(trust));
  EXPECT_EQ(stale.Json().at("twoFactorRedirect"), true) << stale.body;
  EXPECT_EQ(CookieSet(stale, kTrustCookie), "");  // the browser is told to drop it
  const auto again = auth_.SignIn(a.email, a.password, "", trusted(renewed));
  ASSERT_TRUE(again.Json().as_object().contains("token")) << again.body;
  renewed = CookieSet(again, kTrustCookie).value_or("");
  // The cookie is bound to its user, and its signature to the server.
  Challenge(b, trusted(renewed));
  std::string tampered = renewed;
  tampered[0] = tampered[0] == 'A' ? 'B' : 'A';
  Challenge(a, trusted(tampered));

  // Turning two-factor off forgets the device: on again, it is challenged.
  ASSERT_EQ(
      auth_.PostAs(a.token, "/api/auth/two-factor/disable", R"({"password":"correct horse 1"})")
          .status,
      200);
  EXPECT_EQ(auth_.Count(R"(SELECT COUNT(*) FROM "_cairn_auth_verifications" )"
                        R"(WHERE "purpose" = 'trust-device' AND "user_id" = ?)",
                        {std::string_view(a.user_id)}),
            0);
  EnableAndConfirm(a);
  Challenge(a, trusted(renewed));
}

TEST_F(TwoFactorTest, VerifyRoutesNeedASessionOrAChallenge) {
  for (const char* path : {"verify-totp", "verify-backup-code", "verify-otp"}) {
    EXPECT_TRUE(IsAuthError(
        auth_.Client().PostJson(std::string("/api/auth/two-factor/") + path, R"({"code":"1"})"),
        401, "UNAUTHORIZED", "INVALID_TWO_FACTOR_COOKIE"))
        << path;
  }
  EXPECT_TRUE(IsAuthError(auth_.Client().PostJson("/api/auth/two-factor/send-otp", "{}"), 401,
                          "UNAUTHORIZED", "INVALID_TWO_FACTOR_COOKIE"));
  for (const char* path : {"disable", "generate-backup-codes"}) {
    EXPECT_EQ(auth_.Client()
                  .PostJson(std::string("/api/auth/two-factor/") + path,
                            R"({"password":"correct horse 1"})")
                  .status,
              401)
        << path;
  }
  // A code must be a string.
  const Account a = auth_.NewAccount("types@example.com");
  EXPECT_TRUE(
      IsAuthError(auth_.PostAs(a.token, "/api/auth/two-factor/verify-totp", R"({"code":123456})"),
                  400, "VALIDATION_ERROR", ""));
}

TEST_F(TwoFactorTest, TheSessionAfterTheChallengeKeepsRememberMe) {
  const Account a = auth_.NewAccount("remember@example.com");
  const Enrolled enrolled = EnableAndConfirm(a);
  const auto result = auth_.SignIn(a.email, a.password, R"("rememberMe":false)");
  const std::string challenge = CookieSet(result, kTwoFactorCookie).value();
  const auto passed = PostWithChallenge(challenge, "/api/auth/two-factor/verify-totp",
                                        R"({"code":")" + Code(enrolled, 1) + R"("})");
  ASSERT_EQ(passed.status, 200) << passed.body;
  const auto cookie = passed.SetCookie(kSessionCookieName);
  ASSERT_TRUE(cookie.has_value());
  EXPECT_EQ(cookie->find("Max-Age"), std::string::npos) << *cookie;  // a browser-session cookie
  EXPECT_EQ(auth_.Count(R"(SELECT COUNT(*) FROM "_cairn_auth_sessions" WHERE "user_id" = ? )"
                        R"(AND "remember" = 0)",
                        {std::string_view(a.user_id)}),
            1);
}

// --- Backup codes -------------------------------------------------------------------------------

TEST_F(TwoFactorTest, BackupCodesSignInOnceEach) {
  const Account a = auth_.NewAccount("backup@example.com");
  const Enrolled enrolled = EnableAndConfirm(a);
  const std::string code = enrolled.backup_codes[3];
  EXPECT_TRUE(IsAuthError(PostWithChallenge(Challenge(a), "/api/auth/two-factor/verify-backup-code",
                                            R"({"code":"aaaaa-bbbbb"})"),
                          401, "UNAUTHORIZED", "INVALID_BACKUP_CODE"));
  const auto passed = PostWithChallenge(Challenge(a), "/api/auth/two-factor/verify-backup-code",
                                        R"({"code":")" + code + R"("})");
  ASSERT_EQ(passed.status, 200) << passed.body;
  EXPECT_TRUE(passed.SetCookie(kSessionCookieName).has_value());
  const std::string token(passed.Json().at("token").as_string());
  EXPECT_EQ(auth_.GetAs(token, "/api/auth/get-session").status, 200);
  // Used once: refused the second time; another code still works.
  EXPECT_TRUE(IsAuthError(PostWithChallenge(Challenge(a), "/api/auth/two-factor/verify-backup-code",
                                            R"({"code":")" + code + R"("})"),
                          401, "UNAUTHORIZED", "INVALID_BACKUP_CODE"));
  EXPECT_EQ(PostWithChallenge(Challenge(a), "/api/auth/two-factor/verify-backup-code",
                              R"({"code":")" + enrolled.backup_codes[4] + R"("})")
                .status,
            200);
}

TEST_F(TwoFactorTest, DisableSessionChecksABackupCodeWithoutSigningIn) {
  const Account a = auth_.NewAccount("check-only@example.com");
  const Enrolled enrolled = EnableAndConfirm(a);
  const std::string challenge = Challenge(a);
  const std::int64_t sessions = SessionsOf(a);
  const auto checked =
      PostWithChallenge(challenge, "/api/auth/two-factor/verify-backup-code",
                        R"({"code":")" + enrolled.backup_codes[0] + R"(","disableSession":true})");
  ASSERT_EQ(checked.status, 200) << checked.body;
  EXPECT_FALSE(checked.Json().as_object().contains("token")) << checked.body;
  EXPECT_EQ(checked.Json().at("user").at("id"), boost::json::value(a.user_id));
  EXPECT_FALSE(checked.SetCookie(kSessionCookieName).has_value());
  EXPECT_EQ(SessionsOf(a), sessions);
  // The code is spent all the same.
  EXPECT_TRUE(IsAuthError(PostWithChallenge(challenge, "/api/auth/two-factor/verify-backup-code",
                                            R"({"code":")" + enrolled.backup_codes[0] + R"("})"),
                          401, "UNAUTHORIZED", "INVALID_BACKUP_CODE"));
}

TEST_F(TwoFactorTest, NewBackupCodesReplaceTheOldOnes) {
  const Account a = auth_.NewAccount("regenerate@example.com");
  EXPECT_TRUE(IsAuthError(auth_.PostAs(a.token, "/api/auth/two-factor/generate-backup-codes",
                                       R"({"password":"correct horse 1"})"),
                          400, "VALIDATION_ERROR", "TWO_FACTOR_NOT_ENABLED"));
  const Enrolled enrolled = EnableAndConfirm(a);
  EXPECT_TRUE(IsAuthError(auth_.PostAs(a.token, "/api/auth/two-factor/generate-backup-codes",
                                       R"({"password":"wrong horse 1"})"),
                          400, "VALIDATION_ERROR", "INVALID_PASSWORD"));
  const auto result = auth_.PostAs(a.token, "/api/auth/two-factor/generate-backup-codes",
                                   R"({"password":"correct horse 1"})");
  ASSERT_EQ(result.status, 200) << result.body;
  const auto body = result.Json();
  EXPECT_EQ(body.at("status"), true);
  const auto& fresh = body.at("backupCodes").as_array();
  ASSERT_EQ(fresh.size(), 10u);
  const std::string new_code(fresh[0].as_string());
  const std::string stored =
      auth_.Scalar(R"(SELECT "backup_codes" FROM "_cairn_auth_two_factor")").value_or("");
  EXPECT_EQ(stored.find(new_code), std::string::npos);
  EXPECT_TRUE(IsAuthError(PostWithChallenge(Challenge(a), "/api/auth/two-factor/verify-backup-code",
                                            R"({"code":")" + enrolled.backup_codes[0] + R"("})"),
                          401, "UNAUTHORIZED", "INVALID_BACKUP_CODE"));
  EXPECT_EQ(PostWithChallenge(Challenge(a), "/api/auth/two-factor/verify-backup-code",
                              R"({"code":")" + new_code + R"("})")
                .status,
            200);
}

// --- Codes by mail ------------------------------------------------------------------------------

TEST_F(TwoFactorTest, AMailedCodeSignsInOnce) {
  const Account a = auth_.NewAccount("otp@example.com");
  EnableAndConfirm(a);
  const std::string challenge = Challenge(a);
  // Nothing sent yet.
  EXPECT_TRUE(IsAuthError(
      PostWithChallenge(challenge, "/api/auth/two-factor/verify-otp", R"({"code":"123456"})"), 400,
      "VALIDATION_ERROR", "OTP_HAS_EXPIRED"));
  const std::size_t mails = auth_.OutboxSize();
  const auto sent = PostWithChallenge(challenge, "/api/auth/two-factor/send-otp");
  ASSERT_EQ(sent.status, 200) << sent.body;
  EXPECT_EQ(sent.Json(), boost::json::parse(R"({"status":true})"));
  ASSERT_EQ(auth_.OutboxSize(), mails + 1);
  const ParsedMail mail = auth_.LastMail();
  EXPECT_EQ(mail.Header("to"), "otp@example.com");
  std::smatch match;
  ASSERT_TRUE(std::regex_search(mail.text, match, std::regex("\\b([0-9]{6})\\b"))) << mail.text;
  const std::string code = match[1];
  // Stored sealed, not in clear.
  const std::string stored = auth_
                                 .Scalar(R"(SELECT "value" FROM "_cairn_auth_verifications" )"
                                         R"(WHERE "purpose" = 'two-factor-otp')")
                                 .value_or("");
  EXPECT_EQ(stored.find(code), std::string::npos);

  const std::string wrong = code == "000000" ? "111111" : "000000";
  EXPECT_TRUE(IsAuthError(PostWithChallenge(challenge, "/api/auth/two-factor/verify-otp",
                                            R"({"code":")" + wrong + R"("})"),
                          401, "UNAUTHORIZED", "INVALID_CODE"));
  const auto passed = PostWithChallenge(challenge, "/api/auth/two-factor/verify-otp",
                                        R"({"code":")" + code + R"("})");
  ASSERT_EQ(passed.status, 200) << passed.body;
  EXPECT_TRUE(passed.SetCookie(kSessionCookieName).has_value());
  EXPECT_EQ(auth_.Count(R"(SELECT COUNT(*) FROM "_cairn_activity" WHERE "action" = 'sign_in' )"
                        R"(AND "user_id" = ? AND "metadata" LIKE '%"secondFactor":"otp"%')",
                        {std::string_view(a.user_id)}),
            1);
  // Used: gone.
  EXPECT_TRUE(IsAuthError(PostWithChallenge(Challenge(a), "/api/auth/two-factor/verify-otp",
                                            R"({"code":")" + code + R"("})"),
                          400, "VALIDATION_ERROR", "OTP_HAS_EXPIRED"));
}

TEST_F(TwoFactorTest, AMailedCodeAllowsFiveWrongGuesses) {
  const Account a = auth_.NewAccount("otp-guesses@example.com");
  EnableAndConfirm(a);
  const std::string challenge = Challenge(a);
  ASSERT_EQ(PostWithChallenge(challenge, "/api/auth/two-factor/send-otp").status, 200);
  std::smatch match;
  const std::string text = auth_.LastMail().text;
  ASSERT_TRUE(std::regex_search(text, match, std::regex("\\b([0-9]{6})\\b")));
  const std::string code = match[1];
  const std::string wrong = code == "000000" ? "111111" : "000000";
  for (int i = 0; i < 5; ++i) {
    EXPECT_TRUE(IsAuthError(PostWithChallenge(challenge, "/api/auth/two-factor/verify-otp",
                                              R"({"code":")" + wrong + R"("})"),
                            401, "UNAUTHORIZED", "INVALID_CODE"));
  }
  EXPECT_TRUE(IsAuthError(PostWithChallenge(challenge, "/api/auth/two-factor/verify-otp",
                                            R"({"code":")" + code + R"("})"),
                          400, "VALIDATION_ERROR", "TOO_MANY_ATTEMPTS_REQUEST_NEW_CODE"));
}

TEST_F(TwoFactorTest, AMailedCodeVerifiedWhileSignedInTurnsItOn) {
  const Account a = auth_.NewAccount("otp-session@example.com");
  ASSERT_EQ(auth_.PostAs(a.token, "/api/auth/two-factor/send-otp").status, 200);
  std::smatch match;
  const std::string text = auth_.LastMail().text;
  ASSERT_TRUE(std::regex_search(text, match, std::regex("\\b([0-9]{6})\\b")));
  const auto result = auth_.PostAs(a.token, "/api/auth/two-factor/verify-otp",
                                   R"({"code":")" + std::string(match[1]) + R"("})");
  ASSERT_EQ(result.status, 200) << result.body;
  EXPECT_EQ(result.Json().at("token"), boost::json::value(a.token));
  EXPECT_EQ(result.Json().at("user").at("twoFactorEnabled"), true);
  EXPECT_EQ(Events("two_factor_enabled", a), 1);
  EXPECT_EQ(auth_.SignIn(a.email, a.password).Json().at("twoFactorRedirect"), true);
}

TEST_F(TwoFactorTest, OtpMethodTurnsItOnWithoutAnAuthenticator) {
  const Account a = auth_.NewAccount("otp-only@example.com");
  const auto result = auth_.PostAs(a.token, "/api/auth/two-factor/enable",
                                   R"({"password":"correct horse 1","method":"otp"})");
  ASSERT_EQ(result.status, 200) << result.body;
  EXPECT_EQ(result.Json(), boost::json::parse(R"({"method":"otp"})"));
  EXPECT_EQ(Events("two_factor_enabled", a), 1);
  const auto challenged = auth_.SignIn(a.email, a.password);
  EXPECT_EQ(challenged.Json(),
            boost::json::parse(R"({"twoFactorRedirect":true,"twoFactorMethods":["otp"]})"));
  // No authenticator secret: TOTP cannot answer the challenge.
  EXPECT_TRUE(
      IsAuthError(PostWithChallenge(CookieSet(challenged, kTwoFactorCookie).value(),
                                    "/api/auth/two-factor/verify-totp", R"({"code":"123456"})"),
                  400, "VALIDATION_ERROR", "TOTP_NOT_ENABLED"));
}

// --- Replay across nodes ------------------------------------------------------------------------

TEST(TwoFactorNodes, ACodeAcceptedOnOneNodeIsRefusedOnAnother) {
  AuthApp first(AuthAppOptions("", "twoFactor: true"));
  TestAppOptions options = AuthAppOptions("", "twoFactor: true");
  options.share_database_with = &first.app();
  AuthApp second(std::move(options));
  const Account a = first.NewAccount("nodes@example.com");
  const auto enabled =
      first.PostAs(a.token, "/api/auth/two-factor/enable", R"({"password":"correct horse 1"})");
  ASSERT_EQ(enabled.status, 200) << enabled.body;
  const std::string key =
      Decode32(QueryParam(std::string(enabled.Json().at("totpURI").as_string()), "secret"));
  const std::string code = auth::totp::Hotp(key, static_cast<std::uint64_t>(CurrentStep()));
  const std::string body = R"({"code":")" + code + R"("})";
  ASSERT_EQ(first.PostAs(a.token, "/api/auth/two-factor/verify-totp", body).status, 200);
  EXPECT_TRUE(IsAuthError(second.PostAs(a.token, "/api/auth/two-factor/verify-totp", body), 401,
                          "UNAUTHORIZED", "INVALID_CODE"));
}

// --- Guess limits -------------------------------------------------------------------------------

TestAppOptions WithRateLimits() {
  TestAppOptions options = AuthAppOptions("", "twoFactor: true");
  options.tune_settings = [](app::Settings& settings) {
    settings.auth_secret = kTestAuthSecret;
    settings.rate_limit_disabled = false;
  };
  return options;
}

class TwoFactorLimitTest : public TwoFactorTest {
 protected:
  TwoFactorLimitTest() : TwoFactorTest(WithRateLimits()) {}
};

TEST_F(TwoFactorLimitTest, CodeGuessesAreLimitedPerUserAndPerAddress) {
  const Account a = auth_.NewAccount("limit-a@example.com");
  const Account b = auth_.NewAccount("limit-b@example.com");
  const Account c = auth_.NewAccount("limit-c@example.com");
  const Enrolled enrolled = Enable(a);
  Enable(b);
  Enable(c);
  const auto guess = [&](const Account& account, const std::string& code) {
    return auth_.PostAs(account.token, "/api/auth/two-factor/verify-totp",
                        R"({"code":")" + code + R"("})");
  };
  for (int i = 0; i < 10; ++i) EXPECT_EQ(guess(a, "999999").status, 401) << i;
  // The user's limit: even the right code is refused now.
  const auto limited = guess(a, Code(enrolled, 0));
  EXPECT_TRUE(IsAuthError(limited, 429, "RATE_LIMITED", "RATE_LIMITED"));
  EXPECT_FALSE(limited.Header("retry-after").empty());
  // Backup codes and mailed codes count against the same limit.
  EXPECT_EQ(auth_
                .PostAs(a.token, "/api/auth/two-factor/verify-backup-code",
                        R"({"code":")" + enrolled.backup_codes[0] + R"("})")
                .status,
            429);
  EXPECT_EQ(auth_.PostAs(a.token, "/api/auth/two-factor/verify-otp", R"({"code":"123456"})").status,
            429);
  // Another user from the same address has its own allowance, but the address's runs out
  // (a's 13 guesses, refused ones too, and b's count against 127.0.0.1).
  EXPECT_EQ(guess(b, "999999").status, 401);
  for (int i = 0; i < 20; ++i) (void)guess(b, "999999");
  EXPECT_TRUE(IsAuthError(guess(c, "999999"), 429, "RATE_LIMITED", "RATE_LIMITED"));
}

}  // namespace
}  // namespace cairn::test
