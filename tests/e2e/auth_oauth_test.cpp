// OAuth sign-in (D18) end to end: against a real OpenID provider (oidc-provider, started by the
// test, with its login and consent pages driven as a browser would) and against a stand-in of
// GitHub's OAuth and REST endpoints. Both backends.
#include <gtest/gtest.h>

#include <boost/json.hpp>
#include <map>
#include <memory>

#include "e2e/auth_test_support.hpp"
#include "support/browser.hpp"
#include "support/node_process.hpp"

namespace cairn::test {
namespace {

constexpr const char* kClientId = "cairn-test-client";
constexpr const char* kClientSecret = "cairn-test-client-secret-0123456789";
constexpr const char* kAliceEmail = "alice@example.com";

std::string OAuthConfig(const std::string& providers_yaml) {
  return std::string(kMinimalConfig) +
         "auth:\n  strategies:\n    - type: emailAndPassword\n    - type: oauth\n"
         "      providers:\n" +
         providers_yaml;
}

// The app with these providers' credentials in its environment, and GitHub's endpoints at
// `github_base` when given (GITHUB_URL and GITHUB_API_URL, as for GitHub Enterprise).
TestAppOptions OAuthOptions(const std::string& providers_yaml,
                            std::map<std::string, std::string> env,
                            const std::string& github_base = "") {
  TestAppOptions options = AuthAppOptionsWithConfig(OAuthConfig(providers_yaml));
  auto base = options.tune_settings;
  options.tune_settings = [base, env, github_base](app::Settings& settings) {
    base(settings);
    settings.env = [env](const char* name) -> std::optional<std::string> {
      const auto found = env.find(name);
      if (found == env.end()) return std::nullopt;
      return found->second;
    };
    if (!github_base.empty()) {
      settings.github_url = github_base;
      settings.github_api_url = github_base;
    }
  };
  return options;
}

std::string SkipReason(const std::string& package) {
  const std::string missing = NodeProcess::Missing(package);
  return missing.starts_with("node is not installed") ? missing : std::string();
}

// --- Against a real OpenID provider ------------------------------------------------------------

class OidcProvider {
 public:
  explicit OidcProvider(bool claims_from_userinfo)
      : process_("oidc_server.mjs", {kClientId, kClientSecret, "alice", kAliceEmail,
                                     "Alice Example", claims_from_userinfo ? "userinfo" : "id"}) {
    port_ = std::stoi(process_.ReadLine());
  }
  std::string issuer() const { return "http://127.0.0.1:" + std::to_string(port_); }
  // The provider knows the app's redirect URI only once the app has its port.
  void Register(const std::string& redirect_uri) {
    process_.WriteLine(redirect_uri);
    EXPECT_EQ(process_.ReadLine(), "ready");
  }

 private:
  NodeProcess process_;
  int port_ = 0;
};

class OAuthOidcTest : public ::testing::Test {
 protected:
  void SetUp() override {
    if (const std::string skip = SkipReason("oidc-provider"); !skip.empty()) GTEST_SKIP() << skip;
    const std::string missing = NodeProcess::Missing("oidc-provider");
    ASSERT_TRUE(missing.empty()) << missing;
    provider_ = std::make_unique<OidcProvider>(ClaimsFromUserInfo());
    auth_ = std::make_unique<AuthApp>(
        OAuthOptions("        - { name: idp, issuer: \"" + provider_->issuer() + "\" }\n",
                     {{"IDP_CLIENT_ID", kClientId}, {"IDP_CLIENT_SECRET", kClientSecret}}));
    provider_->Register(Origin() + "/api/auth/callback/idp");
  }

  // Whether the provider keeps the email out of the ID token (cairn asks userinfo for it).
  virtual bool ClaimsFromUserInfo() const { return false; }
  std::string Origin() const { return auth_->Origin(); }
  std::string Home() const { return Origin() + "/app/home"; }
  std::string ErrorPage() const { return Origin() + "/app/error"; }

  // POST sign-in/social as the app's page would; the provider's authorization URL.
  std::string StartSignIn(const std::string& extra = "") {
    const auto started =
        auth_->Client().PostJson("/api/auth/sign-in/social",
                                 R"({"provider":"idp","callbackURL":")" + Home() +
                                     R"(","errorCallbackURL":")" + ErrorPage() + "\"" + extra + "}",
                                 {{"Origin", Origin()}});
    EXPECT_EQ(started.status, 200) << started.body;
    const auto body = started.Json();
    EXPECT_TRUE(body.at("redirect").as_bool());
    const std::string url(body.at("url").as_string());
    EXPECT_EQ(started.Header("location"), url);
    return url;
  }

  // Through the provider's login and consent pages, up to (not into) cairn's callback: the
  // callback URL the provider sends the browser to.
  std::string ThroughProvider(Browser& browser, const std::string& authorize_url) {
    const std::string callback_prefix = Origin() + "/api/auth/callback/";
    const auto login = browser.Go(authorize_url, callback_prefix);
    EXPECT_EQ(login.status, 200) << login.body;
    EXPECT_NE(login.body.find("name=\"login\""), std::string::npos) << login.body;
    const auto consent = browser.Submit(Browser::FormAction(login.body, browser.url()),
                                        "prompt=login&login=alice&password=any", callback_prefix);
    EXPECT_EQ(consent.status, 200) << consent.body;
    EXPECT_NE(consent.body.find("prompt\" value=\"consent"), std::string::npos) << consent.body;
    const auto back = browser.Submit(Browser::FormAction(consent.body, browser.url()),
                                     "prompt=consent", callback_prefix);
    EXPECT_TRUE(back.status == 302 || back.status == 303) << back.status << back.body;
    const std::string location = back.Header("location");
    EXPECT_TRUE(location.starts_with(callback_prefix)) << location;
    return location;
  }

  // The whole flow in `browser`; cairn's answer to the callback.
  HttpResult SignIn(Browser& browser) {
    const std::string callback = ThroughProvider(browser, StartSignIn());
    return browser.Go(callback, Origin() + "/app/");
  }

  boost::json::value SessionOf(const Browser& browser) {
    return auth_->Client()
        .Get("/api/auth/get-session", {{"Cookie", browser.CookieHeader(Origin())}})
        .Json();
  }

  std::unique_ptr<OidcProvider> provider_;
  std::unique_ptr<AuthApp> auth_;
};

TEST_F(OAuthOidcTest, SignsUpThenSignsInAndListsTheAccount) {
  const std::string authorize = StartSignIn();
  // The authorization code flow with PKCE S256 and a nonce, to the discovered endpoint.
  EXPECT_TRUE(authorize.starts_with(provider_->issuer() + "/auth?")) << authorize;
  EXPECT_EQ(QueryParam(authorize, "response_type"), "code");
  EXPECT_EQ(QueryParam(authorize, "client_id"), kClientId);
  EXPECT_EQ(QueryParam(authorize, "code_challenge_method"), "S256");
  EXPECT_EQ(QueryParam(authorize, "code_challenge").size(), 43u);
  EXPECT_FALSE(QueryParam(authorize, "nonce").empty());
  EXPECT_EQ(QueryParam(authorize, "redirect_uri"), Origin() + "/api/auth/callback/idp");
  EXPECT_EQ(auth_->Count(R"(SELECT COUNT(*) FROM "_cairn_auth_oauth_states")"), 1);
  // Stored hashed: the state in the URL is not in the table.
  EXPECT_EQ(
      auth_->Count(R"(SELECT COUNT(*) FROM "_cairn_auth_oauth_states" WHERE "state_hash" = ?)",
                   {QueryParam(authorize, "state")}),
      0);

  Browser browser;
  const auto done = browser.Go(ThroughProvider(browser, authorize), Origin() + "/app/");
  ASSERT_EQ(done.status, 302) << done.body;
  EXPECT_EQ(done.Header("location"), Home());
  ASSERT_TRUE(done.SetCookie(kSessionCookieName).has_value());
  EXPECT_EQ(auth_->Count(R"(SELECT COUNT(*) FROM "_cairn_auth_oauth_states")"), 0);

  const auto session = SessionOf(browser);
  ASSERT_TRUE(session.is_object()) << boost::json::serialize(session);
  const std::string user_id(session.at("user").at("id").as_string());
  EXPECT_EQ(session.at("user").at("email").as_string(), kAliceEmail);
  EXPECT_EQ(session.at("user").at("name").as_string(), "Alice Example");
  EXPECT_TRUE(session.at("user").at("emailVerified").as_bool());

  const auto accounts =
      auth_->Client().Get("/api/auth/list-accounts", {{"Cookie", browser.CookieHeader(Origin())}});
  ASSERT_EQ(accounts.status, 200) << accounts.body;
  const auto list = accounts.Json();
  ASSERT_EQ(list.as_array().size(), 1u) << accounts.body;
  const auto& account = list.as_array()[0].as_object();
  EXPECT_EQ(account.at("providerId").as_string(), "idp");
  EXPECT_EQ(account.at("accountId").as_string(), "alice");
  EXPECT_EQ(account.at("userId").as_string(), user_id);
  EXPECT_EQ(account.at("scopes"), (boost::json::array{"openid", "email", "profile"}));
  EXPECT_FALSE(account.contains("accessToken"));
  EXPECT_EQ(auth_->Count(R"(SELECT COUNT(*) FROM "_cairn_activity" WHERE "action" = 'sign_up')"),
            1);

  // Again in a fresh browser (the provider asks to log in again): the same user, one account.
  Browser second;
  ASSERT_EQ(SignIn(second).status, 302);
  EXPECT_EQ(SessionOf(second).at("user").at("id").as_string(), user_id);
  EXPECT_EQ(auth_->Count(R"(SELECT COUNT(*) FROM "_cairn_auth_accounts")"), 1);
  EXPECT_EQ(auth_->Count(R"(SELECT COUNT(*) FROM "_cairn_auth_users")"), 1);
}

TEST_F(OAuthOidcTest, AStateIsGoodForOneCallback) {
  Browser browser;
  const std::string callback = ThroughProvider(browser, StartSignIn());
  ASSERT_EQ(browser.Go(callback, Origin() + "/app/").status, 302);
  EXPECT_TRUE(SessionOf(browser).is_object());

  // The same callback replayed (another browser, or the same one): refused, no session.
  Browser replay;
  const auto refused = replay.Go(callback, Origin() + "/");
  ASSERT_EQ(refused.status, 302);
  EXPECT_EQ(refused.Header("location"), Origin() + "/?error=state_mismatch");
  EXPECT_FALSE(refused.SetCookie(kSessionCookieName).has_value());
  EXPECT_TRUE(SessionOf(replay).is_null());
}

TEST_F(OAuthOidcTest, TamperedCodeOrStateRedirectsWithAnError) {
  {
    Browser browser;
    const std::string callback = ThroughProvider(browser, StartSignIn());
    std::string tampered = callback;
    const std::string code = QueryParam(callback, "code");
    tampered.replace(tampered.find(code), code.size(), "not-the-code");
    const auto refused = browser.Go(tampered, Origin() + "/app/");
    ASSERT_EQ(refused.status, 302);
    EXPECT_EQ(refused.Header("location"), ErrorPage() + "?error=invalid_code");
    EXPECT_FALSE(refused.SetCookie(kSessionCookieName).has_value());
    // The attempt used the state up: the genuine code cannot follow with it.
    EXPECT_EQ(browser.Go(callback, Origin() + "/").Header("location"),
              Origin() + "/?error=state_mismatch");
  }
  {
    Browser browser;
    const std::string callback = ThroughProvider(browser, StartSignIn());
    std::string tampered = callback;
    const std::string state = QueryParam(callback, "state");
    tampered.replace(tampered.find(state), state.size(), "forged" + state.substr(6));
    const auto refused = browser.Go(tampered, Origin() + "/");
    EXPECT_EQ(refused.Header("location"), Origin() + "/?error=state_mismatch");
    EXPECT_TRUE(SessionOf(browser).is_null());
  }
  {
    // The provider's own error (the user refused): passed on to the error page.
    const std::string state = QueryParam(StartSignIn(), "state");
    Browser browser;
    const auto denied = browser.Go(
        Origin() + "/api/auth/callback/idp?error=access_denied&state=" + state, Origin() + "/app/");
    EXPECT_EQ(denied.Header("location"), ErrorPage() + "?error=access_denied");
  }
  {
    // A state of this provider sent to another provider's callback: refused.
    const std::string state = QueryParam(StartSignIn(), "state");
    Browser browser;
    const auto other = browser.Go(Origin() + "/api/auth/callback/github?code=x&state=" + state,
                                  Origin() + "/app/");
    EXPECT_EQ(other.Header("location"), ErrorPage() + "?error=state_mismatch");
  }
  EXPECT_EQ(auth_->Count(R"(SELECT COUNT(*) FROM "_cairn_auth_users")"), 0);
}

TEST_F(OAuthOidcTest, RedirectTargetsMustBeTrusted) {
  const auto post = [&](const std::string& body) {
    return auth_->Client().PostJson("/api/auth/sign-in/social", body, {{"Origin", Origin()}});
  };
  EXPECT_TRUE(IsAuthError(post(R"({"provider":"idp","callbackURL":"https://evil.example.com/x"})"),
                          400, "VALIDATION_ERROR", "INVALID_CALLBACK_URL"));
  EXPECT_TRUE(IsAuthError(post(R"({"provider":"idp","errorCallbackURL":"//evil.example.com"})"),
                          400, "VALIDATION_ERROR", "INVALID_CALLBACK_URL"));
  EXPECT_TRUE(IsAuthError(post(R"({"provider":"idp","callbackURL":"/\\evil.example.com"})"), 400,
                          "VALIDATION_ERROR", "INVALID_CALLBACK_URL"));
  EXPECT_TRUE(IsAuthError(post(R"({"provider":"nope"})"), 404, "NOT_FOUND", "PROVIDER_NOT_FOUND"));
  // A relative path on this server is fine; without a callbackURL, BASE_URL.
  EXPECT_EQ(post(R"({"provider":"idp","callbackURL":"/welcome"})").status, 200);
  EXPECT_EQ(post(R"({"provider":"idp"})").status, 200);
  // A cross-site page cannot start a sign-in (CSRF check as for sign-in/email).
  EXPECT_EQ(auth_->Client()
                .PostJson("/api/auth/sign-in/social", R"({"provider":"idp"})",
                          {{"Origin", "https://evil.example.com"}})
                .status,
            403);
}

TEST_F(OAuthOidcTest, VerifiedEmailLinksToTheExistingUserAndUnlinkKeepsAWayIn) {
  const Account existing = auth_->NewAccount(kAliceEmail);
  Browser browser;
  ASSERT_EQ(SignIn(browser).status, 302);
  const auto session = SessionOf(browser);
  ASSERT_TRUE(session.is_object());
  EXPECT_EQ(session.at("user").at("id").as_string(), existing.user_id);
  // The provider vouched for the address: it is now verified here too.
  EXPECT_TRUE(session.at("user").at("emailVerified").as_bool());

  const auto accounts = auth_->GetAs(existing.token, "/api/auth/list-accounts").Json();
  ASSERT_EQ(accounts.as_array().size(), 2u);
  std::string credential_id, idp_id;
  for (const auto& item : accounts.as_array()) {
    const std::string provider(item.at("providerId").as_string());
    (provider == "credential" ? credential_id : idp_id) = std::string(item.at("id").as_string());
  }
  ASSERT_FALSE(credential_id.empty());
  ASSERT_FALSE(idp_id.empty());

  const auto unlink = [&](const std::string& id) {
    return auth_->PostAs(existing.token, "/api/auth/unlink-account",
                         R"({"accountId":")" + id + "\"}");
  };
  EXPECT_TRUE(IsAuthError(unlink("no-such-account"), 400, "VALIDATION_ERROR", "ACCOUNT_NOT_FOUND"));
  const auto unlinked = unlink(idp_id);
  ASSERT_EQ(unlinked.status, 200) << unlinked.body;
  EXPECT_EQ(unlinked.Json().at("status").as_bool(), true);
  // The password is the last way in: it stays.
  EXPECT_TRUE(
      IsAuthError(unlink(credential_id), 400, "VALIDATION_ERROR", "FAILED_TO_UNLINK_LAST_ACCOUNT"));
  EXPECT_EQ(auth_->Count(R"(SELECT COUNT(*) FROM "_cairn_auth_accounts" WHERE "user_id" = ?)",
                         {existing.user_id}),
            1);
}

class OAuthOidcUserInfoTest : public OAuthOidcTest {
 protected:
  bool ClaimsFromUserInfo() const override { return true; }
};

TEST_F(OAuthOidcUserInfoTest, AnIdTokenWithoutTheAddressIsCompletedFromUserInfo) {
  Browser browser;
  const auto done = SignIn(browser);
  ASSERT_EQ(done.status, 302);
  EXPECT_EQ(done.Header("location"), Home());
  const auto session = SessionOf(browser);
  ASSERT_TRUE(session.is_object());
  EXPECT_EQ(session.at("user").at("email").as_string(), kAliceEmail);
  EXPECT_EQ(session.at("user").at("name").as_string(), "Alice Example");
  EXPECT_TRUE(session.at("user").at("emailVerified").as_bool());
}

// --- Routes follow the config, and credentials are required --------------------------------

TEST(OAuthConfig, RoutesExistOnlyWithTheOAuthStrategy) {
  AuthApp auth;
  const Account account = auth.NewAccount("plain@example.com");
  EXPECT_EQ(auth.Client()
                .PostJson("/api/auth/sign-in/social", R"({"provider":"google"})",
                          {{"Origin", auth.Origin()}})
                .status,
            404);
  EXPECT_EQ(auth.GetAs(account.token, "/api/auth/list-accounts").status, 404);
  EXPECT_EQ(auth.Client().Get("/api/auth/callback/google?code=x&state=y").status, 404);
}

TEST(OAuthConfig, AProviderWithoutCredentialsIsAStartupErrorNamingBoth) {
  try {
    TestApp app(OAuthOptions("        - google\n", {{"GOOGLE_CLIENT_ID", "only-the-id"}}));
    FAIL() << "started without GOOGLE_CLIENT_SECRET";
  } catch (const std::runtime_error& error) {
    const std::string message = error.what();
    EXPECT_NE(message.find("GOOGLE_CLIENT_ID"), std::string::npos) << message;
    EXPECT_NE(message.find("GOOGLE_CLIENT_SECRET"), std::string::npos) << message;
  }
}

// --- A GitHub-style provider (no ID token) against a stand-in -----------------------------------

class OAuthGitHubTest : public ::testing::Test {
 protected:
  void SetUp() override {
    if (const std::string skip = SkipReason("."); !skip.empty()) GTEST_SKIP() << skip;
    const std::string users = R"([
      {"login":"octo","id":4242,"name":"Octo Cat","email":"octo@example.com","verified":true},
      {"login":"bob","id":7,"name":"Bob","email":"bob@example.com","verified":false},
      {"login":"carol","id":8,"name":"Carol","email":"carol@example.com","verified":true},
      {"login":"mallory","id":9,"name":"Mallory","email":"mallory@example.com","verified":true}])";
    standin_ = std::make_unique<NodeProcess>(
        "github_standin.js", std::vector<std::string>{kClientId, kClientSecret, users});
    const std::string base = "http://127.0.0.1:" + standin_->ReadLine();
    auth_ = std::make_unique<AuthApp>(OAuthOptions(
        "        - github\n",
        {{"GITHUB_CLIENT_ID", kClientId}, {"GITHUB_CLIENT_SECRET", kClientSecret}}, base));
  }

  std::string Origin() const { return auth_->Origin(); }

  // sign-in/social (or link-social with `cookie`) for the stand-in's user `login`, followed to
  // cairn's answer to the callback.
  HttpResult Flow(Browser& browser, const std::string& login, const std::string& cookie = "") {
    const std::string body = R"({"provider":"github","loginHint":")" + login +
                             R"(","callbackURL":"/app/home","errorCallbackURL":"/app/error"})";
    Headers headers{{"Origin", Origin()}};
    if (!cookie.empty()) headers.emplace_back("Cookie", cookie);
    const auto started = auth_->Client().PostJson(
        cookie.empty() ? "/api/auth/sign-in/social" : "/api/auth/link-social", body, headers);
    EXPECT_EQ(started.status, 200) << started.body;
    return browser.Go(std::string(started.Json().at("url").as_string()), Origin() + "/app/");
  }

  std::unique_ptr<NodeProcess> standin_;
  std::unique_ptr<AuthApp> auth_;
};

TEST_F(OAuthGitHubTest, SignsUpWithTheVerifiedPrimaryEmail) {
  Browser browser;
  const auto done = Flow(browser, "octo");
  ASSERT_EQ(done.status, 302) << done.body;
  EXPECT_EQ(done.Header("location"), "/app/home");
  const auto session =
      auth_->Client()
          .Get("/api/auth/get-session", {{"Cookie", browser.CookieHeader(Origin())}})
          .Json();
  ASSERT_TRUE(session.is_object());
  EXPECT_EQ(session.at("user").at("email").as_string(), "octo@example.com");
  EXPECT_EQ(session.at("user").at("name").as_string(), "Octo Cat");
  EXPECT_TRUE(session.at("user").at("emailVerified").as_bool());
  EXPECT_EQ(
      auth_->Scalar(
          R"(SELECT "account_id" FROM "_cairn_auth_accounts" WHERE "provider_id" = 'github')"),
      "4242");
  // The authorize URL went to the configured GitHub base, with PKCE and without a nonce.
  const std::string authorize = browser.visited().front();
  EXPECT_NE(authorize.find("/login/oauth/authorize?"), std::string::npos);
  EXPECT_EQ(QueryParam(authorize, "code_challenge_method"), "S256");
  EXPECT_TRUE(QueryParam(authorize, "nonce").empty());
}

TEST_F(OAuthGitHubTest, AnUnverifiedEmailDoesNotTakeOverAnExistingUser) {
  const Account bob = auth_->NewAccount("bob@example.com");
  Browser browser;
  const auto refused = Flow(browser, "bob");
  ASSERT_EQ(refused.status, 302);
  EXPECT_EQ(refused.Header("location"), "/app/error?error=account_not_linked");
  EXPECT_FALSE(refused.SetCookie(kSessionCookieName).has_value());
  EXPECT_EQ(
      auth_->Count(R"(SELECT COUNT(*) FROM "_cairn_auth_accounts" WHERE "provider_id" = 'github')"),
      0);
  EXPECT_EQ(auth_->Count(R"(SELECT COUNT(*) FROM "_cairn_auth_sessions" WHERE "user_id" = ?)",
                         {bob.user_id}),
            1);  // the one from signing up, none from GitHub
}

TEST_F(OAuthGitHubTest, LinkSocialAddsTheProviderToTheSignedInUser) {
  const Account carol = auth_->NewAccount("carol@example.com");
  Browser browser;
  const auto linked = Flow(browser, "carol", CookieHeader(carol.cookie_value).front().second);
  ASSERT_EQ(linked.status, 302) << linked.body;
  EXPECT_EQ(linked.Header("location"), "/app/home");
  // Linking signs no one in: the session stays the one that asked.
  EXPECT_FALSE(linked.SetCookie(kSessionCookieName).has_value());
  const auto accounts = auth_->GetAs(carol.token, "/api/auth/list-accounts").Json();
  ASSERT_EQ(accounts.as_array().size(), 2u);

  // Another GitHub user's address is not Carol's: refused.
  const Account dave = auth_->NewAccount("dave@example.com");
  Browser other;
  const auto refused = Flow(other, "mallory", CookieHeader(dave.cookie_value).front().second);
  EXPECT_EQ(refused.Header("location"), "/app/error?error=email_doesn%27t_match");
  // And Carol's GitHub account cannot be linked to Dave.
  Browser third;
  const auto taken = Flow(third, "carol", CookieHeader(dave.cookie_value).front().second);
  EXPECT_EQ(taken.Header("location"), "/app/error?error=account_already_linked_to_different_user");
  EXPECT_EQ(auth_->Count(R"(SELECT COUNT(*) FROM "_cairn_auth_accounts" WHERE "user_id" = ?)",
                         {dave.user_id}),
            1);
  // link-social needs a session.
  EXPECT_EQ(
      auth_->Client()
          .PostJson("/api/auth/link-social", R"({"provider":"github"})", {{"Origin", Origin()}})
          .status,
      401);
}

}  // namespace
}  // namespace cairn::test
