// The API explorer (D52) in a real headless Chromium (tests/node/openapi_explorer.mjs): with the
// admin's session cookie, /api/scalar renders both documents from cairn alone (the embedded
// Scalar bundle, nothing from another origin, no CSP violation), lists the records operations
// of a configured table, and a "try it" request made from the page succeeds. The screenshots
// are kept in the build directory (openapi-explorer*.png).
#include <filesystem>

#include <gtest/gtest.h>

#include "e2e/auth_test_support.hpp"
#include "support/node_process.hpp"

namespace cairn::test {
namespace {

constexpr const char* kAdminEmail = "admin@example.com";
constexpr const char* kAdminPassword = "admin password 1";

constexpr const char* kConfig = R"(
name: openapi-app
version: 2.1.0
tables:
  - name: Tasks
    fields:
      - name: title
        type: single-line-text
        required: true
auth:
  strategies:
    - type: emailAndPassword
)";

TEST(OpenApiExplorer, RendersBothDocumentsAndTriesARequestInChromium) {
  const std::string missing = NodeProcess::Missing("puppeteer-core");
  if (missing.starts_with("node is not installed")) GTEST_SKIP() << missing;
  ASSERT_EQ(missing, "") << "run: npm ci --prefix tests/node";
  const char* chromium = std::getenv("CHROMIUM");
  ASSERT_TRUE(std::filesystem::exists(chromium != nullptr ? chromium : "/usr/bin/chromium"))
      << "install Debian's chromium (scripts/install-deps)";

  AuthApp app(AuthAppOptionsWithConfig(kConfig, kAdminEmail, kAdminPassword));
  const Account admin = app.SignInOk(kAdminEmail, kAdminPassword);
  ASSERT_EQ(
      app.PostAs(admin.token, "/api/tables/tasks/records", R"({"fields":{"title":"Try"}})").status,
      201);
  const char* backend = std::getenv("CAIRN_TEST_BACKEND");
  const std::filesystem::path screenshot =
      std::filesystem::path(CAIRN_TEST_ARTIFACTS_DIR) /
      ("openapi-explorer-" + std::string(backend != nullptr ? backend : "sqlite") + ".png");
  std::filesystem::remove(screenshot);
  NodeProcess explorer("openapi_explorer.mjs",
                       {app.Origin(), admin.cookie_value, "Tasks", screenshot.string()});
  EXPECT_EQ(explorer.ReadLine(180'000), "ok");
  EXPECT_TRUE(std::filesystem::exists(screenshot));
}

}  // namespace
}  // namespace cairn::test
