// The oauth strategy's providers (D18): credentials from <NAME>_CLIENT_ID/_SECRET, a missing
// one is an error naming both variables, built-in endpoints, generic issuers.
#include "auth/oauth/providers.hpp"

#include <gtest/gtest.h>

#include <boost/json.hpp>
#include <map>

namespace cairn::auth::oauth {
namespace {

config::AuthConfig WithProviders(boost::json::array providers) {
  config::AuthConfig config;
  config::AuthStrategy strategy;
  strategy.type = "oauth";
  strategy.properties["providers"] = std::move(providers);
  config.strategies.push_back(std::move(strategy));
  return config;
}

CredentialLookup Env(std::initializer_list<std::pair<const std::string, std::string>> pairs) {
  return [values = std::map<std::string, std::string>(pairs)](
             const std::string& name) -> std::optional<std::string> {
    const auto found = values.find(name);
    if (found == values.end()) return std::nullopt;
    return found->second;
  };
}

TEST(OAuthProviders, CredentialVariablesAreUpperCasedWithUnderscores) {
  EXPECT_EQ(CredentialVariable("google", "_CLIENT_ID"), "GOOGLE_CLIENT_ID");
  EXPECT_EQ(CredentialVariable("my-idp", "_CLIENT_SECRET"), "MY_IDP_CLIENT_SECRET");
}

TEST(OAuthProviders, BuiltInAndGenericProvidersGetTheirCredentials) {
  GitHubUrls github{"https://ghe.example.com", "https://ghe.example.com/api/v3"};
  auto providers = ConfiguredProviders(
      WithProviders({"google", "github",
                     boost::json::object{{"name", "my-idp"}, {"issuer", "https://idp.test/"}}}),
      Env({{"GOOGLE_CLIENT_ID", "g"},
           {"GOOGLE_CLIENT_SECRET", "gs"},
           {"GITHUB_CLIENT_ID", "h"},
           {"GITHUB_CLIENT_SECRET", "hs"},
           {"MY_IDP_CLIENT_ID", "i"},
           {"MY_IDP_CLIENT_SECRET", "is"}}),
      github);
  ASSERT_TRUE(providers.ok()) << providers.error().message;
  ASSERT_EQ(providers->size(), 3u);
  const Provider& google = (*providers)[0];
  EXPECT_EQ(google.kind, ProviderKind::kOidc);
  EXPECT_EQ(google.issuer, "https://accounts.google.com");
  EXPECT_EQ(google.client_id, "g");
  EXPECT_EQ(google.client_secret, "gs");
  const Provider& gh = (*providers)[1];
  EXPECT_EQ(gh.kind, ProviderKind::kGitHub);
  EXPECT_EQ(gh.token_endpoint, "https://ghe.example.com/login/oauth/access_token");
  EXPECT_EQ(gh.emails_endpoint, "https://ghe.example.com/api/v3/user/emails");
  const Provider& generic = (*providers)[2];
  EXPECT_EQ(generic.issuer, "https://idp.test/");  // as written: tokens must name it exactly
  EXPECT_EQ(generic.discovery_url, "https://idp.test/.well-known/openid-configuration");
  EXPECT_TRUE(generic.authorization_endpoint.empty());  // from discovery, on first use
}

TEST(OAuthProviders, MissingCredentialsNameBothVariables) {
  auto providers = ConfiguredProviders(WithProviders({"gitlab"}),
                                       Env({{"GITLAB_CLIENT_ID", "only-the-id"}}), {});
  ASSERT_FALSE(providers.ok());
  EXPECT_NE(providers.error().message.find("GITLAB_CLIENT_ID"), std::string::npos);
  EXPECT_NE(providers.error().message.find("GITLAB_CLIENT_SECRET"), std::string::npos);
  ASSERT_EQ(providers.error().errors.size(), 2u);
  EXPECT_EQ(providers.error().errors[0].field, "GITLAB_CLIENT_ID");
  EXPECT_EQ(providers.error().errors[1].field, "GITLAB_CLIENT_SECRET");
}

TEST(OAuthProviders, ProviderUrlsMustBeHttpsButOnLoopback) {
  EXPECT_TRUE(CheckProviderUrl("https://idp.example.com/x", "issuer").ok());
  EXPECT_TRUE(CheckProviderUrl("http://127.0.0.1:4000", "issuer").ok());
  EXPECT_TRUE(CheckProviderUrl("http://localhost:4000/a", "issuer").ok());
  EXPECT_FALSE(CheckProviderUrl("http://idp.example.com", "issuer").ok());
  EXPECT_FALSE(CheckProviderUrl("ftp://idp.example.com", "issuer").ok());
  EXPECT_FALSE(CheckProviderUrl("https://", "issuer").ok());
  EXPECT_FALSE(ConfiguredProviders(WithProviders({boost::json::object{
                                       {"name", "plain"}, {"issuer", "http://idp.example.com"}}}),
                                   Env({{"PLAIN_CLIENT_ID", "a"}, {"PLAIN_CLIENT_SECRET", "b"}}),
                                   {})
                   .ok());
}

}  // namespace
}  // namespace cairn::auth::oauth
