#include "mail/outbox_mailer.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstdio>
#include <cstring>

#include "common/log.hpp"
#include "common/time.hpp"
#include "mail/message_builder.hpp"
#include "mail/mime.hpp"

namespace cairn::mail {
namespace {

// Milliseconds since the epoch, moved one past the previous stamp when two messages share a
// millisecond, so that within a process names sort strictly in send order.
time::EpochMillis NextStamp() {
  static std::atomic<time::EpochMillis> last{0};
  const time::EpochMillis now = time::NowMillis();
  time::EpochMillis previous = last.load();
  time::EpochMillis stamp;
  do {
    stamp = now > previous ? now : previous + 1;
  } while (!last.compare_exchange_weak(previous, stamp));
  return stamp;
}

// `1700000000123-1a2b3c4d.eml`: 13 digits (zero-padded; enough until the year 2286) so that the
// names sort as numbers.
std::string NextFileName() {
  char stamp[32];
  std::snprintf(stamp, sizeof stamp, "%013lld", static_cast<long long>(NextStamp()));
  return std::string(stamp) + "-" + RandomHex(4) + ".eml";
}

Status WriteAll(int fd, std::string_view data) {
  while (!data.empty()) {
    const ssize_t n = ::write(fd, data.data(), data.size());
    if (n < 0) {
      if (errno == EINTR) continue;
      return Error::Internal(std::string("write: ") + std::strerror(errno));
    }
    data.remove_prefix(static_cast<std::size_t>(n));
  }
  return {};
}

}  // namespace

OutboxMailer::OutboxMailer(Mailbox from, std::filesystem::path dir)
    : from_(std::move(from)), dir_(std::move(dir)) {}

Status OutboxMailer::Send(const Message& message) {
  CAIRN_ASSIGN_OR_RETURN(const BuiltMessage built, BuildMessage(message, from_, time::NowMillis()));
  const std::string name = NextFileName();
  const std::filesystem::path final_path = dir_ / name;
  // A dot name in the same directory: readers listing *.eml never see a partial file, and the
  // rename cannot cross file systems.
  const std::filesystem::path temp_path = dir_ / ("." + name + ".tmp");
  // 0600: the message holds sign-in links and codes.
  const int fd = ::open(temp_path.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
  if (fd < 0) {
    return Error::Internal("outbox: cannot create " + temp_path.string() + ": " +
                           std::strerror(errno));
  }
  Status written = WriteAll(fd, built.data);
  if (::close(fd) != 0 && written.ok()) {
    written = Error::Internal(std::string("close: ") + std::strerror(errno));
  }
  if (written.ok() && ::rename(temp_path.c_str(), final_path.c_str()) != 0) {
    written = Error::Internal(std::string("rename: ") + std::strerror(errno));
  }
  if (!written.ok()) {
    ::unlink(temp_path.c_str());
    written.error().detail = "outbox: " + final_path.string() + ": " + written.error().detail;
    return written;
  }
  log::Debug("mail: wrote " + final_path.string());
  return {};
}

}  // namespace cairn::mail
