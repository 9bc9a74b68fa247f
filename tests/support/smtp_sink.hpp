// A real SMTP server for one test: runs tests/support/smtp_sink.py (Debian's python3-aiosmtpd)
// on a free 127.0.0.1 port and reads back what it received.
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

namespace cairn::test {

struct ReceivedMail {
  std::string mail_from;             // the envelope, as the server saw it
  std::vector<std::string> rcpt_to;  // bare addresses
  std::string data;                  // the message exactly as received (CRLF line endings)
};

class SmtpSink {
 public:
  // On `port` (0: a free one). Throws std::runtime_error when the server does not start
  // (python3-aiosmtpd missing? the port taken?).
  explicit SmtpSink(std::uint16_t port = 0);
  // Closes the server's stdin, which makes it exit, and removes its directory.
  ~SmtpSink();
  SmtpSink(const SmtpSink&) = delete;
  SmtpSink& operator=(const SmtpSink&) = delete;

  std::uint16_t port() const { return port_; }
  // Everything received so far, in arrival order. Saved before the server's 250 reply, so a
  // client that saw its send succeed finds its message here.
  std::vector<ReceivedMail> Messages() const;

 private:
  void Stop();

  std::filesystem::path dir_;
  pid_t pid_ = -1;
  int stdin_fd_ = -1;
  std::uint16_t port_ = 0;
};

}  // namespace cairn::test
