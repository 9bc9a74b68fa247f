// Magic links and email one-time codes end to end (D19): Better Auth's magicLink and emailOTP
// routes over HTTP, with the mail read from the outbox and the stored rows read from the
// database, on the backend of this run.
#include <gtest/gtest.h>

#include <cctype>
#include <regex>

#include "auth/limits.hpp"
#include "e2e/auth_test_support.hpp"

namespace cairn::test {
namespace {

constexpr std::int64_t kFiveMinutes = 5LL * 60 * 1000;

std::string PasswordlessConfig(bool allow_sign_up = true, const std::string& strategies =
                                                              "emailAndPassword, magicLink, "
                                                              "emailOtp") {
  std::string yaml = kMinimalConfig;
  yaml += "auth:\n  strategies:\n";
  std::string rest = strategies;
  while (!rest.empty()) {
    const std::size_t comma = rest.find(',');
    std::string type = rest.substr(0, comma);
    type.erase(0, type.find_first_not_of(' '));
    yaml += "    - type: " + type + "\n";
    rest = comma == std::string::npos ? "" : rest.substr(comma + 1);
  }
  if (!allow_sign_up) yaml += "  allowSignUp: false\n";
  return yaml;
}

TestAppOptions PasswordlessOptions(bool allow_sign_up = true, const std::string& strategies =
                                                                  "emailAndPassword, magicLink, "
                                                                  "emailOtp") {
  return AuthAppOptionsWithConfig(PasswordlessConfig(allow_sign_up, strategies));
}

std::string Quoted(const std::string& text) {
  return boost::json::serialize(boost::json::value(text));
}

HttpResult RequestLink(AuthApp& auth, const std::string& email, const std::string& extra = "") {
  return auth.Client().PostJson("/api/auth/sign-in/magic-link",
                                R"({"email":)" + Quoted(email) + extra + "}");
}

// Asks for a link and returns it from the outbox (the request must succeed and mail it).
std::string MailedLink(AuthApp& auth, const std::string& email, const std::string& extra = "") {
  const std::size_t before = auth.OutboxSize();
  const auto result = RequestLink(auth, email, extra);
  EXPECT_EQ(result.status, 200) << result.body;
  EXPECT_EQ(result.Json(), boost::json::parse(R"({"status":true})"));
  EXPECT_EQ(auth.OutboxSize(), before + 1) << "no mail for " << email;
  const ParsedMail mail = auth.LastMail();
  std::string lower = email;
  for (char& c : lower) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  EXPECT_NE(mail.Header("to").find(lower), std::string::npos);
  return FirstLink(mail.text);
}

HttpResult SendCode(AuthApp& auth, const std::string& email, const std::string& type) {
  return auth.Client().PostJson(
      "/api/auth/email-otp/send-verification-otp",
      R"({"email":)" + Quoted(email) + R"(,"type":)" + Quoted(type) + "}");
}

// The 6-digit code of the last mail.
std::string CodeOfLastMail(AuthApp& auth) {
  const std::string text = auth.LastMail().text;
  std::smatch match;
  if (!std::regex_search(text, match, std::regex(R"(\b(\d{6})\b)"))) return {};
  return match[1];
}

// Asks for a code and returns it from the outbox.
std::string MailedCode(AuthApp& auth, const std::string& email, const std::string& type) {
  const std::size_t before = auth.OutboxSize();
  const auto result = SendCode(auth, email, type);
  EXPECT_EQ(result.status, 200) << result.body;
  EXPECT_EQ(result.Json(), boost::json::parse(R"({"success":true})"));
  EXPECT_EQ(auth.OutboxSize(), before + 1) << "no mail for " << email;
  EXPECT_NE(auth.LastMail().Header("to").find(email), std::string::npos);
  const std::string code = CodeOfLastMail(auth);
  EXPECT_EQ(code.size(), 6u);
  return code;
}

HttpResult SignInWithCode(AuthApp& auth, const std::string& email, const std::string& otp,
                          const std::string& extra = "") {
  return auth.Client().PostJson(
      "/api/auth/sign-in/email-otp",
      R"({"email":)" + Quoted(email) + R"(,"otp":)" + Quoted(otp) + extra + "}");
}

std::string OtherCode(const std::string& code) {
  std::string other = code;
  other[0] = other[0] == '9' ? '0' : static_cast<char>(other[0] + 1);
  return other;
}

std::string CookieValueOf(const HttpResult& result) {
  const auto cookie = result.SetCookie(kSessionCookieName);
  if (!cookie) return {};
  const std::size_t start = std::string(kSessionCookieName).size() + 1;
  return cookie->substr(start, cookie->find(';') - start);
}

std::int64_t Codes(AuthApp& auth) {
  return auth.Count(R"(SELECT COUNT(*) FROM "_cairn_auth_email_codes")");
}

std::optional<std::string> VerifiedFlag(AuthApp& auth, const std::string& email) {
  return auth.Scalar(R"(SELECT "email_verified" FROM "_cairn_auth_users" WHERE "email" = ?)",
                     {std::string_view(email)});
}

std::int64_t UsersWithEmail(AuthApp& auth, const std::string& email) {
  return auth.Count(R"(SELECT COUNT(*) FROM "_cairn_auth_users" WHERE "email" = ?)",
                    {std::string_view(email)});
}

void ExpireCodes(AuthApp& auth) {
  ASSERT_GE(
      auth.Execute(R"(UPDATE "_cairn_auth_email_codes" SET "expires_at" = ?)", {NowMillis() - 1}),
      1);
}

bool IsRedirectTo(const HttpResult& result, const std::string& location) {
  return result.status == 302 && result.Header("location") == location;
}

// --- Routes follow the config -------------------------------------------------------------------

TEST(Passwordless, RoutesExistOnlyWithTheirStrategy) {
  AuthApp password_only;
  for (const char* path :
       {"/api/auth/sign-in/magic-link", "/api/auth/email-otp/send-verification-otp",
        "/api/auth/sign-in/email-otp", "/api/auth/email-otp/verify-email",
        "/api/auth/email-otp/check-verification-otp", "/api/auth/email-otp/reset-password",
        "/api/auth/email-otp/request-password-reset"}) {
    EXPECT_EQ(password_only.Client().PostJson(path, R"({"email":"a@example.com"})").status, 404)
        << path;
  }
  EXPECT_EQ(password_only.Client().Get("/api/auth/magic-link/verify?token=x").status, 404);

  AuthApp magic_only(PasswordlessOptions(true, "magicLink"));
  EXPECT_EQ(RequestLink(magic_only, "m@example.com").status, 200);
  EXPECT_EQ(SendCode(magic_only, "m@example.com", "sign-in").status, 404);
  EXPECT_EQ(magic_only.SignIn("m@example.com", "whatever 123").status, 404);

  // Codes without passwords: no password reset by code.
  AuthApp otp_only(PasswordlessOptions(true, "emailOtp"));
  EXPECT_EQ(SendCode(otp_only, "o@example.com", "sign-in").status, 200);
  EXPECT_EQ(RequestLink(otp_only, "o@example.com").status, 404);
  EXPECT_EQ(otp_only.Client()
                .PostJson("/api/auth/email-otp/reset-password",
                          R"({"email":"o@example.com","otp":"123456","password":"long enough 1"})")
                .status,
            404);
  EXPECT_TRUE(IsAuthError(SendCode(otp_only, "o@example.com", "forget-password"), 400,
                          "VALIDATION_ERROR", "INVALID_OTP_TYPE"));
}

// --- Magic links --------------------------------------------------------------------------------

TEST(MagicLink, SignsUpAnUnknownAddressOnceAndStoresOnlyAHash) {
  AuthApp auth(PasswordlessOptions());
  const std::string link = MailedLink(auth, "New.Person@Example.com",
                                      R"(,"name":"New Person","callbackURL":"/dashboard")");
  ASSERT_EQ(link.rfind(auth.Origin() + "/api/auth/magic-link/verify?token=", 0), 0u) << link;
  EXPECT_EQ(QueryParam(link, "callbackURL"), "/dashboard");
  const std::string token = QueryParam(link, "token");
  ASSERT_EQ(token.size(), 32u);

  auto rows = auth.Query(R"(SELECT "purpose", "email", "secret_hash", "expires_at", "created_at" )"
                         R"(FROM "_cairn_auth_email_codes")");
  ASSERT_EQ(rows.size(), 1u);
  EXPECT_EQ(rows[0][0], "magic-link");
  EXPECT_EQ(rows[0][1], "new.person@example.com");
  EXPECT_NE(rows[0][2], token);
  EXPECT_EQ(rows[0][2]->find(token), std::string::npos);
  EXPECT_EQ(ToInt(rows[0][3]) - ToInt(rows[0][4]), kFiveMinutes);

  // The account does not exist until the link is followed.
  EXPECT_EQ(UsersWithEmail(auth, "new.person@example.com"), 0);
  const auto followed = auth.Client().Get(TargetOf(link));
  EXPECT_TRUE(IsRedirectTo(followed, auth.Origin() + "/dashboard"))
      << followed.status << " " << followed.Header("location");
  const std::string cookie = CookieValueOf(followed);
  ASSERT_FALSE(cookie.empty());
  const auto session = auth.GetWithCookie(cookie, "/api/auth/get-session");
  ASSERT_EQ(session.status, 200);
  EXPECT_EQ(session.Json().at("user").at("email"), "new.person@example.com");
  EXPECT_EQ(session.Json().at("user").at("name"), "New Person");
  EXPECT_EQ(session.Json().at("user").at("emailVerified"), true);
  EXPECT_EQ(VerifiedFlag(auth, "new.person@example.com"), "1");
  EXPECT_EQ(Codes(auth), 0);
  EXPECT_EQ(auth.Count(R"(SELECT COUNT(*) FROM "_cairn_activity" WHERE "action" = 'sign_up' )"
                       R"(AND "metadata" LIKE '%magic-link%')"),
            1);

  // Single use: the second time is an error redirect and no session.
  const auto again = auth.Client().Get(TargetOf(link));
  EXPECT_TRUE(IsRedirectTo(again, auth.Origin() + "/dashboard?error=INVALID_TOKEN"))
      << again.Header("location");
  EXPECT_FALSE(again.SetCookie(kSessionCookieName).has_value());
}

TEST(MagicLink, SignsInAKnownAccountAndNewUsersGoToTheirOwnCallback) {
  AuthApp auth(PasswordlessOptions());
  const Account a = auth.NewAccount("known@example.com");
  auth.Execute(R"(UPDATE "_cairn_auth_users" SET "email_verified" = 1 WHERE "id" = ?)",
               {std::string_view(a.user_id)});
  const std::string extra = R"(,"callbackURL":"/home","newUserCallbackURL":"/welcome")";
  auto followed = auth.Client().Get(TargetOf(MailedLink(auth, "known@example.com", extra)));
  EXPECT_TRUE(IsRedirectTo(followed, auth.Origin() + "/home")) << followed.Header("location");
  const auto session = auth.GetWithCookie(CookieValueOf(followed), "/api/auth/get-session");
  EXPECT_EQ(session.Json().at("user").at("id"), boost::json::value(a.user_id));
  // The password still works: the account was verified, nothing to revoke.
  EXPECT_EQ(auth.SignIn("known@example.com", a.password).status, 200);

  followed = auth.Client().Get(TargetOf(MailedLink(auth, "fresh@example.com", extra)));
  EXPECT_TRUE(IsRedirectTo(followed, auth.Origin() + "/welcome")) << followed.Header("location");
}

TEST(MagicLink, AnUnverifiedAccountLosesWhatItHadBeforeTheProof) {
  AuthApp auth(PasswordlessOptions());
  // Someone signed up with this address and a password of theirs, never verified.
  const Account squatter = auth.NewAccount("victim@example.com");
  const auto followed = auth.Client().Get(TargetOf(MailedLink(auth, "victim@example.com")));
  EXPECT_TRUE(IsRedirectTo(followed, auth.Origin() + "/")) << followed.Header("location");
  EXPECT_EQ(auth.GetWithCookie(CookieValueOf(followed), "/api/auth/get-session")
                .Json()
                .at("user")
                .at("id"),
            boost::json::value(squatter.user_id));
  WaitOutSessionCache();
  EXPECT_TRUE(auth.GetAs(squatter.token, "/api/auth/get-session").Json().is_null());
  EXPECT_EQ(auth.SignIn("victim@example.com", squatter.password).status, 401);
  EXPECT_EQ(VerifiedFlag(auth, "victim@example.com"), "1");
}

TEST(MagicLink, WithoutCallbackTheVerifyAnswersWithTheSession) {
  AuthApp auth(PasswordlessOptions());
  const std::string link = MailedLink(auth, "json@example.com");
  const auto result =
      auth.Client().Get("/api/auth/magic-link/verify?token=" + QueryParam(link, "token"));
  ASSERT_EQ(result.status, 200) << result.body;
  const auto body = result.Json();
  EXPECT_EQ(body.at("user").at("email"), "json@example.com");
  EXPECT_EQ(body.at("session").at("userId"), body.at("user").at("id"));
  EXPECT_EQ(body.at("token"), body.at("session").at("token"));
  EXPECT_FALSE(CookieValueOf(result).empty());
}

TEST(MagicLink, ExpiredAndUnknownTokensRedirectWithAnError) {
  AuthApp auth(PasswordlessOptions());
  const std::string link =
      MailedLink(auth, "late@example.com", R"(,"callbackURL":"/in","errorCallbackURL":"/oops")");
  ExpireCodes(auth);
  auto result = auth.Client().Get(TargetOf(link));
  EXPECT_TRUE(IsRedirectTo(result, auth.Origin() + "/oops?error=INVALID_TOKEN"))
      << result.Header("location");
  EXPECT_EQ(UsersWithEmail(auth, "late@example.com"), 0);
  result = auth.Client().Get("/api/auth/magic-link/verify?token=madeup&callbackURL=%2Fin");
  EXPECT_TRUE(IsRedirectTo(result, auth.Origin() + "/in?error=INVALID_TOKEN"))
      << result.Header("location");
  // A new link replaces the previous one.
  const std::string first = MailedLink(auth, "twice@example.com");
  const std::string second = MailedLink(auth, "twice@example.com");
  EXPECT_TRUE(
      IsRedirectTo(auth.Client().Get(TargetOf(first)), auth.Origin() + "/?error=INVALID_TOKEN"));
  EXPECT_TRUE(IsRedirectTo(auth.Client().Get(TargetOf(second)), auth.Origin() + "/"));
}

TEST(MagicLink, CallbacksOffThisOriginAreRefused) {
  AuthApp auth(PasswordlessOptions());
  for (const char* field : {"callbackURL", "newUserCallbackURL", "errorCallbackURL"}) {
    const auto result = RequestLink(auth, "cb@example.com",
                                    std::string(R"(,")") + field + R"(":"https://evil.example/x")");
    EXPECT_EQ(result.status, 400) << field << " " << result.body;
  }
  EXPECT_EQ(auth.OutboxSize(), 0u);
  // A link whose callback was altered to leave the origin does not redirect there, and stays
  // usable.
  const std::string link = MailedLink(auth, "cb@example.com");
  const std::string token = QueryParam(link, "token");
  for (const char* bad : {"https%3A%2F%2Fevil.example%2F", "%2F%2Fevil.example"}) {
    const auto result =
        auth.Client().Get("/api/auth/magic-link/verify?token=" + token + "&callbackURL=" + bad);
    EXPECT_TRUE(IsAuthError(result, 400, "VALIDATION_ERROR", "INVALID_CALLBACK_URL"))
        << result.body;
    EXPECT_TRUE(result.Header("location").empty());
  }
  EXPECT_TRUE(IsRedirectTo(auth.Client().Get(TargetOf(link)), auth.Origin() + "/"));
}

TEST(Passwordless, CrossSiteBrowsersCannotAskForLinksOrCodes) {
  AuthApp auth(PasswordlessOptions());
  const Headers cross_site{{"Origin", "https://evil.example"},
                           {"Sec-Fetch-Site", "cross-site"},
                           {"Sec-Fetch-Mode", "navigate"}};
  for (const auto& [path, body] : std::vector<std::pair<std::string, std::string>>{
           {"/api/auth/sign-in/magic-link", R"({"email":"x@example.com"})"},
           {"/api/auth/email-otp/send-verification-otp",
            R"({"email":"x@example.com","type":"sign-in"})"},
           {"/api/auth/sign-in/email-otp", R"({"email":"x@example.com","otp":"123456"})"}}) {
    const auto result = auth.Client().PostJson(path, body, cross_site);
    EXPECT_EQ(result.status, 403) << path << " " << result.body;
  }
  EXPECT_EQ(auth.OutboxSize(), 0u);
  // The app's own origin is fine.
  EXPECT_EQ(auth.Client()
                .PostJson("/api/auth/sign-in/magic-link", R"({"email":"x@example.com"})",
                          {{"Origin", auth.Origin()}, {"Sec-Fetch-Site", "same-origin"}})
                .status,
            200);
}

TEST(MagicLink, WithoutSignUpUnknownAddressesGetNoMailAndTheSameAnswer) {
  AuthApp auth(PasswordlessOptions(false));
  const auto unknown = RequestLink(auth, "nobody@example.com");
  ASSERT_EQ(unknown.status, 200);
  EXPECT_EQ(unknown.Json(), boost::json::parse(R"({"status":true})"));
  EXPECT_EQ(auth.OutboxSize(), 0u);
  EXPECT_EQ(Codes(auth), 0);
  EXPECT_EQ(auth.Count(R"(SELECT COUNT(*) FROM "_cairn_auth_users")"), 0);
  // A known (admin-made) account still signs in by link.
  auth.Execute(R"(INSERT INTO "_cairn_auth_users" ("id", "name", "email", "email_verified", )"
               R"("role", "created_at", "updated_at") VALUES ('u1', 'K', 'k@example.com', 1, )"
               R"('member', 0, 0))");
  const auto followed = auth.Client().Get(TargetOf(MailedLink(auth, "k@example.com")));
  EXPECT_TRUE(IsRedirectTo(followed, auth.Origin() + "/")) << followed.Header("location");
  // A link for an address whose account went away cannot sign up either.
  const std::string link = MailedLink(auth, "k@example.com");
  auth.Execute(R"(DELETE FROM "_cairn_auth_users" WHERE "id" = 'u1')");
  const auto refused = auth.Client().Get(TargetOf(link));
  EXPECT_TRUE(IsRedirectTo(refused, auth.Origin() + "/?error=NEW_USER_SIGNUP_DISABLED"))
      << refused.Header("location");
  EXPECT_EQ(Codes(auth), 0);  // used up all the same
  EXPECT_EQ(auth.Count(R"(SELECT COUNT(*) FROM "_cairn_auth_users")"), 0);
}

TEST(MagicLink, BannedUsersAndBadInputAreRefused) {
  AuthApp auth(PasswordlessOptions());
  const Account a = auth.NewAccount("banned@example.com");
  auth.Execute(
      R"(UPDATE "_cairn_auth_users" SET "banned" = 1, "email_verified" = 1 WHERE "id" = ?)",
      {std::string_view(a.user_id)});
  const std::string link = MailedLink(auth, "banned@example.com");
  const auto result = auth.Client().Get(TargetOf(link));
  EXPECT_TRUE(IsRedirectTo(result, auth.Origin() + "/?error=BANNED_USER"))
      << result.Header("location");
  EXPECT_FALSE(result.SetCookie(kSessionCookieName).has_value());
  // The refused link is used up: lifting the ban does not revive it.
  auth.Execute(R"(UPDATE "_cairn_auth_users" SET "banned" = 0 WHERE "id" = ?)",
               {std::string_view(a.user_id)});
  EXPECT_TRUE(
      IsRedirectTo(auth.Client().Get(TargetOf(link)), auth.Origin() + "/?error=INVALID_TOKEN"));

  EXPECT_TRUE(
      IsAuthError(RequestLink(auth, "not-an-address"), 400, "VALIDATION_ERROR", "INVALID_EMAIL"));
  EXPECT_EQ(auth.Client().PostJson("/api/auth/sign-in/magic-link", R"({"name":"x"})").status, 400);
  EXPECT_EQ(auth.Client().PostJson("/api/auth/sign-in/magic-link", R"({"email":42})").status, 400);
  EXPECT_TRUE(IsRedirectTo(auth.Client().Get("/api/auth/magic-link/verify"),
                           auth.Origin() + "/?error=INVALID_TOKEN"));
}

// --- Email one-time codes -----------------------------------------------------------------------

TEST(EmailOtp, SignInSignsUpOnceAndStoresOnlyAHash) {
  AuthApp auth(PasswordlessOptions());
  const std::string code = MailedCode(auth, "otp.new@example.com", "sign-in");
  auto rows = auth.Query(R"(SELECT "purpose", "email", "secret_hash", "attempts", "expires_at", )"
                         R"("created_at" FROM "_cairn_auth_email_codes")");
  ASSERT_EQ(rows.size(), 1u);
  EXPECT_EQ(rows[0][0], "sign-in");
  EXPECT_EQ(rows[0][1], "otp.new@example.com");
  EXPECT_EQ(rows[0][2]->find(code), std::string::npos);
  EXPECT_EQ(rows[0][3], "0");
  EXPECT_EQ(ToInt(rows[0][4]) - ToInt(rows[0][5]), kFiveMinutes);

  const auto signed_in =
      SignInWithCode(auth, "OTP.New@example.com", code, R"(,"name":"Otto","image":"/a.png")");
  ASSERT_EQ(signed_in.status, 200) << signed_in.body;
  const auto body = signed_in.Json();
  EXPECT_EQ(body.at("user").at("email"), "otp.new@example.com");
  EXPECT_EQ(body.at("user").at("name"), "Otto");
  EXPECT_EQ(body.at("user").at("emailVerified"), true);
  const std::string token(body.at("token").as_string());
  EXPECT_EQ(auth.GetAs(token, "/api/auth/get-session").Json().at("user").at("id"),
            body.at("user").at("id"));
  EXPECT_EQ(auth.GetWithCookie(CookieValueOf(signed_in), "/api/auth/get-session")
                .Json()
                .at("session")
                .at("token"),
            boost::json::value(token));
  EXPECT_EQ(Codes(auth), 0);
  // Single use.
  EXPECT_TRUE(IsAuthError(SignInWithCode(auth, "otp.new@example.com", code), 400,
                          "VALIDATION_ERROR", "INVALID_OTP"));
  // A known account signs in with a new code, as itself.
  const std::string next = MailedCode(auth, "otp.new@example.com", "sign-in");
  const auto again = SignInWithCode(auth, "otp.new@example.com", next);
  ASSERT_EQ(again.status, 200);
  EXPECT_EQ(again.Json().at("user").at("id"), body.at("user").at("id"));
  EXPECT_EQ(auth.Count(R"(SELECT COUNT(*) FROM "_cairn_auth_users")"), 1);
  EXPECT_EQ(auth.Count(R"(SELECT COUNT(*) FROM "_cairn_activity" WHERE "action" = 'sign_up' )"
                       R"(AND "metadata" LIKE '%email-otp%')"),
            1);
  EXPECT_EQ(auth.Count(R"(SELECT COUNT(*) FROM "_cairn_activity" WHERE "action" = 'sign_in' )"
                       R"(AND "metadata" LIKE '%email-otp%')"),
            1);
}

TEST(EmailOtp, ThreeWrongGuessesUseTheCodeUp) {
  AuthApp auth(PasswordlessOptions());
  const std::string code = MailedCode(auth, "guess@example.com", "sign-in");
  for (int i = 0; i < auth::kEmailOtpMaxAttempts; ++i) {
    EXPECT_TRUE(IsAuthError(SignInWithCode(auth, "guess@example.com", OtherCode(code)), 400,
                            "VALIDATION_ERROR", "INVALID_OTP"));
  }
  EXPECT_EQ(auth.Scalar(R"(SELECT "attempts" FROM "_cairn_auth_email_codes")"), "3");
  // The right code is too late now, and stays so.
  EXPECT_TRUE(IsAuthError(SignInWithCode(auth, "guess@example.com", code), 403, "FORBIDDEN",
                          "TOO_MANY_ATTEMPTS"));
  EXPECT_TRUE(IsAuthError(SignInWithCode(auth, "guess@example.com", code), 400, "VALIDATION_ERROR",
                          "INVALID_OTP"));
  EXPECT_EQ(auth.Count(R"(SELECT COUNT(*) FROM "_cairn_auth_users")"), 0);
  // A new code works.
  const std::string fresh = MailedCode(auth, "guess@example.com", "sign-in");
  EXPECT_TRUE(IsAuthError(SignInWithCode(auth, "guess@example.com", OtherCode(fresh)), 400,
                          "VALIDATION_ERROR", "INVALID_OTP"));
  EXPECT_EQ(SignInWithCode(auth, "guess@example.com", fresh).status, 200);
}

TEST(EmailOtp, ExpiredAndReplacedCodesAreRefused) {
  AuthApp auth(PasswordlessOptions());
  const std::string code = MailedCode(auth, "slow@example.com", "sign-in");
  ExpireCodes(auth);
  EXPECT_TRUE(IsAuthError(SignInWithCode(auth, "slow@example.com", code), 400, "VALIDATION_ERROR",
                          "OTP_EXPIRED"));
  EXPECT_EQ(Codes(auth), 0);
  const std::string first = MailedCode(auth, "slow@example.com", "sign-in");
  const std::string second = MailedCode(auth, "slow@example.com", "sign-in");
  EXPECT_EQ(Codes(auth), 1);
  if (first != second) {
    EXPECT_TRUE(IsAuthError(SignInWithCode(auth, "slow@example.com", first), 400,
                            "VALIDATION_ERROR", "INVALID_OTP"));
  }
  EXPECT_EQ(SignInWithCode(auth, "slow@example.com", second).status, 200);
  // A code of one purpose does not serve another.
  const std::string verify = MailedCode(auth, "slow@example.com", "email-verification");
  EXPECT_TRUE(IsAuthError(SignInWithCode(auth, "slow@example.com", verify), 400, "VALIDATION_ERROR",
                          "INVALID_OTP"));
}

TEST(EmailOtp, UnknownAddressesGetTheSameAnswerAndNoMail) {
  AuthApp auth(PasswordlessOptions(false));
  for (const char* type : {"sign-in", "email-verification", "forget-password"}) {
    const auto result = SendCode(auth, "ghost@example.com", type);
    ASSERT_EQ(result.status, 200) << type;
    EXPECT_EQ(result.Json(), boost::json::parse(R"({"success":true})"));
  }
  const auto reset = auth.Client().PostJson("/api/auth/email-otp/request-password-reset",
                                            R"({"email":"ghost@example.com"})");
  EXPECT_EQ(reset.status, 200);
  EXPECT_EQ(reset.Json(), boost::json::parse(R"({"success":true})"));
  EXPECT_EQ(auth.OutboxSize(), 0u);
  EXPECT_EQ(Codes(auth), 0);
  // No sign-up: any code is just invalid, and no account appears.
  EXPECT_TRUE(IsAuthError(SignInWithCode(auth, "ghost@example.com", "123456"), 400,
                          "VALIDATION_ERROR", "INVALID_OTP"));
  EXPECT_EQ(auth.Count(R"(SELECT COUNT(*) FROM "_cairn_auth_users")"), 0);

  // Bad input.
  EXPECT_TRUE(
      IsAuthError(SendCode(auth, "nope", "sign-in"), 400, "VALIDATION_ERROR", "INVALID_EMAIL"));
  EXPECT_EQ(SendCode(auth, "a@example.com", "change-email").status, 400);
  EXPECT_EQ(SendCode(auth, "a@example.com", "other").status, 400);
  EXPECT_EQ(
      auth.Client()
          .PostJson("/api/auth/email-otp/send-verification-otp", R"({"email":"a@example.com"})")
          .status,
      400);
  EXPECT_TRUE(IsAuthError(SignInWithCode(auth, "a@example.com", "123456",
                                         R"(,"name":")" + std::string(300, 'n') + "\""),
                          400, "VALIDATION_ERROR", "INVALID_NAME"));
  EXPECT_EQ(
      auth.Client().PostJson("/api/auth/sign-in/email-otp", R"({"email":"a@example.com"})").status,
      400);
}

TEST(EmailOtp, WithoutSignUpAKnownAccountStillSignsIn) {
  AuthApp auth(PasswordlessOptions(false));
  auth.Execute(R"(INSERT INTO "_cairn_auth_users" ("id", "name", "email", "email_verified", )"
               R"("role", "created_at", "updated_at") VALUES ('u1', 'K', 'k@example.com', 0, )"
               R"('member', 0, 0))");
  const std::string code = MailedCode(auth, "k@example.com", "sign-in");
  const auto result = SignInWithCode(auth, "k@example.com", code);
  ASSERT_EQ(result.status, 200) << result.body;
  EXPECT_EQ(result.Json().at("user").at("id"), "u1");
  EXPECT_EQ(VerifiedFlag(auth, "k@example.com"), "1");  // the code proved the address
}

TEST(EmailOtp, VerifyEmailMarksTheAccountVerified) {
  AuthApp auth(PasswordlessOptions());
  const Account a = auth.NewAccount("verify.me@example.com");
  EXPECT_EQ(VerifiedFlag(auth, a.email), "0");
  const std::string code = MailedCode(auth, a.email, "email-verification");
  EXPECT_TRUE(IsAuthError(auth.Client().PostJson("/api/auth/email-otp/verify-email",
                                                 R"({"email":"verify.me@example.com","otp":)" +
                                                     Quoted(OtherCode(code)) + "}"),
                          400, "VALIDATION_ERROR", "INVALID_OTP"));
  EXPECT_EQ(VerifiedFlag(auth, a.email), "0");
  const auto result =
      auth.Client().PostJson("/api/auth/email-otp/verify-email",
                             R"({"email":"verify.me@example.com","otp":)" + Quoted(code) + "}");
  ASSERT_EQ(result.status, 200) << result.body;
  EXPECT_EQ(result.Json().at("status"), true);
  EXPECT_TRUE(result.Json().at("token").is_null());
  EXPECT_EQ(result.Json().at("user").at("emailVerified"), true);
  EXPECT_EQ(VerifiedFlag(auth, a.email), "1");
  // The verification keeps the password and sessions.
  EXPECT_EQ(auth.SignIn(a.email, a.password).status, 200);
  EXPECT_TRUE(IsAuthError(
      auth.Client().PostJson("/api/auth/email-otp/verify-email",
                             R"({"email":"verify.me@example.com","otp":)" + Quoted(code) + "}"),
      400, "VALIDATION_ERROR", "INVALID_OTP"));
}

TEST(EmailOtp, CheckVerificationOtpLeavesTheCodeUsable) {
  AuthApp auth(PasswordlessOptions());
  auth.NewAccount("check@example.com");
  const std::string code = MailedCode(auth, "check@example.com", "sign-in");
  const auto check = [&](const std::string& otp) {
    return auth.Client().PostJson(
        "/api/auth/email-otp/check-verification-otp",
        R"({"email":"check@example.com","type":"sign-in","otp":)" + Quoted(otp) + "}");
  };
  EXPECT_TRUE(IsAuthError(check(OtherCode(code)), 400, "VALIDATION_ERROR", "INVALID_OTP"));
  for (int i = 0; i < 4; ++i) {  // correct checks cost no attempt
    const auto ok = check(code);
    ASSERT_EQ(ok.status, 200) << ok.body;
    EXPECT_EQ(ok.Json(), boost::json::parse(R"({"success":true})"));
  }
  EXPECT_EQ(auth.Scalar(R"(SELECT "attempts" FROM "_cairn_auth_email_codes")"), "1");
  EXPECT_EQ(SignInWithCode(auth, "check@example.com", code).status, 200);
  EXPECT_TRUE(IsAuthError(check(code), 400, "VALIDATION_ERROR", "INVALID_OTP"));

  // A right code for an address with no account (yet): said once the code is proven, and the
  // code still signs it up.
  const std::string fresh = MailedCode(auth, "later@example.com", "sign-in");
  const auto unknown = auth.Client().PostJson(
      "/api/auth/email-otp/check-verification-otp",
      R"({"email":"later@example.com","type":"sign-in","otp":)" + Quoted(fresh) + "}");
  EXPECT_TRUE(IsAuthError(unknown, 400, "VALIDATION_ERROR", "USER_NOT_FOUND")) << unknown.body;
  EXPECT_EQ(SignInWithCode(auth, "later@example.com", fresh).status, 200);
}

TEST(EmailOtp, ResetPasswordSetsANewPasswordAndEndsSessions) {
  AuthApp auth(PasswordlessOptions());
  const Account a = auth.NewAccount("reset.otp@example.com");
  const std::size_t before = auth.OutboxSize();
  ASSERT_EQ(auth.Client()
                .PostJson("/api/auth/email-otp/request-password-reset",
                          R"({"email":"reset.otp@example.com"})")
                .status,
            200);
  ASSERT_EQ(auth.OutboxSize(), before + 1);
  const std::string code = CodeOfLastMail(auth);
  const auto reset = [&](const std::string& otp, const std::string& password) {
    return auth.Client().PostJson("/api/auth/email-otp/reset-password",
                                  R"({"email":"reset.otp@example.com","otp":)" + Quoted(otp) +
                                      R"(,"password":)" + Quoted(password) + "}");
  };
  EXPECT_TRUE(IsAuthError(reset(code, "short"), 400, "VALIDATION_ERROR", "PASSWORD_TOO_SHORT"));
  EXPECT_TRUE(IsAuthError(reset(OtherCode(code), "a new password 1"), 400, "VALIDATION_ERROR",
                          "INVALID_OTP"));
  const auto done = reset(code, "a new password 1");
  ASSERT_EQ(done.status, 200) << done.body;
  EXPECT_EQ(done.Json(), boost::json::parse(R"({"success":true})"));
  WaitOutSessionCache();
  EXPECT_TRUE(auth.GetAs(a.token, "/api/auth/get-session").Json().is_null());
  EXPECT_EQ(auth.SignIn(a.email, a.password).status, 401);
  EXPECT_EQ(auth.SignIn(a.email, "a new password 1").status, 200);
  EXPECT_EQ(VerifiedFlag(auth, a.email), "1");
  EXPECT_TRUE(IsAuthError(reset(code, "another pass 22"), 400, "VALIDATION_ERROR", "INVALID_OTP"));
  // The deprecated route mails a code too.
  ASSERT_EQ(
      auth.Client()
          .PostJson("/api/auth/forget-password/email-otp", R"({"email":"reset.otp@example.com"})")
          .status,
      200);
  EXPECT_EQ(auth.OutboxSize(), before + 2);
}

// --- Rate limits --------------------------------------------------------------------------------

TestAppOptions LimitedPasswordlessOptions() {
  TestAppOptions options = PasswordlessOptions();
  options.tune_settings = [](app::Settings& settings) {
    settings.auth_secret = kTestAuthSecret;
    settings.rate_limit_disabled = false;
    settings.trusted_proxies = "127.0.0.1";
  };
  return options;
}

Headers From(int address) {
  return {{"X-Forwarded-For", "198.51.100." + std::to_string(address)}};
}

TEST(PasswordlessLimits, GuessesPerEmailAreLimitedWhateverTheAddress) {
  AuthApp auth(LimitedPasswordlessOptions());
  int address = 1;
  for (int i = 0; i < auth::kOneTimeCodeGuessesPerEmail; ++i) {
    const auto result =
        auth.Client().PostJson("/api/auth/sign-in/email-otp",
                               R"({"email":"target@example.com","otp":"000000"})", From(address++));
    EXPECT_EQ(result.status, 400) << i << " " << result.body;
  }
  const auto refused =
      auth.Client().PostJson("/api/auth/sign-in/email-otp",
                             R"({"email":"target@example.com","otp":"000000"})", From(address++));
  EXPECT_TRUE(IsAuthError(refused, 429, "RATE_LIMITED", "RATE_LIMITED")) << refused.body;
  EXPECT_FALSE(refused.Header("retry-after").empty());
  // Another address is not affected.
  EXPECT_EQ(auth.Client()
                .PostJson("/api/auth/sign-in/email-otp",
                          R"({"email":"other@example.com","otp":"000000"})", From(address++))
                .status,
            400);
}

TEST(PasswordlessLimits, MailPerEmailAndRequestsPerAddressAreLimited) {
  AuthApp auth(LimitedPasswordlessOptions());
  int address = 1;
  for (int i = 0; i < auth::kOneTimeCodeMailsPerEmail; ++i) {
    const auto result = auth.Client().PostJson("/api/auth/email-otp/send-verification-otp",
                                               R"({"email":"inbox@example.com","type":"sign-in"})",
                                               From(address++));
    EXPECT_EQ(result.status, 200) << i << " " << result.body;
  }
  EXPECT_EQ(auth.Client()
                .PostJson("/api/auth/sign-in/magic-link", R"({"email":"inbox@example.com"})",
                          From(address++))
                .status,
            429);
  EXPECT_EQ(auth.OutboxSize(), static_cast<std::size_t>(auth::kOneTimeCodeMailsPerEmail));
  // One address, many emails: the one-time-code group stops it.
  int last = 0;
  for (int i = 0; i < 11; ++i) {
    last =
        auth.Client()
            .PostJson("/api/auth/email-otp/send-verification-otp",
                      R"({"email":"e)" + std::to_string(i) + R"(@example.com","type":"sign-in"})",
                      From(250))
            .status;
  }
  EXPECT_EQ(last, 429);
}

}  // namespace
}  // namespace cairn::test
