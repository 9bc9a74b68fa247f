// File descriptors exhausted (issue 22): the real `cairn` binary runs with a low RLIMIT_NOFILE
// (set with prlimit once it is up) and more clients connect than it has descriptors for. It
// keeps serving the connections it has, does not spin on the failing accept (its CPU time stays
// low), and accepts the waiting clients once descriptors are free again.
#include <gtest/gtest.h>

#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <thread>

#include "e2e/fault_support.hpp"
#include "support/test_database.hpp"

namespace cairn::test {
namespace {

using namespace std::chrono_literals;

constexpr int kSpareDescriptors = 12;
constexpr int kClients = 40;
// While it cannot accept, the server may use at most this share of one core (a spinning accept
// loop uses all of it). Generous: the measured share is far lower.
constexpr double kMaxCpuShare = 0.1;

// A raw client that has sent one request and collects the answer.
struct Waiting {
  int fd = -1;
  std::string received;
  bool Answered() const { return received.find("\r\n\r\n") != std::string::npos; }
};

int ConnectAndSend(std::uint16_t port) {
  const int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in address{};
  address.sin_family = AF_INET;
  address.sin_port = htons(port);
  address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  if (::connect(fd, reinterpret_cast<sockaddr*>(&address), sizeof address) != 0) {
    ::close(fd);
    return -1;
  }
  const std::string request = "GET /api/health HTTP/1.1\r\nHost: localhost\r\n\r\n";
  if (::send(fd, request.data(), request.size(), MSG_NOSIGNAL) < 0) {
    ::close(fd);
    return -1;
  }
  return fd;
}

// Reads whatever arrives on the unanswered clients for `wait`.
void Collect(std::vector<Waiting>& clients, std::chrono::milliseconds wait) {
  const auto until = std::chrono::steady_clock::now() + wait;
  while (std::chrono::steady_clock::now() < until) {
    std::vector<pollfd> fds;
    std::vector<Waiting*> owners;
    for (auto& client : clients) {
      if (client.fd >= 0 && !client.Answered()) {
        fds.push_back({client.fd, POLLIN, 0});
        owners.push_back(&client);
      }
    }
    if (fds.empty()) return;
    if (::poll(fds.data(), fds.size(), 20) <= 0) continue;
    for (std::size_t i = 0; i < fds.size(); ++i) {
      if ((fds[i].revents & (POLLIN | POLLHUP | POLLERR)) == 0) continue;
      char buffer[4096];
      const ssize_t n = ::recv(fds[i].fd, buffer, sizeof buffer, 0);
      if (n > 0) owners[i]->received.append(buffer, static_cast<std::size_t>(n));
    }
  }
}

int CountAnswered(const std::vector<Waiting>& clients) {
  int answered = 0;
  for (const auto& client : clients) answered += client.Answered() ? 1 : 0;
  return answered;
}

TEST(FaultDescriptors, ExhaustedDescriptorsNeitherStopServingNorSpin) {
  auto database = TestDatabase::Create();
  ASSERT_TRUE(database.ok()) << database.error().message;
  (*database)->Close();
  const auto dir = (*database)->directory();
  FaultServer server(dir, dir, (*database)->options().url);
  server.Start();
  HttpClient veteran(server.port());  // connected before the descriptors run out
  ASSERT_EQ(veteran.Get("/api/health").status, 200);

  rlimit original{};
  ASSERT_EQ(::prlimit(server.pid(), RLIMIT_NOFILE, nullptr, &original), 0) << std::strerror(errno);
  rlimit low = original;
  low.rlim_cur = static_cast<rlim_t>(OpenDescriptors(server.pid())) + kSpareDescriptors;
  ASSERT_EQ(::prlimit(server.pid(), RLIMIT_NOFILE, &low, nullptr), 0) << std::strerror(errno);

  std::vector<Waiting> clients(kClients);
  for (auto& client : clients) {
    client.fd = ConnectAndSend(server.port());
    ASSERT_GE(client.fd, 0) << std::strerror(errno);
  }
  Collect(clients, 500ms);
  const int first_answered = CountAnswered(clients);
  ASSERT_LT(first_answered, kClients) << "the descriptor limit was never reached";
  EXPECT_NE(server.Log().find("accept failed: Too many open files"), std::string::npos)
      << server.Log();

  // Out of descriptors: the open connection is still served, and the process is not spinning.
  const auto cpu_before = ProcessCpuTime(server.pid());
  const auto wall_start = std::chrono::steady_clock::now();
  for (int i = 0; i < 10; ++i) {
    EXPECT_EQ(veteran.Get("/api/health").status, 200);
    std::this_thread::sleep_for(100ms);
  }
  const double wall_ms = MillisSince(wall_start);
  const auto cpu_ms = static_cast<double>((ProcessCpuTime(server.pid()) - cpu_before).count());
  EXPECT_LT(cpu_ms, wall_ms * kMaxCpuShare) << "the server spins while it cannot accept";
  EXPECT_EQ(CountAnswered(clients), first_answered);
  // The retries (20 a second) are not logged one by one: one line per run of failures (a
  // descriptor the server frees for a moment lets one accept through and ends a run).
  const std::string log = server.Log();
  int failure_lines = 0;
  for (auto at = log.find("accept failed"); at != std::string::npos;
       at = log.find("accept failed", at + 1)) {
    ++failure_lines;
  }
  EXPECT_GE(failure_lines, 1) << log;
  EXPECT_LE(failure_lines, 4) << log;

  // Free descriptors: close the answered clients, again as newly accepted ones are answered
  // (each holds a descriptor while it is open), until every waiting client has its answer.
  const auto freed_at = std::chrono::steady_clock::now();
  std::vector<std::string> answers;
  for (int round = 0; round < 100; ++round) {
    for (auto& client : clients) {
      if (client.fd >= 0 && client.Answered()) {
        answers.push_back(client.received);
        ::close(client.fd);
        client.fd = -1;
      }
    }
    Collect(clients, 50ms);
    if (answers.size() == clients.size()) break;
  }
  const double recovered_ms = MillisSince(freed_at);
  int still_waiting = 0;
  for (const auto& client : clients) still_waiting += (client.fd >= 0 && !client.Answered());
  EXPECT_EQ(still_waiting, 0) << server.Log();
  for (const auto& answer : answers) {
    EXPECT_TRUE(answer.starts_with("HTTP/1.1 200 ")) << answer;
  }
  for (auto& client : clients) {
    if (client.fd >= 0) ::close(client.fd);
  }
  EXPECT_NE(server.Log().find("accepting again after"), std::string::npos) << server.Log();
  ASSERT_EQ(::prlimit(server.pid(), RLIMIT_NOFILE, &original, nullptr), 0);
  EXPECT_EQ(HttpClient(server.port()).Get("/api/health").status, 200);
  PrintFigure("descriptors exhausted: " + std::to_string(kClients - first_answered) + " of " +
              std::to_string(kClients) + " clients waited; server CPU " +
              std::to_string(static_cast<int>(cpu_ms)) + " ms in " +
              std::to_string(static_cast<int>(wall_ms)) + " ms; all answered " +
              std::to_string(static_cast<int>(recovered_ms)) + " ms after descriptors freed");
}

}  // namespace
}  // namespace cairn::test
