// A cairn server in its own process, for tests that kill it (SIGTERM, SIGKILL) and start it
// again on the same data. It reads its settings from the environment it is given.
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

namespace cairn::test {

class ServerProcess {
 public:
  // Starts `program args…` with the test's environment minus DATABASE_URL, PORT and
  // CAIRN_DATA_DIR, plus `env` (`NAME=value`), logging to `log`. Throws when it does not report
  // `listening on http://127.0.0.1:<port>` within 15 s.
  ServerProcess(const std::string& program, const std::vector<std::string>& args,
                const std::vector<std::string>& env, std::filesystem::path log);
  ~ServerProcess();  // SIGKILL if still running

  std::uint16_t port() const { return port_; }
  // The server's process id (0 once stopped): for /proc/<pid>/status and prlimit.
  pid_t pid() const { return pid_; }
  // Sends `signal` and waits; returns the wait status.
  int Stop(int signal);
  std::string Log() const;

 private:
  pid_t pid_ = 0;
  std::uint16_t port_ = 0;
  std::filesystem::path log_;
};

}  // namespace cairn::test
