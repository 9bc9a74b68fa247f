#include "e2e/auth_test_support.hpp"

#include <chrono>
#include <sstream>
#include <stdexcept>
#include <thread>

#include "auth/limits.hpp"
#include "common/crypto.hpp"
#include "support/test_database.hpp"

namespace cairn::test {
namespace {

std::string Indented(const std::string& lines, const std::string& indent) {
  std::string out;
  std::istringstream in(lines);
  std::string line;
  while (std::getline(in, line)) {
    if (!line.empty()) out += indent + line + "\n";
  }
  return out;
}

std::string JsonString(const std::string& text) {
  return boost::json::serialize(boost::json::value(text));
}

int HexValue(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

std::string PercentDecode(const std::string& text) {
  std::string out;
  for (std::size_t i = 0; i < text.size(); ++i) {
    if (text[i] == '%' && i + 2 < text.size() && HexValue(text[i + 1]) >= 0 &&
        HexValue(text[i + 2]) >= 0) {
      out.push_back(static_cast<char>(HexValue(text[i + 1]) * 16 + HexValue(text[i + 2])));
      i += 2;
    } else if (text[i] == '+') {
      out.push_back(' ');
    } else {
      out.push_back(text[i]);
    }
  }
  return out;
}

Account AccountFrom(const HttpResult& result, const std::string& email,
                    const std::string& password) {
  if (result.status != 200) {
    throw std::runtime_error("sign-up/sign-in failed: " + std::to_string(result.status) + " " +
                             result.body);
  }
  const auto body = result.Json();
  Account account;
  account.email = email;
  account.password = password;
  account.user_id = std::string(body.at("user").at("id").as_string());
  account.token = std::string(body.at("token").as_string());
  account.signed_value = result.Header("set-auth-token");
  const auto cookie = result.SetCookie(kSessionCookieName);
  if (!cookie) throw std::runtime_error("no session cookie: " + result.body);
  const std::size_t start = std::string(kSessionCookieName).size() + 1;
  account.cookie_value = cookie->substr(start, cookie->find(';') - start);
  return account;
}

}  // namespace

std::string AuthConfigYaml(const std::string& strategy_extra, const std::string& auth_extra) {
  std::string yaml = kMinimalConfig;
  yaml += "auth:\n  strategies:\n    - type: emailAndPassword\n";
  yaml += Indented(strategy_extra, "      ");
  yaml += Indented(auth_extra, "  ");
  return yaml;
}

TestAppOptions AuthAppOptions(const std::string& strategy_extra, const std::string& auth_extra) {
  TestAppOptions options;
  options.config_yaml = AuthConfigYaml(strategy_extra, auth_extra);
  options.tune_settings = [](app::Settings& settings) { settings.auth_secret = kTestAuthSecret; };
  return options;
}

TestAppOptions AuthAppOptionsWithConfig(const std::string& config_yaml,
                                        const std::string& admin_email,
                                        const std::string& admin_password) {
  TestAppOptions options;
  options.config_yaml = config_yaml;
  options.tune_settings = [admin_email, admin_password](app::Settings& settings) {
    settings.auth_secret = kTestAuthSecret;
    if (!admin_email.empty()) {
      settings.admin_email = admin_email;
      settings.admin_password = admin_password;
    }
  };
  return options;
}

AuthApp::AuthApp(const std::string& strategy_extra, const std::string& auth_extra)
    : app_(AuthAppOptions(strategy_extra, auth_extra)) {}

AuthApp::AuthApp(TestAppOptions options) : app_(std::move(options)) {}

std::string AuthApp::Origin() const {
  return "http://127.0.0.1:" + std::to_string(app_.port());
}

HttpResult AuthApp::SignUp(const std::string& name, const std::string& email,
                           const std::string& password, const Headers& headers) {
  return Client().PostJson("/api/auth/sign-up/email",
                           R"({"name":)" + JsonString(name) + R"(,"email":)" + JsonString(email) +
                               R"(,"password":)" + JsonString(password) + "}",
                           headers);
}

HttpResult AuthApp::SignIn(const std::string& email, const std::string& password,
                           const std::string& extra_json, const Headers& headers) {
  std::string body = R"({"email":)" + JsonString(email) + R"(,"password":)" + JsonString(password);
  if (!extra_json.empty()) body += "," + extra_json;
  body += "}";
  return Client().PostJson("/api/auth/sign-in/email", body, headers);
}

Account AuthApp::NewAccount(const std::string& email, const std::string& password,
                            const std::string& name) {
  return AccountFrom(SignUp(name, email, password), email, password);
}

Account AuthApp::SignInOk(const std::string& email, const std::string& password) {
  return AccountFrom(SignIn(email, password), email, password);
}

HttpResult AuthApp::GetAs(const std::string& token, const std::string& target) {
  return Client().Get(target, BearerHeader(token));
}

HttpResult AuthApp::PostAs(const std::string& token, const std::string& target,
                           const std::string& json) {
  return Client().PostJson(target, json, BearerHeader(token));
}

HttpResult AuthApp::GetWithCookie(const std::string& cookie_value, const std::string& target) {
  return Client().Get(target, CookieHeader(cookie_value));
}

HttpResult AuthApp::PostWithCookie(const std::string& cookie_value, const std::string& target,
                                   const std::string& json) {
  Headers headers = CookieHeader(cookie_value);
  headers.emplace_back("Origin", Origin());
  return Client().PostJson(target, json, headers);
}

std::vector<std::vector<std::optional<std::string>>> AuthApp::Query(
    const std::string& sql, std::initializer_list<db::Value> params) {
  app_.app().WaitForBackgroundWork();  // reads see the work done after answers
  std::vector<std::vector<std::optional<std::string>>> rows;
  Status status = app_.app().database().Transaction(
      db::Access::kRead, [&](db::Connection& connection) -> Status {
        CAIRN_ASSIGN_OR_RETURN(db::Rows result, connection.Query(sql, params));
        rows = std::move(result.rows);
        return {};
      });
  if (!status.ok()) throw std::runtime_error("query failed: " + status.error().detail + " " + sql);
  return rows;
}

std::optional<std::string> AuthApp::Scalar(const std::string& sql,
                                           std::initializer_list<db::Value> params) {
  auto rows = Query(sql, params);
  if (rows.empty()) throw std::runtime_error("no row: " + sql);
  return rows.front().front();
}

std::int64_t AuthApp::Count(const std::string& sql, std::initializer_list<db::Value> params) {
  return ToInt(Scalar(sql, params));
}

std::int64_t AuthApp::Execute(const std::string& sql, std::initializer_list<db::Value> params) {
  std::int64_t changed = 0;
  Status status = app_.app().database().Transaction(
      db::Access::kWrite, [&](db::Connection& connection) -> Status {
        CAIRN_ASSIGN_OR_RETURN(changed, connection.Execute(sql, params));
        return {};
      });
  if (!status.ok()) throw std::runtime_error("statement failed: " + status.error().detail);
  return changed;
}

std::size_t AuthApp::OutboxSize() {
  app_.app().WaitForBackgroundWork();  // mail sent after the answer
  const auto dir = app_.data_dir() / "outbox";
  if (!std::filesystem::exists(dir)) return 0;
  return ListOutbox(dir).size();
}

ParsedMail AuthApp::LastMail() {
  app_.app().WaitForBackgroundWork();
  const auto files = ListOutbox(app_.data_dir() / "outbox");
  if (files.empty()) throw std::runtime_error("the outbox is empty");
  return ParseMail(ReadFileBytes(files.back()));
}

std::string FirstLink(const std::string& text) {
  const std::size_t start = text.find("http");
  if (start == std::string::npos) throw std::runtime_error("no link in: " + text);
  std::size_t end = start;
  while (end < text.size() && !std::isspace(static_cast<unsigned char>(text[end]))) ++end;
  return text.substr(start, end - start);
}

std::string TargetOf(const std::string& url) {
  const std::size_t scheme = url.find("://");
  if (scheme == std::string::npos) return url;
  const std::size_t path = url.find('/', scheme + 3);
  return path == std::string::npos ? "/" : url.substr(path);
}

std::string QueryParam(const std::string& url, const std::string& name) {
  const std::size_t question = url.find('?');
  if (question == std::string::npos) return {};
  std::string query = url.substr(question + 1);
  query = query.substr(0, query.find('#'));
  std::istringstream in(query);
  std::string pair;
  while (std::getline(in, pair, '&')) {
    const std::size_t equals = pair.find('=');
    if (pair.substr(0, equals) == name) {
      return equals == std::string::npos ? std::string() : PercentDecode(pair.substr(equals + 1));
    }
  }
  return {};
}

Headers BearerHeader(const std::string& token) {
  return {{"Authorization", "Bearer " + token}};
}

Headers CookieHeader(const std::string& cookie_value) {
  return {{"Cookie", std::string(kSessionCookieName) + "=" + cookie_value}};
}

std::string SignatureOf(const std::string& token) {
  return crypto::Base64(crypto::HmacSha256(kTestAuthSecret, token));
}

::testing::AssertionResult IsAuthError(const HttpResult& result, int status,
                                       const std::string& code, const std::string& reason) {
  const auto body = result.Json();
  auto failure = [&](const std::string& what) {
    return ::testing::AssertionFailure()
           << what << " (status " << result.status << ", body " << result.body << ")";
  };
  if (result.status != status) return failure("expected status " + std::to_string(status));
  if (!body.is_object()) return failure("the body is not an object");
  const auto& object = body.as_object();
  if (!object.contains("success") || object.at("success") != false) {
    return failure("success is not false");
  }
  if (!object.contains("message") || !object.at("message").is_string() ||
      object.at("message").as_string().empty()) {
    return failure("no message");
  }
  if (!object.contains("code") || object.at("code") != boost::json::value(code)) {
    return failure("expected code " + code);
  }
  if (reason.empty()) return ::testing::AssertionSuccess();
  if (!object.contains("error") || object.at("error") != boost::json::value(reason)) {
    return failure("expected error " + reason);
  }
  return ::testing::AssertionSuccess();
}

void WaitOutSessionCache() {
  if (IsPostgres()) return;
  std::this_thread::sleep_for(std::chrono::milliseconds(auth::kSessionCacheTtlMillis + 100));
}

std::int64_t NowMillis() {
  return std::chrono::duration_cast<std::chrono::milliseconds>(
             std::chrono::system_clock::now().time_since_epoch())
      .count();
}

std::int64_t ToInt(const std::optional<std::string>& cell) {
  if (!cell) throw std::runtime_error("the cell is null");
  return std::stoll(*cell);
}

}  // namespace cairn::test
