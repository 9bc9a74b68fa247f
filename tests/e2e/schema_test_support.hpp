// What the schema-editing e2e suites share (schema_edit, schema_convert, schema_live_services):
// an app with its admin signed in, and requests as that admin (or another bearer) to the schema
// routes under kSchemaBase.
#pragma once

#include <string>
#include <utility>

#include <gtest/gtest.h>
#include <boost/json.hpp>

#include "e2e/auth_test_support.hpp"

namespace cairn::test {

inline const std::string kSchemaBase = "/api/admin/schema";

class SchemaAdminApp {
 public:
  SchemaAdminApp(TestAppOptions options, const char* admin_email, const char* admin_password)
      : auth_(std::move(options)) {
    admin_ = auth_.SignInOk(admin_email, admin_password).token;
  }

  AuthApp& auth() { return auth_; }
  TestApp& app() { return auth_.app(); }
  const std::string& admin() const { return admin_; }

  // `token`: "admin" (the signed-in admin), another bearer token, or empty for none.
  HttpResult Send(const std::string& method, const std::string& target,
                  const std::string& body = {}, const std::string& token = "admin",
                  Headers headers = {}) {
    const std::string& bearer = token == "admin" ? admin_ : token;
    if (!bearer.empty()) headers.emplace_back("Authorization", "Bearer " + bearer);
    if (!body.empty()) headers.emplace_back("Content-Type", "application/json");
    return auth_.Client().Request(method, target, body, headers);
  }

  // The JSON of an answer that must be 200 (a failed expectation otherwise).
  boost::json::value Ok(const std::string& method, const std::string& target,
                        const std::string& body = {}) {
    const HttpResult result = Send(method, target, body);
    EXPECT_EQ(result.status, 200) << method << " " << target << ": " << result.body;
    return result.Json();
  }

  // Creates a record of `table` as the admin; its id ("" after a failed expectation).
  std::string CreateRecord(const std::string& table, const std::string& fields_json) {
    const HttpResult created =
        Send("POST", "/api/tables/" + table + "/records", R"({"fields":)" + fields_json + "}");
    EXPECT_EQ(created.status, 201) << created.body;
    const boost::json::value body = created.Json();
    if (!body.is_object() || !body.as_object().contains("id")) return {};
    const boost::json::value& id = body.at("id");
    return id.is_string() ? std::string(id.as_string()) : boost::json::serialize(id);
  }

 private:
  AuthApp auth_;
  std::string admin_;
};

}  // namespace cairn::test
