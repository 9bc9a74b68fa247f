#include "e2e/server_process.hpp"

#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>

#include <chrono>
#include <fstream>
#include <regex>
#include <sstream>
#include <stdexcept>
#include <thread>

extern char** environ;

namespace cairn::test {

ServerProcess::ServerProcess(const std::string& program, const std::vector<std::string>& args,
                             const std::vector<std::string>& env, std::filesystem::path log)
    : log_(std::move(log)) {
  std::vector<std::string> env_strings;
  // A variable `env` sets replaces the inherited one (getenv would find the first).
  const auto overridden = [&env](const std::string& entry) {
    const std::string name = entry.substr(0, entry.find('=') + 1);
    for (const std::string& own : env) {
      if (own.starts_with(name)) return true;
    }
    return false;
  };
  for (char** e = environ; *e != nullptr; ++e) {
    const std::string entry = *e;
    if (entry.starts_with("DATABASE_URL=") || entry.starts_with("PORT=") ||
        entry.starts_with("CAIRN_DATA_DIR=") || overridden(entry)) {
      continue;
    }
    env_strings.push_back(entry);
  }
  env_strings.insert(env_strings.end(), env.begin(), env.end());
  std::vector<char*> envp;
  for (auto& entry : env_strings) envp.push_back(entry.data());
  envp.push_back(nullptr);
  std::vector<std::string> argv_strings{program};
  argv_strings.insert(argv_strings.end(), args.begin(), args.end());
  std::vector<char*> argv;
  for (auto& arg : argv_strings) argv.push_back(arg.data());
  argv.push_back(nullptr);

  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, 2, log_.c_str(), O_WRONLY | O_CREAT | O_APPEND, 0644);
  posix_spawn_file_actions_adddup2(&actions, 2, 1);
  const int spawned =
      posix_spawn(&pid_, program.c_str(), &actions, nullptr, argv.data(), envp.data());
  posix_spawn_file_actions_destroy(&actions);
  if (spawned != 0) throw std::runtime_error("cannot start " + program);

  // The newest `listening on` line is this process's (the log is appended to across restarts).
  const std::regex listening(R"(listening on http://127\.0\.0\.1:(\d+))");
  const std::size_t skip = Log().size();
  for (int i = 0; i < 300 && port_ == 0; ++i) {
    const std::string fresh = Log().substr(std::min(skip, Log().size()));
    std::smatch match;
    if (std::regex_search(fresh, match, listening)) {
      port_ = static_cast<std::uint16_t>(std::stoi(match[1]));
    } else {
      std::this_thread::sleep_for(std::chrono::milliseconds(50));
    }
  }
  if (port_ == 0) {
    Stop(SIGKILL);
    throw std::runtime_error("server did not start:\n" + Log());
  }
}

ServerProcess::~ServerProcess() {
  if (pid_ != 0) Stop(SIGKILL);
}

int ServerProcess::Stop(int signal) {
  int status = 0;
  if (pid_ == 0) return status;
  kill(pid_, signal);
  waitpid(pid_, &status, 0);
  pid_ = 0;
  return status;
}

std::string ServerProcess::Log() const {
  std::ifstream in(log_);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

}  // namespace cairn::test
