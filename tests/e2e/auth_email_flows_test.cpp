// /api/auth account maintenance end to end: update-user, change-password, change-email,
// delete-user, the password reset and email verification links (followed over HTTP from the
// outbox), on the backend of this run.
#include <gtest/gtest.h>

#include <chrono>
#include <future>
#include <thread>

#include "common/crypto.hpp"
#include "e2e/auth_test_support.hpp"
#include "support/smtp_sink.hpp"

namespace cairn::test {
namespace {

constexpr std::int64_t kHour = 3600LL * 1000;

bool IsLive(AuthApp& auth, const std::string& token) {
  const auto result = auth.GetAs(token, "/api/auth/get-session");
  return result.status == 200 && result.Json().is_object();
}

std::string PasswordHashOf(AuthApp& auth, const std::string& user_id) {
  return auth
      .Scalar(R"(SELECT "password" FROM "_cairn_auth_accounts" WHERE "user_id" = ?)",
              {std::string_view(user_id)})
      .value_or("");
}

std::int64_t Verifications(AuthApp& auth) {
  return auth.Count(R"(SELECT COUNT(*) FROM "_cairn_auth_verifications")");
}

void MarkVerified(AuthApp& auth, const std::string& user_id) {
  auth.Execute(R"(UPDATE "_cairn_auth_users" SET "email_verified" = 1 WHERE "id" = ?)",
               {std::string_view(user_id)});
}

// The token in a mailed link: the last path segment (reset) or the `token` parameter.
std::string TokenOfLink(const std::string& link) {
  std::string token = QueryParam(link, "token");
  if (!token.empty()) return token;
  const std::string path = link.substr(0, link.find('?'));
  return path.substr(path.rfind('/') + 1);
}

// The stored row of a mailed token: hashed, never in clear.
void ExpectStoredHashed(AuthApp& auth, const std::string& token, const std::string& purpose) {
  auto rows = auth.Query(R"(SELECT "purpose", "expires_at", "created_at", "token_hash" FROM )"
                         R"("_cairn_auth_verifications" WHERE "token_hash" = ?)",
                         {std::string_view(crypto::Sha256Hex(token))});
  ASSERT_EQ(rows.size(), 1u) << "no stored hash for " << token;
  EXPECT_EQ(rows[0][0], purpose);
  EXPECT_EQ(ToInt(rows[0][1]) - ToInt(rows[0][2]), kHour);
  EXPECT_NE(rows[0][3], token);
  EXPECT_EQ(auth.Count(R"(SELECT COUNT(*) FROM "_cairn_auth_verifications" WHERE "token_hash" = ?)",
                       {std::string_view(token)}),
            0);
}

// --- update-user --------------------------------------------------------------------------------

TEST(AuthUpdateUser, ChangesNameAndImageButNotEmail) {
  AuthApp auth;
  const Account a = auth.NewAccount("profile@example.com", "correct horse 1", "Before");
  auto result = auth.PostAs(a.token, "/api/auth/update-user",
                            R"({"name":"After","image":"https://cdn.example/a.png"})");
  ASSERT_EQ(result.status, 200) << result.body;
  EXPECT_EQ(result.Json(), boost::json::parse(R"({"status":true})"));
  auto session = auth.GetAs(a.token, "/api/auth/get-session").Json();
  EXPECT_EQ(session.at("user").at("name"), "After");
  EXPECT_EQ(session.at("user").at("image"), "https://cdn.example/a.png");
  auto rows =
      auth.Query(R"(SELECT "name", "image", "email" FROM "_cairn_auth_users" WHERE "id" = ?)",
                 {std::string_view(a.user_id)});
  ASSERT_EQ(rows.size(), 1u);
  EXPECT_EQ(rows[0][0], "After");
  EXPECT_EQ(rows[0][1], "https://cdn.example/a.png");

  // image: null clears it; name alone keeps the image.
  ASSERT_EQ(auth.PostAs(a.token, "/api/auth/update-user", R"({"image":null})").status, 200);
  EXPECT_FALSE(auth.Scalar(R"(SELECT "image" FROM "_cairn_auth_users" WHERE "id" = ?)",
                           {std::string_view(a.user_id)})
                   .has_value());
  ASSERT_EQ(auth.PostAs(a.token, "/api/auth/update-user", R"({"name":"Third"})").status, 200);
  EXPECT_EQ(auth.Scalar(R"(SELECT "name" FROM "_cairn_auth_users" WHERE "id" = ?)",
                        {std::string_view(a.user_id)}),
            "Third");

  // The email is refused and unchanged.
  result = auth.PostAs(a.token, "/api/auth/update-user",
                       R"({"name":"Sneaky","email":"new@example.com"})");
  EXPECT_TRUE(IsAuthError(result, 400, "VALIDATION_ERROR", "EMAIL_CAN_NOT_BE_UPDATED"));
  rows = auth.Query(R"(SELECT "name", "email" FROM "_cairn_auth_users" WHERE "id" = ?)",
                    {std::string_view(a.user_id)});
  EXPECT_EQ(rows[0][0], "Third");
  EXPECT_EQ(rows[0][1], "profile@example.com");
  // Wrong types are a validation error.
  EXPECT_TRUE(IsAuthError(auth.PostAs(a.token, "/api/auth/update-user", R"({"name":42})"), 400,
                          "VALIDATION_ERROR", ""));
}

// Mass assignment: the admin plugin's fields are refused (Better Auth's FIELD_NOT_ALLOWED), a
// body with nothing to change too, and `id` is not a field: only the caller's own row changes.
TEST(AuthUpdateUser, AdminFieldsAreRefusedAndIdIsNotAField) {
  AuthApp auth;
  const Account a = auth.NewAccount("climber@example.com");
  const Account b = auth.NewAccount("bystander@example.com", "correct horse 1", "Bystander");
  for (const char* body : {R"({"name":"x","role":"admin"})", R"({"banned":true})",
                           R"({"banReason":"none","name":"x"})", R"({"banExpires":1})"}) {
    const auto refused = auth.PostAs(a.token, "/api/auth/update-user", body);
    EXPECT_TRUE(IsAuthError(refused, 400, "VALIDATION_ERROR", "FIELD_NOT_ALLOWED")) << body;
  }
  EXPECT_TRUE(
      IsAuthError(auth.PostAs(a.token, "/api/auth/update-user", R"({"emailVerified":true})"), 400,
                  "VALIDATION_ERROR", "NO_FIELDS_TO_UPDATE"));
  EXPECT_EQ(auth.Scalar(R"(SELECT "role" FROM "_cairn_auth_users" WHERE "id" = ?)",
                        {std::string_view(a.user_id)}),
            "member");
  const auto renamed = auth.PostAs(a.token, "/api/auth/update-user",
                                   R"({"id":")" + b.user_id + R"(","name":"Mine"})");
  ASSERT_EQ(renamed.status, 200) << renamed.body;
  EXPECT_EQ(auth.Scalar(R"(SELECT "name" FROM "_cairn_auth_users" WHERE "id" = ?)",
                        {std::string_view(b.user_id)}),
            "Bystander");
  EXPECT_EQ(auth.Scalar(R"(SELECT "name" FROM "_cairn_auth_users" WHERE "id" = ?)",
                        {std::string_view(a.user_id)}),
            "Mine");
}

// --- change-password ----------------------------------------------------------------------------

TEST(AuthChangePassword, WrongCurrentPasswordIsRefused) {
  AuthApp auth;
  const Account a = auth.NewAccount("cp@example.com");
  const std::string before = PasswordHashOf(auth, a.user_id);
  const auto result =
      auth.PostAs(a.token, "/api/auth/change-password",
                  R"({"currentPassword":"not it at all","newPassword":"brand new pass"})");
  EXPECT_TRUE(IsAuthError(result, 400, "VALIDATION_ERROR", "INVALID_PASSWORD"));
  EXPECT_EQ(PasswordHashOf(auth, a.user_id), before);
  const auto too_short =
      auth.PostAs(a.token, "/api/auth/change-password",
                  R"({"currentPassword":"correct horse 1","newPassword":"short"})");
  EXPECT_TRUE(IsAuthError(too_short, 400, "VALIDATION_ERROR", "PASSWORD_TOO_SHORT"));
  EXPECT_EQ(PasswordHashOf(auth, a.user_id), before);
  EXPECT_EQ(auth.SignIn(a.email, "correct horse 1").status, 200);
}

TEST(AuthChangePassword, ChangesThePasswordAndKeepsSessions) {
  AuthApp auth;
  const Account a = auth.NewAccount("cp2@example.com");
  const Account b = auth.SignInOk(a.email, a.password);
  const std::string before = PasswordHashOf(auth, a.user_id);
  const auto result =
      auth.PostAs(a.token, "/api/auth/change-password",
                  R"({"currentPassword":"correct horse 1","newPassword":"brand new pass"})");
  ASSERT_EQ(result.status, 200) << result.body;
  EXPECT_TRUE(result.Json().at("token").is_null());
  EXPECT_EQ(result.Json().at("user").at("id"), boost::json::value(a.user_id));
  EXPECT_TRUE(result.set_cookies.empty());
  const std::string after = PasswordHashOf(auth, a.user_id);
  EXPECT_NE(after, before);
  EXPECT_TRUE(after.starts_with("$argon2id$")) << after;
  EXPECT_TRUE(IsAuthError(auth.SignIn(a.email, "correct horse 1"), 401, "UNAUTHORIZED",
                          "INVALID_EMAIL_OR_PASSWORD"));
  EXPECT_EQ(auth.SignIn(a.email, "brand new pass").status, 200);
  EXPECT_TRUE(IsLive(auth, a.token));
  EXPECT_TRUE(IsLive(auth, b.token));
}

TEST(AuthChangePassword, RevokeOtherSessionsIssuesANewSession) {
  AuthApp auth;
  const Account a = auth.NewAccount("cp3@example.com");
  const Account b = auth.SignInOk(a.email, a.password);
  const Account other = auth.NewAccount("bystander@example.com");
  const auto result = auth.PostWithCookie(
      a.cookie_value, "/api/auth/change-password",
      R"({"currentPassword":"correct horse 1","newPassword":"brand new pass","revokeOtherSessions":true})");
  ASSERT_EQ(result.status, 200) << result.body;
  ASSERT_TRUE(result.Json().at("token").is_string()) << result.body;
  const std::string token(result.Json().at("token").as_string());
  EXPECT_NE(token, a.token);
  EXPECT_NE(token, b.token);
  const auto cookie = result.SetCookie(kSessionCookieName);
  ASSERT_TRUE(cookie.has_value());
  EXPECT_TRUE(cookie->starts_with(std::string(kSessionCookieName) + "=" + token + "."));
  EXPECT_EQ(result.Header("set-auth-token"), token + "." + SignatureOf(token));
  // The old sessions, the current one included, are gone; the new one works.
  EXPECT_FALSE(IsLive(auth, a.token));
  EXPECT_FALSE(IsLive(auth, b.token));
  EXPECT_EQ(auth.GetAs(a.token, "/api/auth/list-sessions").status, 401);
  EXPECT_TRUE(IsLive(auth, token));
  EXPECT_EQ(auth.Count(R"(SELECT COUNT(*) FROM "_cairn_auth_sessions" WHERE "user_id" = ?)",
                       {std::string_view(a.user_id)}),
            1);
  EXPECT_TRUE(IsLive(auth, other.token));
}

// --- change-email -------------------------------------------------------------------------------

TEST(AuthChangeEmail, UnverifiedUserChangesAtOnce) {
  AuthApp auth;
  const Account a = auth.NewAccount("old@example.com");
  const auto result =
      auth.PostAs(a.token, "/api/auth/change-email", R"({"newEmail":"New@Example.com"})");
  ASSERT_EQ(result.status, 200) << result.body;
  EXPECT_EQ(result.Json(), boost::json::parse(R"({"status":true})"));
  auto rows =
      auth.Query(R"(SELECT "email", "email_verified" FROM "_cairn_auth_users" WHERE "id" = ?)",
                 {std::string_view(a.user_id)});
  EXPECT_EQ(rows[0][0], "new@example.com");
  EXPECT_EQ(ToInt(rows[0][1]), 0);
  EXPECT_EQ(auth.GetAs(a.token, "/api/auth/get-session").Json().at("user").at("email"),
            "new@example.com");
  EXPECT_EQ(auth.SignIn("new@example.com", a.password).status, 200);
  EXPECT_EQ(auth.SignIn("old@example.com", a.password).status, 401);
  // The same address again, an invalid one, and one taken by someone else are refused.
  EXPECT_TRUE(IsAuthError(
      auth.PostAs(a.token, "/api/auth/change-email", R"({"newEmail":"new@example.com"})"), 400,
      "VALIDATION_ERROR", ""));
  EXPECT_TRUE(IsAuthError(auth.PostAs(a.token, "/api/auth/change-email", R"({"newEmail":"nope"})"),
                          400, "VALIDATION_ERROR", "INVALID_EMAIL"));
  auth.NewAccount("taken@example.com");
  EXPECT_EQ(
      auth.PostAs(a.token, "/api/auth/change-email", R"({"newEmail":"taken@example.com"})").status,
      400);
  EXPECT_EQ(auth.Scalar(R"(SELECT "email" FROM "_cairn_auth_users" WHERE "id" = ?)",
                        {std::string_view(a.user_id)}),
            "new@example.com");
}

TEST(AuthChangeEmail, VerifiedUserConfirmsTheNewAddressByMail) {
  AuthApp auth;
  const Account a = auth.NewAccount("verified@example.com");
  MarkVerified(auth, a.user_id);
  const std::size_t mails = auth.OutboxSize();
  const auto result = auth.PostAs(a.token, "/api/auth/change-email",
                                  R"({"newEmail":"moved@example.com","callbackURL":"/moved"})");
  ASSERT_EQ(result.status, 200) << result.body;
  // Nothing changes until the link is followed.
  EXPECT_EQ(auth.Scalar(R"(SELECT "email" FROM "_cairn_auth_users" WHERE "id" = ?)",
                        {std::string_view(a.user_id)}),
            "verified@example.com");
  ASSERT_EQ(auth.OutboxSize(), mails + 1);
  const auto mail = auth.LastMail();
  EXPECT_NE(mail.Header("to").find("moved@example.com"), std::string::npos) << mail.Header("to");
  const std::string link = FirstLink(mail.text);
  EXPECT_TRUE(link.starts_with(auth.Origin() + "/api/auth/verify-email?token=")) << link;
  EXPECT_EQ(QueryParam(link, "callbackURL"), "/moved");
  ExpectStoredHashed(auth, TokenOfLink(link), "change-email");

  const auto followed = auth.Client().Get(TargetOf(link));
  EXPECT_EQ(followed.status, 302) << followed.body;
  EXPECT_EQ(followed.Header("Location"), "/moved");
  auto rows =
      auth.Query(R"(SELECT "email", "email_verified" FROM "_cairn_auth_users" WHERE "id" = ?)",
                 {std::string_view(a.user_id)});
  EXPECT_EQ(rows[0][0], "moved@example.com");
  EXPECT_EQ(ToInt(rows[0][1]), 1);
  EXPECT_EQ(auth.SignIn("moved@example.com", a.password).status, 200);
  EXPECT_EQ(auth.SignIn("verified@example.com", a.password).status, 401);
  // The link works once.
  const auto reused = auth.Client().Get(TargetOf(link));
  EXPECT_EQ(reused.status, 302);
  EXPECT_EQ(reused.Header("Location"), "/moved?error=INVALID_TOKEN");
}

// --- delete-user --------------------------------------------------------------------------------

TEST(AuthDeleteUser, NeedsThePasswordThenRemovesEverything) {
  TestAppOptions options = AuthAppOptions();
  options.tune_settings = [](app::Settings& settings) {
    settings.auth_secret = kTestAuthSecret;
    settings.account_deletion_grace_days = 0;  // erased at once (D19a; account_erasure_test)
  };
  AuthApp auth(std::move(options));
  const Account a = auth.NewAccount("leaving@example.com");
  const Account b = auth.SignInOk(a.email, a.password);
  const Account other = auth.NewAccount("staying@example.com");
  ASSERT_EQ(auth.PostAs(a.token, "/api/auth/send-verification-email",
                        R"({"email":"leaving@example.com"})")
                .status,
            200);
  ASSERT_EQ(Verifications(auth), 1);

  EXPECT_TRUE(IsAuthError(
      auth.PostAs(a.token, "/api/auth/delete-user", R"({"password":"not the password"})"), 400,
      "VALIDATION_ERROR", "INVALID_PASSWORD"));
  EXPECT_EQ(auth.Count(R"(SELECT COUNT(*) FROM "_cairn_auth_users")"), 2);
  EXPECT_TRUE(IsLive(auth, a.token));

  const auto result = auth.PostWithCookie(a.cookie_value, "/api/auth/delete-user",
                                          R"({"password":"correct horse 1"})");
  ASSERT_EQ(result.status, 200) << result.body;
  EXPECT_EQ(result.Json(), boost::json::parse(R"({"success":true,"message":"User deleted"})"));
  const auto cookie = result.SetCookie(kSessionCookieName);
  ASSERT_TRUE(cookie.has_value());
  EXPECT_TRUE(cookie->starts_with(std::string(kSessionCookieName) + "=; Max-Age=0;"));
  for (const char* sql :
       {R"(SELECT COUNT(*) FROM "_cairn_auth_users" WHERE "id" = ?)",
        R"(SELECT COUNT(*) FROM "_cairn_auth_sessions" WHERE "user_id" = ?)",
        R"(SELECT COUNT(*) FROM "_cairn_auth_accounts" WHERE "user_id" = ?)",
        R"(SELECT COUNT(*) FROM "_cairn_auth_verifications" WHERE "user_id" = ?)"}) {
    EXPECT_EQ(auth.Count(sql, {std::string_view(a.user_id)}), 0) << sql;
  }
  EXPECT_FALSE(IsLive(auth, a.token));
  EXPECT_FALSE(IsLive(auth, b.token));
  EXPECT_EQ(auth.SignIn(a.email, a.password).status, 401);
  EXPECT_TRUE(IsLive(auth, other.token));
  // The address is free again.
  EXPECT_EQ(auth.SignUp("Back", a.email, "another horse 2").status, 200);
}

// --- password reset -----------------------------------------------------------------------------

TEST(AuthPasswordReset, KnownAndUnknownEmailsAnswerAlike) {
  AuthApp auth;
  auth.NewAccount("reset@example.com");
  const auto known = auth.Client().PostJson(
      "/api/auth/request-password-reset", R"({"email":"reset@example.com","redirectTo":"/reset"})");
  const auto unknown = auth.Client().PostJson(
      "/api/auth/request-password-reset", R"({"email":"ghost@example.com","redirectTo":"/reset"})");
  ASSERT_EQ(known.status, 200) << known.body;
  EXPECT_EQ(known.status, unknown.status);
  EXPECT_EQ(known.body, unknown.body);
  EXPECT_EQ(known.Json().at("status"), true);
  EXPECT_TRUE(known.set_cookies.empty());
  EXPECT_TRUE(unknown.set_cookies.empty());
  // Only the known address gets mail.
  ASSERT_EQ(auth.OutboxSize(), 1u);
  EXPECT_NE(auth.LastMail().Header("to").find("reset@example.com"), std::string::npos);
  EXPECT_EQ(Verifications(auth), 1);
}

// The mail queue: a reset mail whose SMTP server is down is kept and goes out once the server is
// back, without the user asking again.
TEST(AuthPasswordReset, MailThatCannotBeSentIsRetriedUntilItGoesOut) {
  std::uint16_t port = 0;
  { port = SmtpSink().port(); }  // a port nothing listens on once the sink is gone
  TestAppOptions options = AuthAppOptions();
  auto tune = options.tune_settings;
  options.tune_settings = [tune, port](app::Settings& settings) {
    if (tune) tune(settings);
    settings.smtp_host = "127.0.0.1";
    settings.smtp_port = port;
  };
  AuthApp auth(std::move(options));
  auth.NewAccount("retry@example.com");
  const auto asked = auth.Client().PostJson("/api/auth/request-password-reset",
                                            R"({"email":"retry@example.com"})");
  ASSERT_EQ(asked.status, 200) << asked.body;
  auth.app().app().WaitForBackgroundWork();
  EXPECT_EQ(auth.Count(R"(SELECT COUNT(*) FROM "_cairn_mail_queue" WHERE "attempts" = 1)"), 1);

  SmtpSink sink(port);
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(30);
  while (sink.Messages().empty() && std::chrono::steady_clock::now() < deadline) {
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  const auto received = sink.Messages();
  ASSERT_EQ(received.size(), 1u);
  EXPECT_EQ(received[0].rcpt_to, std::vector<std::string>{"retry@example.com"});
  EXPECT_NE(received[0].data.find("reset-password"), std::string::npos);
  // Delivered: no longer queued (removed right after the server's 250).
  for (int i = 0; i < 50 && auth.Count(R"(SELECT COUNT(*) FROM "_cairn_mail_queue")") > 0; ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  EXPECT_EQ(auth.Count(R"(SELECT COUNT(*) FROM "_cairn_mail_queue")"), 0);
}

TEST(AuthPasswordReset, MailedLinkResetsThePasswordOnce) {
  AuthApp auth;
  const Account a = auth.NewAccount("forgot@example.com");
  const Account b = auth.SignInOk(a.email, a.password);
  ASSERT_EQ(auth.Client()
                .PostJson("/api/auth/request-password-reset",
                          R"({"email":"Forgot@example.com","redirectTo":"/reset"})")
                .status,
            200);
  ASSERT_EQ(auth.OutboxSize(), 1u);
  const auto mail = auth.LastMail();
  EXPECT_NE(mail.Header("to").find("forgot@example.com"), std::string::npos);
  const std::string link = FirstLink(mail.text);
  const std::string token = TokenOfLink(link);
  EXPECT_EQ(link, auth.Origin() + "/api/auth/reset-password/" + token + "?callbackURL=%2Freset");
  ExpectStoredHashed(auth, token, "reset-password");

  // The link redirects to the app with the token.
  const auto redirect = auth.Client().Get(TargetOf(link));
  ASSERT_EQ(redirect.status, 302) << redirect.body;
  EXPECT_EQ(redirect.Header("Location"), "/reset?token=" + token);
  EXPECT_TRUE(redirect.body.empty());
  EXPECT_EQ(Verifications(auth), 1);  // following the link does not use it up

  const auto reset = auth.Client().PostJson(
      "/api/auth/reset-password", R"({"newPassword":"fresh start 99","token":")" + token + R"("})");
  ASSERT_EQ(reset.status, 200) << reset.body;
  EXPECT_EQ(reset.Json(), boost::json::parse(R"({"status":true})"));
  EXPECT_TRUE(reset.set_cookies.empty());
  EXPECT_EQ(Verifications(auth), 0);
  EXPECT_TRUE(IsAuthError(auth.SignIn(a.email, a.password), 401, "UNAUTHORIZED",
                          "INVALID_EMAIL_OR_PASSWORD"));
  EXPECT_EQ(auth.SignIn(a.email, "fresh start 99").status, 200);
  // Every session that existed before the reset is over.
  EXPECT_FALSE(IsLive(auth, a.token));
  EXPECT_FALSE(IsLive(auth, b.token));

  // Single use.
  const auto again = auth.Client().PostJson(
      "/api/auth/reset-password", R"({"newPassword":"second try 99","token":")" + token + R"("})");
  EXPECT_TRUE(IsAuthError(again, 400, "VALIDATION_ERROR", "INVALID_TOKEN"));
  EXPECT_EQ(auth.SignIn(a.email, "fresh start 99").status, 200);
  EXPECT_EQ(auth.SignIn(a.email, "second try 99").status, 401);
}

TEST(AuthPasswordReset, TokenInTheQueryAndBadTokens) {
  AuthApp auth;
  const Account a = auth.NewAccount("query@example.com");
  ASSERT_EQ(auth.Client()
                .PostJson("/api/auth/request-password-reset", R"({"email":"query@example.com"})")
                .status,
            200);
  const std::string link = FirstLink(auth.LastMail().text);
  const std::string token = TokenOfLink(link);
  EXPECT_EQ(link, auth.Origin() + "/api/auth/reset-password/" + token);
  // Unknown, missing and mistyped tokens.
  EXPECT_TRUE(
      IsAuthError(auth.Client().PostJson("/api/auth/reset-password",
                                         R"({"newPassword":"fresh start 99","token":"nope"})"),
                  400, "VALIDATION_ERROR", "INVALID_TOKEN"));
  EXPECT_TRUE(IsAuthError(
      auth.Client().PostJson("/api/auth/reset-password", R"({"newPassword":"fresh start 99"})"),
      400, "VALIDATION_ERROR", "INVALID_TOKEN"));
  EXPECT_TRUE(IsAuthError(auth.Client().PostJson("/api/auth/reset-password",
                                                 R"({"newPassword":"fresh start 99","token":")" +
                                                     crypto::Sha256Hex(token) + R"("})"),
                          400, "VALIDATION_ERROR", "INVALID_TOKEN"));
  // A too short password is refused without using the token up.
  EXPECT_TRUE(
      IsAuthError(auth.Client().PostJson("/api/auth/reset-password",
                                         R"({"newPassword":"short","token":")" + token + R"("})"),
                  400, "VALIDATION_ERROR", "PASSWORD_TOO_SHORT"));
  EXPECT_EQ(Verifications(auth), 1);
  const auto reset = auth.Client().PostJson("/api/auth/reset-password?token=" + token,
                                            R"({"newPassword":"fresh start 99"})");
  ASSERT_EQ(reset.status, 200) << reset.body;
  EXPECT_EQ(auth.SignIn(a.email, "fresh start 99").status, 200);
}

TEST(AuthPasswordReset, ConcurrentUsesOfOneTokenSucceedOnce) {
  AuthApp auth;
  const Account a = auth.NewAccount("race-reset@example.com");
  ASSERT_EQ(
      auth.Client()
          .PostJson("/api/auth/request-password-reset", R"({"email":"race-reset@example.com"})")
          .status,
      200);
  const std::string token = TokenOfLink(FirstLink(auth.LastMail().text));
  std::vector<std::future<HttpResult>> attempts;
  for (int i = 0; i < 4; ++i) {
    attempts.push_back(std::async(std::launch::async, [&auth, &token, i] {
      return auth.Client().PostJson("/api/auth/reset-password",
                                    R"({"newPassword":"racer number )" + std::to_string(i) +
                                        R"(","token":")" + token + R"("})");
    }));
  }
  int winners = 0;
  int winner = -1;
  for (int i = 0; i < 4; ++i) {
    const HttpResult result = attempts[static_cast<std::size_t>(i)].get();
    if (result.status == 200) {
      ++winners;
      winner = i;
    } else {
      EXPECT_TRUE(IsAuthError(result, 400, "VALIDATION_ERROR", "INVALID_TOKEN"));
    }
  }
  ASSERT_EQ(winners, 1);
  EXPECT_EQ(auth.SignIn(a.email, "racer number " + std::to_string(winner)).status, 200);
  EXPECT_EQ(auth.SignIn(a.email, a.password).status, 401);
}

TEST(AuthPasswordReset, ExpiredTokenIsRefused) {
  AuthApp auth;
  const Account a = auth.NewAccount("late@example.com");
  ASSERT_EQ(auth.Client()
                .PostJson("/api/auth/request-password-reset", R"({"email":"late@example.com"})")
                .status,
            200);
  const std::string token = TokenOfLink(FirstLink(auth.LastMail().text));
  ASSERT_EQ(auth.Execute(R"(UPDATE "_cairn_auth_verifications" SET "expires_at" = ?)",
                         {NowMillis() - 1000}),
            1);
  const auto result = auth.Client().PostJson(
      "/api/auth/reset-password", R"({"newPassword":"fresh start 99","token":")" + token + R"("})");
  EXPECT_TRUE(IsAuthError(result, 400, "VALIDATION_ERROR", "INVALID_TOKEN"));
  EXPECT_EQ(auth.SignIn(a.email, a.password).status, 200);
  EXPECT_EQ(auth.SignIn(a.email, "fresh start 99").status, 401);
}

TEST(AuthPasswordReset, NoOpenRedirects) {
  AuthApp auth;
  auth.NewAccount("redirect@example.com");
  ASSERT_EQ(auth.Client()
                .PostJson("/api/auth/request-password-reset", R"({"email":"redirect@example.com"})")
                .status,
            200);
  const std::string token = TokenOfLink(FirstLink(auth.LastMail().text));
  for (const char* callback :
       {"https://evil.example/reset", "https:%2F%2Fevil.example", "%2F%2Fevil.example%2Freset",
        "%2F%5Cevil.example", "javascript:alert(1)"}) {
    const auto result = auth.Client().Get("/api/auth/reset-password/" + token +
                                          "?callbackURL=" + std::string(callback));
    EXPECT_TRUE(IsAuthError(result, 400, "VALIDATION_ERROR", "INVALID_CALLBACK_URL")) << callback;
    EXPECT_TRUE(result.Header("Location").empty()) << callback;
  }
  // The reset request refuses a foreign redirectTo up front, and sends nothing.
  const std::size_t mails = auth.OutboxSize();
  const auto request = auth.Client().PostJson(
      "/api/auth/request-password-reset",
      R"({"email":"redirect@example.com","redirectTo":"https://evil.example/reset"})");
  EXPECT_EQ(request.status, 400) << request.body;
  EXPECT_EQ(auth.OutboxSize(), mails);
  // The server's own origin, absolute, is fine; so is a path with a query and a fragment.
  const std::string own = auth.Origin() + "/reset";
  auto result = auth.Client().Get("/api/auth/reset-password/" + token + "?callbackURL=" + own);
  ASSERT_EQ(result.status, 302) << result.body;
  EXPECT_EQ(result.Header("Location"), own + "?token=" + token);
  result = auth.Client().Get("/api/auth/reset-password/" + token +
                             "?callbackURL=%2Freset%3Fstep%3D2%23form");
  ASSERT_EQ(result.status, 302) << result.body;
  EXPECT_EQ(result.Header("Location"), "/reset?step=2&token=" + token + "#form");
}

// --- email verification -------------------------------------------------------------------------

TEST(AuthVerifyEmail, JsonFormVerifiesOnce) {
  AuthApp auth;
  const Account a = auth.NewAccount("check@example.com");
  const auto sent = auth.Client().PostJson("/api/auth/send-verification-email",
                                           R"({"email":"check@example.com"})");
  ASSERT_EQ(sent.status, 200) << sent.body;
  EXPECT_EQ(sent.Json(), boost::json::parse(R"({"status":true})"));
  ASSERT_EQ(auth.OutboxSize(), 1u);
  const auto mail = auth.LastMail();
  EXPECT_NE(mail.Header("to").find("check@example.com"), std::string::npos);
  const std::string link = FirstLink(mail.text);
  const std::string token = TokenOfLink(link);
  EXPECT_EQ(link, auth.Origin() + "/api/auth/verify-email?token=" + token + "&callbackURL=%2F");
  ExpectStoredHashed(auth, token, "verify-email");

  const auto verified = auth.Client().Get("/api/auth/verify-email?token=" + token);
  ASSERT_EQ(verified.status, 200) << verified.body;
  EXPECT_EQ(verified.Json().at("status"), true);
  EXPECT_EQ(auth.Count(R"(SELECT "email_verified" FROM "_cairn_auth_users" WHERE "id" = ?)",
                       {std::string_view(a.user_id)}),
            1);
  EXPECT_EQ(auth.GetAs(a.token, "/api/auth/get-session").Json().at("user").at("emailVerified"),
            true);
  EXPECT_EQ(Verifications(auth), 0);

  const auto reused = auth.Client().Get("/api/auth/verify-email?token=" + token);
  EXPECT_TRUE(IsAuthError(reused, 400, "VALIDATION_ERROR", "INVALID_TOKEN"));
  EXPECT_TRUE(IsAuthError(auth.Client().Get("/api/auth/verify-email?token=garbage"), 400,
                          "VALIDATION_ERROR", "INVALID_TOKEN"));
  EXPECT_TRUE(IsAuthError(auth.Client().Get("/api/auth/verify-email"), 400, "VALIDATION_ERROR",
                          "INVALID_TOKEN"));
  // A verified address gets no more mail; nor does an unknown one; the answer is the same.
  const auto again = auth.Client().PostJson("/api/auth/send-verification-email",
                                            R"({"email":"check@example.com"})");
  const auto unknown = auth.Client().PostJson("/api/auth/send-verification-email",
                                              R"({"email":"nobody@example.com"})");
  EXPECT_EQ(again.status, 200);
  EXPECT_EQ(again.body, sent.body);
  EXPECT_EQ(unknown.body, sent.body);
  EXPECT_EQ(auth.OutboxSize(), 1u);
}

TEST(AuthVerifyEmail, CallbackFormRedirects) {
  AuthApp auth;
  const Account a = auth.NewAccount("redirected@example.com");
  ASSERT_EQ(auth.Client()
                .PostJson("/api/auth/send-verification-email",
                          R"({"email":"redirected@example.com","callbackURL":"/welcome?x=1"})")
                .status,
            200);
  const std::string link = FirstLink(auth.LastMail().text);
  EXPECT_EQ(QueryParam(link, "callbackURL"), "/welcome?x=1");
  const auto followed = auth.Client().Get(TargetOf(link));
  ASSERT_EQ(followed.status, 302) << followed.body;
  EXPECT_EQ(followed.Header("Location"), "/welcome?x=1");
  EXPECT_TRUE(followed.set_cookies.empty());
  EXPECT_EQ(auth.Count(R"(SELECT "email_verified" FROM "_cairn_auth_users" WHERE "id" = ?)",
                       {std::string_view(a.user_id)}),
            1);
  // Reused: the error goes to the app.
  const auto reused = auth.Client().Get(TargetOf(link));
  ASSERT_EQ(reused.status, 302);
  EXPECT_EQ(reused.Header("Location"), "/welcome?x=1&error=INVALID_TOKEN");
  // A foreign callback is refused before anything else.
  const auto foreign =
      auth.Client().Get("/api/auth/verify-email?token=x&callbackURL=https%3A%2F%2Fevil.example");
  EXPECT_TRUE(IsAuthError(foreign, 400, "VALIDATION_ERROR", "INVALID_CALLBACK_URL"));
  EXPECT_TRUE(foreign.Header("Location").empty());
}

TEST(AuthVerifyEmail, NewLinkReplacesTheOldOneAndExpiredLinksFail) {
  AuthApp auth;
  const Account a = auth.NewAccount("twice@example.com");
  const std::string body = R"({"email":"twice@example.com"})";
  ASSERT_EQ(auth.Client().PostJson("/api/auth/send-verification-email", body).status, 200);
  const std::string first = TokenOfLink(FirstLink(auth.LastMail().text));
  ASSERT_EQ(auth.Client().PostJson("/api/auth/send-verification-email", body).status, 200);
  const std::string second = TokenOfLink(FirstLink(auth.LastMail().text));
  EXPECT_NE(first, second);
  EXPECT_EQ(Verifications(auth), 1);
  EXPECT_EQ(auth.Client().Get("/api/auth/verify-email?token=" + first).status, 400);
  ASSERT_EQ(
      auth.Execute(R"(UPDATE "_cairn_auth_verifications" SET "expires_at" = ?)", {NowMillis() - 1}),
      1);
  EXPECT_TRUE(IsAuthError(auth.Client().Get("/api/auth/verify-email?token=" + second), 400,
                          "VALIDATION_ERROR", "INVALID_TOKEN"));
  EXPECT_EQ(auth.Count(R"(SELECT "email_verified" FROM "_cairn_auth_users" WHERE "id" = ?)",
                       {std::string_view(a.user_id)}),
            0);
}

}  // namespace
}  // namespace cairn::test
