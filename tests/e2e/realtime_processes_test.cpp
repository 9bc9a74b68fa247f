// Realtime across nodes (D53) with two real `cairn` processes on one PostgreSQL database, each
// its own data directory, pool and LISTEN connection: a record written through one process
// reaches a subscriber connected to the other, and the other way round. SQLite is one process's
// database: nothing to test there.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "e2e/realtime_support.hpp"
#include "e2e/server_process.hpp"
#include "support/http_client.hpp"
#include "support/test_database.hpp"

namespace cairn::test {
namespace {

namespace json = boost::json;

constexpr const char* kConfig = R"(name: realtime-nodes
version: 1.0.0
auth:
  strategies:
    - type: emailAndPassword
tables:
  - id: 1
    name: people
    fields:
      - { id: 1, name: title, type: single-line-text }
)";
constexpr const char* kAdminEmail = "nodes@example.com";
constexpr const char* kAdminPassword = "nodes password 1";

class Node {
 public:
  Node(const std::filesystem::path& dir, const std::string& database_url) {
    std::filesystem::create_directories(dir);
    std::ofstream(dir / "app.yaml") << kConfig;
    server_ = std::make_unique<ServerProcess>(
        CAIRN_BINARY, std::vector<std::string>{"serve", (dir / "app.yaml").string()},
        std::vector<std::string>{
            "PORT=0", "CAIRN_DATA_DIR=" + dir.string(), "DATABASE_URL=" + database_url,
            "AUTH_ADMIN_EMAIL=" + std::string(kAdminEmail),
            "AUTH_ADMIN_PASSWORD=" + std::string(kAdminPassword), "RATE_LIMIT_DISABLED=true"},
        dir / "server.log");
    const auto signed_in = HttpClient(port()).PostJson(
        "/api/auth/sign-in/email",
        std::string(R"({"email":")") + kAdminEmail + R"(","password":")" + kAdminPassword + "\"}");
    if (signed_in.status != 200) throw std::runtime_error("sign-in: " + signed_in.body);
    token_ = std::string(signed_in.Json().at("token").as_string());
  }

  std::uint16_t port() const { return server_->port(); }
  std::string Log() const { return server_->Log(); }

  std::unique_ptr<WsClient> Subscribe() const {
    auto client =
        std::make_unique<WsClient>(port(), "/api/tables/people/subscribe", Bearer(token_));
    client->ExpectSubscribed("people");
    return client;
  }

  std::string Create(const std::string& title) const {
    const auto created = HttpClient(port()).PostJson("/api/tables/people/records",
                                                     R"({"fields":{"title":")" + title + "\"}}",
                                                     {{"Authorization", "Bearer " + token_}});
    if (created.status != 201) throw std::runtime_error("create: " + created.body);
    return std::string(created.Json().at("id").as_string());
  }

 private:
  std::unique_ptr<ServerProcess> server_;
  std::string token_;
};

TEST(RealtimeProcessesTest, AWriteThroughOneProcessReachesSubscribersOfTheOther) {
  if (TestBackend() != db::Backend::kPostgres) GTEST_SKIP() << "SQLite has one process";
  if (const std::string missing = NodeProcess::Missing("ws"); !missing.empty()) {
    GTEST_SKIP() << missing;
  }
  auto database = TestDatabase::Create();
  ASSERT_TRUE(database.ok()) << database.error().message;
  (*database)->Close();
  const std::filesystem::path dir = (*database)->directory();
  const std::string url = (*database)->options().url;
  // One after the other: the first publishes the schema, the second finds it.
  const Node first(dir / "first", url);
  const Node second(dir / "second", url);
  auto on_first = first.Subscribe();
  auto on_second = second.Subscribe();

  const std::string from_first = first.Create("written on the first");
  const std::string from_second = second.Create("written on the second");
  // Both, in the order the nodes' notifications reached PostgreSQL (each node notifies after
  // its commit, so the two may come either way).
  for (auto* feed : {on_first.get(), on_second.get()}) {
    std::map<std::string, std::string> titles;
    for (int i = 0; i < 2; ++i) {
      const json::object message = feed->NextMessage();
      EXPECT_EQ(message.at("event"), "insert");
      titles[std::string(message.at("recordId").as_string())] =
          std::string(message.at("record").at("fields").at("title").as_string());
    }
    EXPECT_EQ(titles, (std::map<std::string, std::string>{{from_first, "written on the first"},
                                                          {from_second, "written on the second"}}))
        << first.Log() << second.Log();
  }
}

}  // namespace
}  // namespace cairn::test
