// The official MCP TypeScript SDK client (npm @modelcontextprotocol/sdk, tests/node/
// mcp_client.mjs) drives the real `cairn` binary over POST /mcp with an admin's Bearer token, on
// the backend of this run: connect, list the tools, and run the record tools of one table. The
// test checks what the client got against what the REST routes read from the database.
#include <gtest/gtest.h>

#include <fstream>

#include <boost/json.hpp>

#include "e2e/server_process.hpp"
#include "support/http_client.hpp"
#include "support/node_process.hpp"
#include "support/test_database.hpp"

namespace cairn::test {
namespace {

namespace json = boost::json;

constexpr const char* kConfig = R"(name: "@cairn/sdk.app"
version: 2.0.0
tables:
  - id: 1
    name: Notes
    fields:
      - { id: 1, name: title, type: single-line-text, required: true }
      - { id: 2, name: amount, type: integer }
auth:
  strategies:
    - type: emailAndPassword
)";
constexpr const char* kAdminEmail = "mcp-admin@example.com";
constexpr const char* kAdminPassword = "mcp admin password";

std::string SignIn(std::uint16_t port) {
  HttpClient client(port);
  const auto result = client.PostJson(
      "/api/auth/sign-in/email",
      json::serialize(json::object{{"email", kAdminEmail}, {"password", kAdminPassword}}));
  if (result.status != 200) throw std::runtime_error("sign-in failed: " + result.body);
  return std::string(result.Json().at("token").as_string());
}

TEST(McpSdk, OfficialClientDrivesTheRealBinary) {
  ASSERT_EQ(NodeProcess::Missing("@modelcontextprotocol/sdk"), "");
  auto database = TestDatabase::Create();
  ASSERT_TRUE(database.ok()) << database.error().message;
  (*database)->Close();
  const auto dir = (*database)->directory();
  std::ofstream(dir / "app.yaml") << kConfig;
  std::vector<std::string> env{
      "PORT=0", "CAIRN_DATA_DIR=" + dir.string(), std::string("AUTH_ADMIN_EMAIL=") + kAdminEmail,
      std::string("AUTH_ADMIN_PASSWORD=") + kAdminPassword, "RATE_LIMIT_DISABLED=true"};
  if (!(*database)->options().url.empty()) {
    env.push_back("DATABASE_URL=" + (*database)->options().url);
  }
  ServerProcess server(CAIRN_BINARY, {"serve", (dir / "app.yaml").string()}, env,
                       dir / "server.log");
  const std::string token = SignIn(server.port());

  NodeProcess client(
      "mcp_client.mjs",
      {"http://127.0.0.1:" + std::to_string(server.port()) + "/mcp", token, "cairn_sdk_app_notes"});
  const std::string line = client.ReadLine(90'000);
  const json::value out = json::parse(line);
  ASSERT_FALSE(out.as_object().contains("error")) << line << "\n" << server.Log();

  EXPECT_EQ(out.at("protocolVersion"), "2025-06-18");
  EXPECT_EQ(out.at("server").at("name"), "@cairn/sdk.app");
  EXPECT_EQ(out.at("server").at("version"), "2.0.0");
  EXPECT_TRUE(out.at("sessionId").is_null());  // no MCP sessions
  std::set<std::string> tools;
  for (const auto& name : out.at("tools").as_array()) tools.insert(std::string(name.as_string()));
  EXPECT_EQ(tools,
            (std::set<std::string>{"cairn_sdk_app_notes_list", "cairn_sdk_app_notes_get",
                                   "cairn_sdk_app_notes_create", "cairn_sdk_app_notes_update",
                                   "cairn_sdk_app_notes_delete"}));
  EXPECT_EQ(out.at("createSchema")
                .at("properties")
                .at("body")
                .at("properties")
                .at("fields")
                .at("required"),
            json::array{"title"});

  const auto rest = [&](const std::string& target) {
    HttpClient http(server.port());
    return http.Get(target, {{"Authorization", "Bearer " + token}});
  };
  const json::value& created = out.at("created");
  ASSERT_EQ(created.at("isError"), false) << line;
  const std::string id(created.at("body").at("id").as_string());
  EXPECT_EQ(created.at("structured"), created.at("body"));
  EXPECT_EQ(created.at("body").at("fields").at("amount"), 7);
  EXPECT_EQ(out.at("listed").at("body").at("pagination").at("total"), 1);
  EXPECT_EQ(out.at("listed").at("body").at("records").at(0).at("id"), json::value(id));
  EXPECT_EQ(out.at("got").at("body"), created.at("body"));
  EXPECT_EQ(out.at("updated").at("isError"), false);
  EXPECT_EQ(out.at("updated").at("body").at("fields").at("amount"), 9);
  EXPECT_EQ(out.at("deleted").at("isError"), false);
  EXPECT_EQ(out.at("gone").at("isError"), true);
  EXPECT_EQ(out.at("gone").at("body").at("code"), "NOT_FOUND");
  EXPECT_EQ(out.at("unknownTool"), -32602);

  // The database holds what the tools wrote: the deleted record in the trash, the other live.
  const auto live = rest("/api/tables/notes/records");
  ASSERT_EQ(live.status, 200) << live.body;
  EXPECT_EQ(live.Json().at("pagination").at("total"), 1);
  EXPECT_EQ(live.Json().at("records").at(0), out.at("createdKeep").at("body"));
  const auto trash = rest("/api/tables/notes/trash");
  ASSERT_EQ(trash.status, 200) << trash.body;
  EXPECT_EQ(trash.Json().at("records").at(0).at("id"), json::value(id));
  EXPECT_EQ(trash.Json().at("records").at(0).at("fields").at("amount"), 9);
}

}  // namespace
}  // namespace cairn::test
