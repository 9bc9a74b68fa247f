// The CSRF origin check guards the sign-in routes it is given, and only those: a config without
// the password strategy has no password sign-in route to name (PasswordSignInPaths).
#include "api/origin_check.hpp"

#include <gtest/gtest.h>

#include "api/auth_routes.hpp"
#include "config/model.hpp"

namespace cairn::api {
namespace {

constexpr const char* kSignIn = "/api/auth/sign-in/email";

// A browser's cross-site form post to `path`, without cookies.
std::optional<http::Response> CrossSiteNavigation(OriginCheck& check, const std::string& path) {
  http::BeastRequest raw{boost::beast::http::verb::post, path, 11};
  raw.set("Sec-Fetch-Site", "cross-site");
  raw.set("Sec-Fetch-Mode", "navigate");
  http::Request request;
  request.raw = &raw;
  request.method = "POST";
  request.path = path;
  return check.Before(request, http::RouteSpec{});
}

config::AuthConfig WithStrategies(std::initializer_list<const char*> types) {
  config::AuthConfig auth;
  for (const char* type : types) auth.strategies.push_back({type, {}});
  return auth;
}

TEST(OriginCheck, PasswordSignInPathsFollowTheStrategies) {
  EXPECT_EQ(PasswordSignInPaths(WithStrategies({"magicLink", "emailAndPassword"})),
            (std::vector<std::string>{kSignIn, "/api/auth/sign-up/email"}));
  EXPECT_TRUE(PasswordSignInPaths(WithStrategies({"oauth"})).empty());
}

TEST(OriginCheck, PasswordlessSignInPathsFollowTheStrategies) {
  EXPECT_EQ(PasswordlessSignInPaths(WithStrategies({"emailAndPassword", "magicLink"})),
            (std::vector<std::string>{"/api/auth/sign-in/magic-link"}));
  EXPECT_EQ(PasswordlessSignInPaths(WithStrategies({"emailOtp"})),
            (std::vector<std::string>{"/api/auth/sign-in/email-otp",
                                      "/api/auth/email-otp/send-verification-otp"}));
  EXPECT_TRUE(PasswordlessSignInPaths(WithStrategies({"emailAndPassword"})).empty());
}

TEST(OriginCheck, GuardsTheSignInRoutesItIsGiven) {
  OriginCheck guarded({"http://app.example"},
                      PasswordSignInPaths(WithStrategies({"emailAndPassword"})));
  auto refused = CrossSiteNavigation(guarded, kSignIn);
  ASSERT_TRUE(refused.has_value());
  EXPECT_EQ(refused->status, 403);
  EXPECT_FALSE(CrossSiteNavigation(guarded, "/api/auth/get-session").has_value());

  OriginCheck without({"http://app.example"}, PasswordSignInPaths(WithStrategies({"oauth"})));
  EXPECT_FALSE(CrossSiteNavigation(without, kSignIn).has_value());
}

}  // namespace
}  // namespace cairn::api
