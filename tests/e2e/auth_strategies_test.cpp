// auth.strategies decides which sign-in routes exist: without emailAndPassword, no route signs
// anyone up, in or through a reset with a password (404 as for any unknown route), while the
// first admin from the settings is still created (docs/auth.md "Strategies").
#include <gtest/gtest.h>

#include "e2e/auth_test_support.hpp"

namespace cairn::test {
namespace {

constexpr const char* kAdminEmail = "root@example.com";
constexpr const char* kAdminPassword = "correct horse 1";

std::string ConfigWithStrategies(const std::string& strategies) {
  return std::string(kMinimalConfig) + "auth:\n  strategies:\n" + strategies;
}

// The oauth strategy starts only with its providers' credentials (D18).
TestAppOptions WithGoogleCredentials(TestAppOptions options) {
  auto base = options.tune_settings;
  options.tune_settings = [base](app::Settings& settings) {
    if (base) base(settings);
    settings.env = [](const char* name) -> std::optional<std::string> {
      const std::string_view wanted(name);
      if (wanted == "GOOGLE_CLIENT_ID" || wanted == "GOOGLE_CLIENT_SECRET") return "test";
      return std::nullopt;
    };
  };
  return options;
}

::testing::AssertionResult IsRouteNotFound(const HttpResult& result) {
  if (result.status != 404) {
    return ::testing::AssertionFailure() << "status " << result.status << ": " << result.body;
  }
  const auto body = result.Json();
  if (body.at("success") != false || body.at("code") != "NOT_FOUND") {
    return ::testing::AssertionFailure() << "not the standard envelope: " << result.body;
  }
  if (!result.set_cookies.empty()) return ::testing::AssertionFailure() << "sets a cookie";
  return ::testing::AssertionSuccess();
}

TEST(AuthStrategies, WithoutThePasswordStrategyNoPasswordRouteExists) {
  AuthApp auth(WithGoogleCredentials(AuthAppOptionsWithConfig(
      ConfigWithStrategies("    - type: oauth\n      providers: [google]\n    - type: magicLink\n"),
      kAdminEmail, kAdminPassword)));
  const std::string sign_up =
      R"({"name":"Mallory","email":"m@example.com","password":"abcdefgh1"})";
  EXPECT_TRUE(IsRouteNotFound(auth.Client().PostJson("/api/auth/sign-up/email", sign_up)));
  // Not even the first admin, whose password exists, signs in with it.
  const std::string sign_in =
      std::string(R"({"email":")") + kAdminEmail + R"(","password":")" + kAdminPassword + "\"}";
  EXPECT_TRUE(IsRouteNotFound(auth.Client().PostJson("/api/auth/sign-in/email", sign_in)));
  // A browser's cross-site post gets the same 404, not the origin check's 403.
  EXPECT_TRUE(IsRouteNotFound(
      auth.Client().PostJson("/api/auth/sign-in/email", sign_in,
                             {{"Sec-Fetch-Site", "cross-site"}, {"Sec-Fetch-Mode", "navigate"}})));
  EXPECT_TRUE(IsRouteNotFound(auth.Client().PostJson("/api/auth/request-password-reset",
                                                     R"({"email":"root@example.com"})")));
  EXPECT_TRUE(IsRouteNotFound(auth.Client().PostJson(
      "/api/auth/reset-password", R"({"newPassword":"abcdefgh12","token":"x"})")));
  EXPECT_TRUE(IsRouteNotFound(auth.Client().Get("/api/auth/reset-password/x?callbackURL=/")));
  EXPECT_TRUE(IsRouteNotFound(auth.Client().PostJson(
      "/api/auth/change-password", R"({"currentPassword":"a","newPassword":"b"})")));
  EXPECT_EQ(auth.OutboxSize(), 0u);  // no reset mail went out

  // The database agrees: only the first admin exists, with no session.
  EXPECT_EQ(auth.Count(R"(SELECT COUNT(*) FROM "_cairn_auth_users")"), 1);
  EXPECT_EQ(auth.Count(R"(SELECT COUNT(*) FROM "_cairn_auth_users" WHERE "email" = ? AND )"
                       R"("role" = 'admin')",
                       {db::Value(std::string(kAdminEmail))}),
            1);
  EXPECT_EQ(auth.Count(R"(SELECT COUNT(*) FROM "_cairn_auth_sessions")"), 0);

  // The routes that do not take a password stay.
  const auto session = auth.Client().Get("/api/auth/get-session");
  EXPECT_EQ(session.status, 200) << session.body;
  EXPECT_EQ(auth.Client().PostJson("/api/auth/sign-out", "{}").status, 200);
}

TEST(AuthStrategies, ThePasswordStrategyBesideOthersServesItsRoutes) {
  AuthApp auth(WithGoogleCredentials(AuthAppOptionsWithConfig(ConfigWithStrategies(
      "    - type: oauth\n      providers: [google]\n    - type: emailAndPassword\n"))));
  const Account account = auth.NewAccount("both@example.com");
  EXPECT_FALSE(account.token.empty());
  const auto signed_in = auth.SignIn("both@example.com", "correct horse 1");
  EXPECT_EQ(signed_in.status, 200) << signed_in.body;
  EXPECT_EQ(auth.Client()
                .PostJson("/api/auth/request-password-reset", R"({"email":"both@example.com"})")
                .status,
            200);
}

}  // namespace
}  // namespace cairn::test
