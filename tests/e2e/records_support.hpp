// An application with tables and auth for the records tests: an admin from the settings, and
// members and viewers made through the admin API, each with a Bearer token.
#pragma once

#include <functional>
#include <string>

#include <boost/json.hpp>

#include "e2e/test_app.hpp"

namespace cairn::test {

// The password of the admin and of every user NewUser makes.
inline constexpr const char* kTestPassword = "correct horse 1";

struct Caller {
  std::string user_id;
  std::string token;  // empty: no session
};

class RecordsApp {
 public:
  // `tables_yaml`: the `tables:` section (and anything else at the root but `auth`). `files`:
  // file storage for attachment fields in place of the storage module's (must outlive the app).
  explicit RecordsApp(const std::string& tables_yaml, const std::string& auth_extra = "",
                      const records::AttachmentFiles* files = nullptr);
  // With the options adjusted before start (settings, clocks).
  RecordsApp(const std::string& tables_yaml, const std::string& auth_extra,
             const std::function<void(TestAppOptions&)>& tune);

  TestApp& app() { return app_; }
  const Caller& admin() const { return admin_; }
  // A new user with `role`, signed in.
  Caller NewUser(const std::string& role);

  HttpResult Send(const Caller& caller, const std::string& method, const std::string& target,
                  const std::string& body = {});
  // The body as JSON (null when it is not JSON).
  static boost::json::value Json(const HttpResult& result) { return result.Json(); }

 private:
  TestApp app_;
  Caller admin_;
  int users_ = 0;
};

// The envelope code of an error answer, or "" when the body is not an error envelope.
std::string CodeOf(const HttpResult& result);
// `errors[].field` of an error answer, in order.
std::vector<std::string> ErrorFields(const HttpResult& result);

}  // namespace cairn::test
