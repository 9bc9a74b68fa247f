// Helpers for the /api/auth end-to-end tests: an application with an `auth` section, accounts
// made over HTTP, direct looks into the auth tables, and the outbox the mail goes to.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <gtest/gtest.h>
#include <boost/json.hpp>

#include "e2e/test_app.hpp"
#include "support/mail_reader.hpp"

namespace cairn::test {

// The secret of Better Auth's cookie test vector (CONTRACT §2.2), so signatures can be checked.
inline constexpr const char* kTestAuthSecret = "0123456789abcdef0123456789abcdef-test-secret";
inline constexpr const char* kSessionCookieName = "better-auth.session_token";

// A config with the emailAndPassword strategy. `strategy_extra` and `auth_extra` are YAML lines
// (`key: value`, one per line, no indentation) added to the strategy and to `auth`.
std::string AuthConfigYaml(const std::string& strategy_extra = "",
                           const std::string& auth_extra = "");

// One signed-in session as the client sees it.
struct Account {
  std::string user_id;
  std::string email;
  std::string password;
  std::string token;         // the raw session token (`token` in the body)
  std::string signed_value;  // `set-auth-token`: <token>.<base64 signature>
  std::string cookie_value;  // the cookie as set: signed_value URL-encoded
};

class AuthApp {
 public:
  explicit AuthApp(const std::string& strategy_extra = "", const std::string& auth_extra = "");
  // Any options, for example AuthAppOptions() with the first admin in the settings.
  explicit AuthApp(TestAppOptions options);

  TestApp& app() { return app_; }
  HttpClient Client() const { return app_.Client(); }
  std::string Origin() const;  // http://127.0.0.1:<port>, the only trusted origin

  HttpResult SignUp(const std::string& name, const std::string& email, const std::string& password,
                    const Headers& headers = {});
  HttpResult SignIn(const std::string& email, const std::string& password,
                    const std::string& extra_json = "", const Headers& headers = {});
  // Signs up (must succeed with a session) and returns the account.
  Account NewAccount(const std::string& email, const std::string& password = "correct horse 1",
                     const std::string& name = "Test User");
  // Signs in again (must succeed): another session of the same user.
  Account SignInOk(const std::string& email, const std::string& password);

  // Requests authenticated with a Bearer token or with the session cookie.
  HttpResult GetAs(const std::string& token, const std::string& target);
  HttpResult PostAs(const std::string& token, const std::string& target,
                    const std::string& json = "{}");
  HttpResult GetWithCookie(const std::string& cookie_value, const std::string& target);
  HttpResult PostWithCookie(const std::string& cookie_value, const std::string& target,
                            const std::string& json = "{}");

  // The auth tables, read and written directly (cells as text, null as nullopt).
  std::vector<std::vector<std::optional<std::string>>> Query(
      const std::string& sql, std::initializer_list<db::Value> params = {});
  std::optional<std::string> Scalar(const std::string& sql,
                                    std::initializer_list<db::Value> params = {});
  std::int64_t Count(const std::string& sql, std::initializer_list<db::Value> params = {});
  std::int64_t Execute(const std::string& sql, std::initializer_list<db::Value> params = {});

  // Mail in <data_dir>/outbox, oldest first.
  std::size_t OutboxSize();
  ParsedMail LastMail();

 private:
  TestApp app_;
};

TestAppOptions AuthAppOptions(const std::string& strategy_extra = "",
                              const std::string& auth_extra = "");
// Options for a whole config of the test's own (tables, permissions, roles; it needs an `auth`
// section), with the test secret and, when `admin_email` is set, a first admin from the settings.
TestAppOptions AuthAppOptionsWithConfig(const std::string& config_yaml,
                                        const std::string& admin_email = "",
                                        const std::string& admin_password = "");

// The first http(s) URL in a mail's text.
std::string FirstLink(const std::string& text);
// The path and query of an absolute URL (what the test client sends as the target).
std::string TargetOf(const std::string& url);
// A query parameter of a URL or target, percent-decoded.
std::string QueryParam(const std::string& url, const std::string& name);

Headers BearerHeader(const std::string& token);
Headers CookieHeader(const std::string& cookie_value);

// The Better Auth signature of `token` under kTestAuthSecret: base64(HMAC-SHA256).
std::string SignatureOf(const std::string& token);

// Asserts cairn's envelope: status, `code` and Better Auth's reason in `error`.
::testing::AssertionResult IsAuthError(const HttpResult& result, int status,
                                       const std::string& code, const std::string& reason);

// Direct writes to the auth tables bypass the server, as a write by another process does: on
// SQLite, a session the server has resolved shows them once its cached copy has lapsed
// (kSessionCacheTtlMillis). PostgreSQL's nodes cache nothing, so this returns at once there.
void WaitOutSessionCache();

std::int64_t NowMillis();
std::int64_t ToInt(const std::optional<std::string>& cell);

}  // namespace cairn::test
