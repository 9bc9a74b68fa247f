// Realtime across nodes (D53) on PostgreSQL: two application instances (each its own server,
// pool and LISTEN connection) on one database, where a change committed on one reaches
// subscribers on both, payloads past NOTIFY's limit included; and a PostgreSQL restart during a
// subscription (a throwaway cluster of its own), after which the subscriber is told to resync
// and changes flow again. SQLite is one process: nothing to test there.
#include <gtest/gtest.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <memory>
#include <string>
#include <thread>

#include "e2e/realtime_support.hpp"
#include "e2e/records_support.hpp"

namespace cairn::test {
namespace {

namespace json = boost::json;

constexpr const char* kTables = R"(tables:
  - id: 1
    name: people
    fields:
      - { id: 1, name: title, type: single-line-text }
      - { id: 2, name: notes, type: long-text }
)";

bool OnPostgres() {
  return TestBackend() == db::Backend::kPostgres;
}

std::unique_ptr<WsClient> Subscribe(RecordsApp& app, const Caller& caller) {
  auto client = std::make_unique<WsClient>(app.app().port(), "/api/tables/people/subscribe",
                                           Bearer(caller.token));
  client->ExpectSubscribed("people");
  return client;
}

std::string Create(RecordsApp& app, const std::string& fields_json) {
  const auto result = app.Send(app.admin(), "POST", "/api/tables/people/records",
                               R"({"fields":)" + fields_json + "}");
  if (result.status != 201) throw std::runtime_error("create: " + result.body);
  return std::string(result.Json().at("id").as_string());
}

TEST(RealtimeNodesTest, AChangeOnOneNodeReachesSubscribersOnEveryNode) {
  if (!OnPostgres()) GTEST_SKIP() << "one SQLite database has one node";
  if (const std::string missing = NodeProcess::Missing("ws"); !missing.empty()) {
    GTEST_SKIP() << missing;
  }
  RecordsApp first(kTables);
  RecordsApp second(kTables, "",
                    [&](TestAppOptions& options) { options.share_database_with = &first.app(); });
  auto on_first = Subscribe(first, first.admin());
  auto on_second = Subscribe(second, second.admin());

  const std::string id = Create(first, R"({"title":"from the first node"})");
  for (auto* feed : {on_first.get(), on_second.get()}) {
    const json::object message = feed->NextMessage();
    EXPECT_EQ(message.at("event"), "insert");
    EXPECT_EQ(message.at("recordId"), id.c_str());
    EXPECT_EQ(message.at("record").at("fields").at("title"), "from the first node");
  }
  // Past NOTIFY's 8000-byte limit: the change travels by reference to a stored row.
  const std::string notes(20'000, 'n');
  ASSERT_EQ(second
                .Send(second.admin(), "PATCH", "/api/tables/people/records/" + id,
                      R"({"fields":{"notes":")" + notes + R"("}})")
                .status,
            200);
  ASSERT_EQ(second
                .Send(second.admin(), "PATCH", "/api/tables/people/records/" + id,
                      R"({"fields":{"title":"renamed"}})")
                .status,
            200);
  for (auto* feed : {on_first.get(), on_second.get()}) {
    const json::object big = feed->NextMessage();
    EXPECT_EQ(big.at("event"), "update");
    EXPECT_EQ(big.at("record").at("fields").at("notes").as_string().size(), notes.size());
    const json::object renamed = feed->NextMessage();
    EXPECT_EQ(renamed.at("record").at("fields").at("title"), "renamed");
    EXPECT_EQ(renamed.at("oldRecord").at("fields").at("notes").as_string().size(), notes.size());
  }
}

// A PostgreSQL cluster of this test alone (scripts/with-postgres, kept running until
// destroyed), so restarting it disturbs no other test.
class ThrowawayCluster {
 public:
  ThrowawayCluster() {
    const std::filesystem::path url_file =
        std::filesystem::temp_directory_path() / ("cairn-rt-url-" + std::to_string(::getpid()));
    std::filesystem::remove(url_file);
    const std::string command =
        std::string(CAIRN_SOURCE_DIR) +
        "/scripts/with-postgres bash -c 'echo \"$CAIRN_TEST_DATABASE_URL\" > " + url_file.string() +
        "; cat > /dev/null'";
    // "e": the pipe is not inherited by what this process starts later (the restarted server
    // would keep it open, and the cluster would never be told to stop).
    pipe_ = ::popen(command.c_str(), "we");
    if (pipe_ == nullptr) throw std::runtime_error("cannot start scripts/with-postgres");
    for (int i = 0; i < 600 && url_.empty(); ++i) {
      std::this_thread::sleep_for(std::chrono::milliseconds(100));
      std::ifstream in(url_file);
      std::getline(in, url_);
    }
    std::filesystem::remove(url_file);
    if (url_.empty()) throw std::runtime_error("the throwaway cluster did not start");
    const auto host = url_.find("host=");
    root_ = url_.substr(host + 5, url_.find('&', host) - host - 5);
  }
  ~ThrowawayCluster() {
    if (pipe_ != nullptr) ::pclose(pipe_);  // its stdin closes: the cluster stops and is removed
  }

  const std::string& url() const { return url_; }

  void Restart() const {
    std::string bindir;
    for (const auto& entry : std::filesystem::directory_iterator("/usr/lib/postgresql")) {
      if (std::filesystem::exists(entry.path() / "bin" / "pg_ctl")) {
        bindir = (entry.path() / "bin").string();
      }
    }
    const std::string pg_ctl = bindir + "/pg_ctl -D " + root_ + "/data -m fast -w restart";
    const std::string command =
        (::geteuid() == 0 ? "runuser -u postgres -- " + pg_ctl : pg_ctl) + " > /dev/null";
    if (std::system(command.c_str()) != 0) throw std::runtime_error("pg_ctl restart failed");
  }

 private:
  FILE* pipe_ = nullptr;
  std::string url_;
  std::string root_;
};

TEST(RealtimeNodesTest, APostgresRestartIsFollowedByResyncAndChangesFlowAgain) {
  if (!OnPostgres()) GTEST_SKIP() << "SQLite has no server to restart";
  if (const std::string missing = NodeProcess::Missing("ws"); !missing.empty()) {
    GTEST_SKIP() << missing;
  }
  ThrowawayCluster cluster;
  // The test database (its schema, created and dropped) lives on that cluster.
  const char* previous = std::getenv("CAIRN_TEST_DATABASE_URL");
  const std::string saved = previous != nullptr ? previous : "";
  ::setenv("CAIRN_TEST_DATABASE_URL", cluster.url().c_str(), 1);
  struct RestoreUrl {
    std::string url;
    ~RestoreUrl() { ::setenv("CAIRN_TEST_DATABASE_URL", url.c_str(), 1); }
  } restore{saved};
  auto app = std::make_unique<RecordsApp>(kTables);

  auto feed = Subscribe(*app, app->admin());
  Create(*app, R"({"title":"before"})");
  EXPECT_EQ(feed->NextMessage().at("event"), "insert");

  cluster.Restart();
  const json::object resync = feed->NextMessage(30'000);
  EXPECT_EQ(resync.at("type"), "resync");
  EXPECT_EQ(json::serialize(resync.at("tables")), R"(["people"])");
  // Changes flow again once the pool has reconnected too (the first write may meet a dropped
  // connection and fail: a client would retry it as well).
  std::string id;
  for (int attempt = 0; attempt < 20 && id.empty(); ++attempt) {
    const auto result = app->Send(app->admin(), "POST", "/api/tables/people/records",
                                  R"({"fields":{"title":"after"}})");
    if (result.status == 201) {
      id = std::string(result.Json().at("id").as_string());
    } else {
      std::this_thread::sleep_for(std::chrono::milliseconds(250));
    }
  }
  ASSERT_FALSE(id.empty());
  const json::object message = feed->NextMessage(30'000);
  EXPECT_EQ(message.at("event"), "insert");
  EXPECT_EQ(message.at("recordId"), id.c_str());
  app.reset();
}

}  // namespace
}  // namespace cairn::test
