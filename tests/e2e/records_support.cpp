#include "e2e/records_support.hpp"

#include <stdexcept>

namespace cairn::test {
namespace {

constexpr const char* kAdminEmail = "admin@example.com";

TestAppOptions Options(const std::string& tables_yaml, const std::string& auth_extra,
                       const records::AttachmentFiles* files) {
  TestAppOptions options;
  options.attachment_files = files;
  options.config_yaml = "name: records-app\nversion: 1.0.0\n" + tables_yaml +
                        "\nauth:\n  strategies:\n    - type: emailAndPassword\n" + auth_extra;
  options.tune_settings = [](app::Settings& settings) {
    settings.admin_email = kAdminEmail;
    settings.admin_password = kTestPassword;
  };
  return options;
}

Caller SignIn(TestApp& app, const std::string& email) {
  const auto result =
      app.Client().PostJson("/api/auth/sign-in/email",
                            R"({"email":")" + email + R"(","password":")" + kTestPassword + "\"}");
  const auto json = result.Json();
  if (result.status != 200 || !json.is_object()) {
    throw std::runtime_error("sign-in failed: " + result.body);
  }
  return {std::string(json.at("user").at("id").as_string()),
          std::string(json.at("token").as_string())};
}

}  // namespace

RecordsApp::RecordsApp(const std::string& tables_yaml, const std::string& auth_extra,
                       const std::function<void(TestAppOptions&)>& tune)
    : app_([&] {
        TestAppOptions options = Options(tables_yaml, auth_extra, nullptr);
        if (tune) tune(options);
        return options;
      }()) {
  admin_ = SignIn(app_, kAdminEmail);
}

RecordsApp::RecordsApp(const std::string& tables_yaml, const std::string& auth_extra,
                       const records::AttachmentFiles* files)
    : app_(Options(tables_yaml, auth_extra, files)) {
  admin_ = SignIn(app_, kAdminEmail);
}

Caller RecordsApp::NewUser(const std::string& role) {
  const std::string email = role + std::to_string(++users_) + "@example.com";
  const auto created =
      Send(admin_, "POST", "/api/auth/admin/create-user",
           R"({"email":")" + email + R"(","password":")" + kTestPassword + R"(","name":"User )" +
               std::to_string(users_) + R"(","role":")" + role + "\"}");
  if (created.status != 200) throw std::runtime_error("create-user failed: " + created.body);
  return SignIn(app_, email);
}

HttpResult RecordsApp::Send(const Caller& caller, const std::string& method,
                            const std::string& target, const std::string& body) {
  Headers headers;
  if (!caller.token.empty()) headers.emplace_back("Authorization", "Bearer " + caller.token);
  if (!body.empty()) headers.emplace_back("Content-Type", "application/json");
  return app_.Client().Request(method, target, body, headers);
}

std::string CodeOf(const HttpResult& result) {
  const auto json = result.Json();
  if (!json.is_object() || !json.as_object().contains("code")) return {};
  return std::string(json.at("code").as_string());
}

std::vector<std::string> ErrorFields(const HttpResult& result) {
  std::vector<std::string> fields;
  const auto json = result.Json();
  if (!json.is_object() || !json.as_object().contains("errors")) return fields;
  for (const auto& error : json.at("errors").as_array()) {
    fields.emplace_back(error.at("field").as_string());
  }
  return fields;
}

}  // namespace cairn::test
