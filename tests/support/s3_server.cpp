#include "support/s3_server.hpp"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <stdexcept>
#include <thread>
#include <vector>

extern char** environ;

namespace cairn::test {
namespace {

constexpr int kStartTimeoutMs = 20'000;
const std::filesystem::path kNodeDir = CAIRN_SOURCE_DIR "/tests/node";

std::string ReadLine(int fd, int timeout_ms) {
  std::string line;
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::milliseconds(timeout_ms);
  while (line.find('\n') == std::string::npos) {
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
        deadline - std::chrono::steady_clock::now());
    pollfd pfd{fd, POLLIN, 0};
    if (left.count() <= 0 || ::poll(&pfd, 1, static_cast<int>(left.count())) <= 0) break;
    char buffer[64];
    const ssize_t n = ::read(fd, buffer, sizeof buffer);
    if (n <= 0) break;
    line.append(buffer, static_cast<std::size_t>(n));
  }
  return line;
}

std::filesystem::path FindNode() {
  const char* path = std::getenv("PATH");
  std::string_view rest = path != nullptr ? path : "/usr/local/bin:/usr/bin:/bin";
  while (true) {
    const std::size_t colon = rest.find(':');
    const std::filesystem::path candidate = std::filesystem::path(rest.substr(0, colon)) / "node";
    if (::access(candidate.c_str(), X_OK) == 0) return candidate;
    if (colon == std::string_view::npos) return {};
    rest.remove_prefix(colon + 1);
  }
}

}  // namespace

std::string S3Server::MissingNode() {
  if (FindNode().empty()) {
    return "node is not installed, so the S3-compatible test server (tests/node) cannot run "
           "(scripts/install-deps installs it)";
  }
  return {};
}

S3Server::S3Server(std::string bucket, std::filesystem::path tls_key,
                   std::filesystem::path tls_cert)
    : bucket_(std::move(bucket)), tls_(!tls_key.empty()) {
  const std::filesystem::path node = FindNode();
  if (node.empty()) throw std::runtime_error(MissingNode());
  if (!std::filesystem::exists(kNodeDir / "node_modules/@20minutes/s3rver")) {
    throw std::runtime_error(
        "tests/node/node_modules has no @20minutes/s3rver: run scripts/install-deps");
  }
  std::string pattern = (std::filesystem::temp_directory_path() / "cairn-s3-XXXXXX").string();
  if (::mkdtemp(pattern.data()) == nullptr) throw std::runtime_error("mkdtemp failed");
  dir_ = pattern;
  data_dir_ = dir_ / "data";
  std::filesystem::create_directories(data_dir_);

  int in_pipe[2], out_pipe[2];
  if (::pipe2(in_pipe, O_CLOEXEC) != 0 || ::pipe2(out_pipe, O_CLOEXEC) != 0) {
    throw std::runtime_error("pipe2 failed");
  }
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_adddup2(&actions, in_pipe[0], STDIN_FILENO);
  posix_spawn_file_actions_adddup2(&actions, out_pipe[1], STDOUT_FILENO);
  // s3rver's continuation tokens are DES-encrypted, which OpenSSL 3 keeps in its legacy
  // provider: without it every second page of a listing is a 500.
  std::vector<std::string> args = {node.string(), "--openssl-legacy-provider",
                                   (kNodeDir / "s3_server.js").string(), data_dir_.string(),
                                   bucket_};
  if (tls_) {
    args.push_back(tls_key.string());
    args.push_back(tls_cert.string());
  }
  std::vector<char*> argv;
  for (std::string& arg : args) argv.push_back(arg.data());
  argv.push_back(nullptr);
  const int spawned = ::posix_spawn(&pid_, node.c_str(), &actions, nullptr, argv.data(), environ);
  if (spawned != 0) pid_ = -1;
  posix_spawn_file_actions_destroy(&actions);
  ::close(in_pipe[0]);
  ::close(out_pipe[1]);
  stdin_fd_ = in_pipe[1];
  const std::string line = spawned == 0 ? ReadLine(out_pipe[0], kStartTimeoutMs) : "";
  ::close(out_pipe[0]);
  const int port = std::atoi(line.c_str());
  if (port <= 0 || port > 65535) {
    Stop();
    throw std::runtime_error("the S3 test server (tests/node/s3_server.js) did not start");
  }
  port_ = static_cast<std::uint16_t>(port);
}

S3Server::~S3Server() {
  Stop();
}

std::string S3Server::endpoint() const {
  return std::string(tls_ ? "https" : "http") + "://127.0.0.1:" + std::to_string(port_);
}

void S3Server::Stop() {
  if (stdin_fd_ >= 0) ::close(stdin_fd_);  // EOF on stdin: the server exits
  stdin_fd_ = -1;
  if (pid_ > 0) {
    int status = 0;
    bool exited = false;
    for (int i = 0; i < 100 && !exited; ++i) {
      exited = ::waitpid(pid_, &status, WNOHANG) == pid_;
      if (!exited) std::this_thread::sleep_for(std::chrono::milliseconds(50));
    }
    if (!exited) {
      ::kill(pid_, SIGKILL);
      ::waitpid(pid_, &status, 0);
    }
    pid_ = -1;
  }
  std::error_code ignored;
  if (!dir_.empty()) std::filesystem::remove_all(dir_, ignored);
  dir_.clear();
}

}  // namespace cairn::test
