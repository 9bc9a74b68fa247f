// A batch is all or nothing even when the process dies in the middle of it (D34): the real
// `cairn` binary takes 1000-record batches from several clients, is killed with SIGKILL while
// they are being written, and after a restart on the same database every batch is either all
// there or not there at all, and every batch that was answered 201 is there.
#include <gtest/gtest.h>

#include <signal.h>

#include <atomic>
#include <chrono>
#include <fstream>
#include <thread>

#include <boost/json.hpp>

#include "e2e/server_process.hpp"
#include "support/http_client.hpp"
#include "support/test_database.hpp"

namespace cairn::test {
namespace {

using namespace std::chrono_literals;

constexpr int kClients = 3;
constexpr int kBatchSize = 1000;
constexpr const char* kConfig = R"(name: crash
version: 1.0.0
tables:
  - id: 1
    name: items
    fields:
      - { id: 1, name: name, type: single-line-text, required: true }
      - { id: 2, name: batch, type: integer }
auth:
  strategies:
    - type: emailAndPassword
)";

std::string SignIn(std::uint16_t port) {
  const auto result = HttpClient(port).PostJson(
      "/api/auth/sign-in/email", R"({"email":"crash@example.com","password":"crash password"})");
  if (result.status != 200) throw std::runtime_error("sign-in: " + result.body);
  return std::string(result.Json().at("token").as_string());
}

std::string Batch(int tag) {
  std::string body = R"({"records":[)";
  for (int i = 0; i < kBatchSize; ++i) {
    if (i > 0) body += ',';
    body += R"({"fields":{"name":"item )" + std::to_string(i) + R"(","batch":)" +
            std::to_string(tag) + "}}";
  }
  return body + "]}";
}

TEST(Crash, SigkillDuringBatchesLeavesWholeBatchesOnly) {
  auto database = TestDatabase::Create();
  ASSERT_TRUE(database.ok()) << database.error().message;
  (*database)->Close();
  const auto dir = (*database)->directory();
  std::ofstream(dir / "crash.yaml") << kConfig;
  std::vector<std::string> env{"PORT=0", "CAIRN_DATA_DIR=" + dir.string(),
                               "AUTH_ADMIN_EMAIL=crash@example.com",
                               "AUTH_ADMIN_PASSWORD=crash password", "RATE_LIMIT_DISABLED=true"};
  if (!(*database)->options().url.empty()) {
    env.push_back("DATABASE_URL=" + (*database)->options().url);
  }
  const std::vector<std::string> args{"serve", (dir / "crash.yaml").string()};

  std::atomic<int> acknowledged{0};
  std::atomic<int> next_tag{0};
  {
    ServerProcess server(CAIRN_BINARY, args, env, dir / "server.log");
    const std::string token = SignIn(server.port());
    std::vector<std::thread> clients;
    for (int c = 0; c < kClients; ++c) {
      clients.emplace_back([&] {
        try {
          HttpClient client(server.port());
          for (;;) {
            const auto result = client.Request(
                "POST", "/api/tables/items/records/batch", Batch(++next_tag),
                {{"Authorization", "Bearer " + token}, {"Content-Type", "application/json"}});
            if (result.status != 201) return;
            ++acknowledged;
          }
        } catch (const std::exception&) {
          // the server is gone
        }
      });
    }
    // Let a few batches commit, then kill the server while others are being written.
    for (int i = 0; i < 400 && acknowledged < 3; ++i) std::this_thread::sleep_for(25ms);
    std::this_thread::sleep_for(30ms);
    const int status = server.Stop(SIGKILL);
    for (auto& client : clients) client.join();
    ASSERT_TRUE(WIFSIGNALED(status)) << server.Log();
  }
  ASSERT_GE(acknowledged.load(), 3);

  ServerProcess restarted(CAIRN_BINARY, args, env, dir / "server.log");
  const std::string token = SignIn(restarted.port());
  HttpClient client(restarted.port());
  const auto list =
      client.Get("/api/tables/items/records?limit=1", {{"Authorization", "Bearer " + token}});
  ASSERT_EQ(list.status, 200) << list.body;
  const std::int64_t total = list.Json().at("pagination").at("total").as_int64();
  EXPECT_EQ(total % kBatchSize, 0) << "a batch was written in part: " << total << " records";
  EXPECT_GE(total, static_cast<std::int64_t>(acknowledged) * kBatchSize);
  // Each batch tag present has all of its records.
  std::map<std::int64_t, int> per_batch;
  for (int page = 1;; ++page) {
    const auto chunk =
        client.Get("/api/tables/items/records?limit=1000&page=" + std::to_string(page),
                   {{"Authorization", "Bearer " + token}});
    ASSERT_EQ(chunk.status, 200);
    const auto body = chunk.Json();
    const auto& records = body.at("records").as_array();
    for (const auto& record : records) ++per_batch[record.at("fields").at("batch").as_int64()];
    if (records.size() < 1000) break;
  }
  for (const auto& [tag, count] : per_batch) EXPECT_EQ(count, kBatchSize) << "batch " << tag;
}

}  // namespace
}  // namespace cairn::test
