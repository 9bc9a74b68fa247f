// SIGTERM during a stream of writes loses no acknowledged write (D5): the real server runs as a
// separate process, clients write until the server goes away, and every write that was answered
// 201 must be in the database afterwards.
#include <gtest/gtest.h>

#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <fcntl.h>
#include <atomic>
#include <chrono>
#include <fstream>
#include <mutex>
#include <regex>
#include <set>
#include <sstream>
#include <thread>

#include "support/http_client.hpp"
#include "support/test_database.hpp"

extern char** environ;

namespace cairn::test {
namespace {

using namespace std::chrono_literals;

constexpr int kWriters = 4;
constexpr std::size_t kWritesBeforeSignal = 200;

std::string ReadFile(const std::filesystem::path& path) {
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

TEST(Shutdown, SigtermDuringWritesLosesNoAcknowledgedWrite) {
  auto database = TestDatabase::Create();
  ASSERT_TRUE(database.ok()) << database.error().message;
  auto& test_db = **database;
  test_db.Close();
  const auto dir = test_db.directory();
  const auto config_path = dir / "probe.yaml";
  std::ofstream(config_path) << "name: probe\ntables:\n  - name: notes\n    fields:\n"
                                "      - name: title\n        type: single-line-text\n";
  const auto log_path = dir / "server.log";

  std::vector<std::string> env_strings;
  for (char** e = environ; *e != nullptr; ++e) {
    std::string entry = *e;
    if (entry.starts_with("DATABASE_URL=") || entry.starts_with("PORT=") ||
        entry.starts_with("CAIRN_DATA_DIR=")) {
      continue;
    }
    env_strings.push_back(entry);
  }
  env_strings.push_back("PORT=0");
  env_strings.push_back("CAIRN_DATA_DIR=" + dir.string());
  if (!test_db.options().url.empty())
    env_strings.push_back("DATABASE_URL=" + test_db.options().url);
  std::vector<char*> envp;
  for (auto& entry : env_strings) envp.push_back(entry.data());
  envp.push_back(nullptr);

  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, 2, log_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC,
                                   0644);
  posix_spawn_file_actions_adddup2(&actions, 2, 1);
  std::string program = CAIRN_PROBE_SERVER;
  std::string config_arg = config_path.string();
  char* argv[] = {program.data(), config_arg.data(), nullptr};
  pid_t pid = 0;
  ASSERT_EQ(posix_spawn(&pid, program.c_str(), &actions, nullptr, argv, envp.data()), 0);
  posix_spawn_file_actions_destroy(&actions);

  std::uint16_t port = 0;
  const std::regex listening(R"(listening on http://127\.0\.0\.1:(\d+))");
  for (int i = 0; i < 300 && port == 0; ++i) {
    std::smatch match;
    const std::string log = ReadFile(log_path);
    if (std::regex_search(log, match, listening))
      port = static_cast<std::uint16_t>(std::stoi(match[1]));
    else
      std::this_thread::sleep_for(50ms);
  }
  if (port == 0) {
    kill(pid, SIGKILL);
    waitpid(pid, nullptr, 0);
    FAIL() << "probe server did not start:\n" << ReadFile(log_path);
  }

  std::mutex acked_mutex;
  std::set<std::string> acked;
  std::atomic<std::size_t> acked_count{0};
  std::vector<std::thread> writers;
  for (int w = 0; w < kWriters; ++w) {
    writers.emplace_back([&, w] {
      HttpClient client(port);
      for (int i = 0;; ++i) {
        const std::string value = "w" + std::to_string(w) + "-" + std::to_string(i);
        try {
          auto result = client.PostJson("/test/write", R"({"value":")" + value + R"("})");
          if (result.status != 201) return;
          {
            std::lock_guard lock(acked_mutex);
            acked.insert(value);
          }
          ++acked_count;
        } catch (const std::exception&) {
          return;  // the server is gone
        }
      }
    });
  }
  for (int i = 0; i < 400 && acked_count < kWritesBeforeSignal; ++i)
    std::this_thread::sleep_for(25ms);
  ASSERT_EQ(kill(pid, SIGTERM), 0);
  for (auto& writer : writers) writer.join();
  int status = 0;
  ASSERT_EQ(waitpid(pid, &status, 0), pid);
  ASSERT_TRUE(WIFEXITED(status)) << ReadFile(log_path);
  EXPECT_EQ(WEXITSTATUS(status), 0) << ReadFile(log_path);
  ASSERT_GE(acked.size(), kWritesBeforeSignal);

  auto reopened = test_db.Reopen();
  ASSERT_TRUE(reopened.ok()) << reopened.error().message;
  std::set<std::string> stored;
  auto read = (*reopened)->Transaction(db::Access::kRead, [&](db::Connection& connection) {
    auto rows = connection.Execute(R"(SELECT "title" FROM "notes")", {}, [&](const db::Row& row) {
      stored.insert(std::string(row.GetText(0)));
    });
    if (!rows.ok()) return Status(std::move(rows).error());
    return Status();
  });
  ASSERT_TRUE(read.ok()) << read.error().message;
  std::size_t missing = 0;
  for (const auto& value : acked) {
    if (!stored.contains(value)) ++missing;
  }
  EXPECT_EQ(missing, 0u) << "of " << acked.size() << " acknowledged writes";
  (*reopened)->Close();
}

}  // namespace
}  // namespace cairn::test
