// Outgoing email (decision D15): SMTP when SMTP_HOST is set, otherwise one .eml file per message
// in <data-dir>/outbox/ so development and tests can read links and codes.
#pragma once

#include <memory>
#include <string>
#include <string_view>

#include "common/result.hpp"

namespace cairn::mail {

struct Message {
  std::string to;       // one address: `user@example.com` or `Name <user@example.com>`
  std::string subject;  // UTF-8; RFC 2047-encoded when it is not plain ASCII
  std::string text;     // UTF-8 plain-text body
  std::string html;     // optional: empty → text only, else multipart/alternative
};

struct MailSettings {
  std::string smtp_host;  // empty → outbox
  // 465 → implicit TLS (smtps://); otherwise STARTTLS when the server offers it, and required
  // when a user/password is set, so credentials never go in clear.
  int smtp_port = 587;
  std::string smtp_user, smtp_pass;
  std::string from = "cairn <no-reply@localhost>";
  std::string outbox_dir;  // <data-dir>/outbox
};

// Send is thread-safe: worker threads may call it concurrently. Message bodies hold tokens, so
// no implementation logs them (nor subjects or recipients).
class Mailer {
 public:
  virtual ~Mailer() = default;
  // Error::Validation for a bad recipient or a header injection attempt (CR/LF in `to` or
  // `subject`); Error::Unavailable when the SMTP server cannot be reached or refuses the
  // message (curl's error in `detail`); Error::Internal when the outbox cannot be written.
  virtual Status Send(const Message& message) = 0;
  // "smtp" or "outbox".
  virtual std::string_view Kind() const = 0;
};

// Validates the settings (Error::Validation naming SMTP_FROM / SMTP_HOST / SMTP_PORT) and creates
// the outbox directory when there is no SMTP host.
Result<std::unique_ptr<Mailer>> MakeMailer(const MailSettings& settings);

}  // namespace cairn::mail
