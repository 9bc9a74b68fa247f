#include "support/smtp_sink.hpp"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <stdexcept>
#include <thread>

#include "support/mail_reader.hpp"

extern char** environ;

namespace cairn::test {
namespace {

// Debian's interpreter, where python3-aiosmtpd is installed (a python3 earlier on PATH, for
// example from pyenv, would not have it).
constexpr const char* kPython = "/usr/bin/python3";
constexpr int kStartTimeoutMs = 10'000;

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

}  // namespace

SmtpSink::SmtpSink(std::uint16_t wanted) {
  std::string pattern = (std::filesystem::temp_directory_path() / "cairn-smtp-XXXXXX").string();
  if (::mkdtemp(pattern.data()) == nullptr) throw std::runtime_error("mkdtemp failed");
  dir_ = pattern;

  int in_pipe[2], out_pipe[2];
  if (::pipe2(in_pipe, O_CLOEXEC) != 0 || ::pipe2(out_pipe, O_CLOEXEC) != 0) {
    throw std::runtime_error("pipe2 failed");
  }
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_adddup2(&actions, in_pipe[0], STDIN_FILENO);
  posix_spawn_file_actions_adddup2(&actions, out_pipe[1], STDOUT_FILENO);
  const std::string script = CAIRN_SOURCE_DIR "/tests/support/smtp_sink.py";
  const std::string dir = dir_.string();
  const std::string wanted_port = std::to_string(wanted);
  char* argv[] = {const_cast<char*>(kPython), const_cast<char*>(script.c_str()),
                  const_cast<char*>(dir.c_str()), const_cast<char*>(wanted_port.c_str()), nullptr};
  const int spawned = ::posix_spawn(&pid_, kPython, &actions, nullptr, argv, environ);
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
    throw std::runtime_error(
        "the SMTP sink did not start: is python3-aiosmtpd installed (scripts/install-deps)?");
  }
  port_ = static_cast<std::uint16_t>(port);
}

SmtpSink::~SmtpSink() {
  Stop();
}

void SmtpSink::Stop() {
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

std::vector<ReceivedMail> SmtpSink::Messages() const {
  std::vector<std::filesystem::path> envelopes;
  for (const auto& entry : std::filesystem::directory_iterator(dir_)) {
    if (entry.path().extension() == ".envelope") envelopes.push_back(entry.path());
  }
  std::sort(envelopes.begin(), envelopes.end());
  std::vector<ReceivedMail> messages;
  for (const auto& envelope : envelopes) {
    ReceivedMail mail;
    const std::string content = ReadFileBytes(envelope);
    std::string_view rest = content;
    while (!rest.empty()) {
      const std::size_t eol = rest.find('\n');
      const std::string_view line = rest.substr(0, eol);
      rest.remove_prefix(eol == std::string_view::npos ? rest.size() : eol + 1);
      const auto strip = [](std::string_view v) { return std::string(v.substr(1, v.size() - 2)); };
      if (line.starts_with("MAIL FROM:")) mail.mail_from = strip(line.substr(10));
      if (line.starts_with("RCPT TO:")) mail.rcpt_to.push_back(strip(line.substr(8)));
    }
    std::filesystem::path eml = envelope;
    mail.data = ReadFileBytes(eml.replace_extension(".eml"));
    messages.push_back(std::move(mail));
  }
  return messages;
}

}  // namespace cairn::test
