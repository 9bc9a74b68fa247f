#include "support/node_process.hpp"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <stdexcept>
#include <thread>

extern char** environ;

namespace cairn::test {
namespace {

const std::filesystem::path kNodeDir = CAIRN_SOURCE_DIR "/tests/node";

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

bool NodeProcess::NodeInstalled() {
  return !FindNode().empty();
}

std::string NodeProcess::Missing(const std::string& package) {
  if (!NodeInstalled()) return "node is not installed (scripts/install-deps installs it)";
  if (!std::filesystem::exists(kNodeDir / "node_modules" / package)) {
    return "tests/node/node_modules has no " + package + ": run scripts/install-deps";
  }
  return {};
}

NodeProcess::NodeProcess(const std::string& script, const std::vector<std::string>& args,
                         const std::vector<std::string>& node_flags) {
  const std::filesystem::path node = FindNode();
  if (node.empty()) throw std::runtime_error("node is not installed");
  int in_pipe[2], out_pipe[2];
  if (::pipe2(in_pipe, O_CLOEXEC) != 0 || ::pipe2(out_pipe, O_CLOEXEC) != 0) {
    throw std::runtime_error("pipe2 failed");
  }
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_adddup2(&actions, in_pipe[0], STDIN_FILENO);
  posix_spawn_file_actions_adddup2(&actions, out_pipe[1], STDOUT_FILENO);
  posix_spawn_file_actions_addchdir_np(&actions, kNodeDir.c_str());
  std::vector<std::string> all = {node.string()};
  all.insert(all.end(), node_flags.begin(), node_flags.end());
  all.push_back((kNodeDir / script).string());
  all.insert(all.end(), args.begin(), args.end());
  std::vector<char*> argv;
  for (std::string& arg : all) argv.push_back(arg.data());
  argv.push_back(nullptr);
  const int spawned = ::posix_spawn(&pid_, node.c_str(), &actions, nullptr, argv.data(), environ);
  posix_spawn_file_actions_destroy(&actions);
  ::close(in_pipe[0]);
  ::close(out_pipe[1]);
  stdin_fd_ = in_pipe[1];
  stdout_fd_ = out_pipe[0];
  if (spawned != 0) {
    pid_ = -1;
    throw std::runtime_error("cannot start node " + script);
  }
}

NodeProcess::~NodeProcess() {
  if (stdin_fd_ >= 0) ::close(stdin_fd_);  // EOF on stdin: the script exits
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
  }
  if (stdout_fd_ >= 0) ::close(stdout_fd_);
}

std::string NodeProcess::ReadLine(int timeout_ms) {
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::milliseconds(timeout_ms);
  while (pending_.find('\n') == std::string::npos) {
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
        deadline - std::chrono::steady_clock::now());
    pollfd pfd{stdout_fd_, POLLIN, 0};
    if (left.count() <= 0 || ::poll(&pfd, 1, static_cast<int>(left.count())) <= 0) {
      throw std::runtime_error("the node script printed no line in time");
    }
    char buffer[256];
    const ssize_t n = ::read(stdout_fd_, buffer, sizeof buffer);
    if (n <= 0) throw std::runtime_error("the node script ended");
    pending_.append(buffer, static_cast<std::size_t>(n));
  }
  const std::size_t newline = pending_.find('\n');
  std::string line = pending_.substr(0, newline);
  pending_.erase(0, newline + 1);
  return line;
}

void NodeProcess::WriteLine(const std::string& line) {
  const std::string data = line + "\n";
  if (::write(stdin_fd_, data.data(), data.size()) != static_cast<ssize_t>(data.size())) {
    throw std::runtime_error("cannot write to the node script");
  }
}

}  // namespace cairn::test
