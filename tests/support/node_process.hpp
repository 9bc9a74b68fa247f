// A Node.js script from tests/node run for one test (the S3 server, the OpenID provider, the
// GitHub stand-in):
// started with its arguments, talked to by lines on stdin and stdout, and stopped by closing
// its stdin (the scripts exit on EOF), so it never outlives the test.
#pragma once

#include <sys/types.h>

#include <string>
#include <vector>

namespace cairn::test {

class NodeProcess {
 public:
  // Whether `node` is on the PATH.
  static bool NodeInstalled();
  // Empty when node and tests/node/node_modules/<package> are there; otherwise why not.
  static std::string Missing(const std::string& package);

  // Runs tests/node/<script> with `args` (and `node_flags` for node itself). Throws
  // std::runtime_error when it cannot start.
  NodeProcess(const std::string& script, const std::vector<std::string>& args,
              const std::vector<std::string>& node_flags = {});
  ~NodeProcess();
  NodeProcess(const NodeProcess&) = delete;
  NodeProcess& operator=(const NodeProcess&) = delete;

  // The next line the script prints (without its newline); throws after `timeout_ms`.
  std::string ReadLine(int timeout_ms = 20'000);
  void WriteLine(const std::string& line);

 private:
  pid_t pid_ = -1;
  int stdin_fd_ = -1;
  int stdout_fd_ = -1;
  std::string pending_;  // read past the last line returned
};

}  // namespace cairn::test
