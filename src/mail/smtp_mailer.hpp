// Delivery through an SMTP server with libcurl (one easy handle per Send, so Send is thread-safe).
#pragma once

#include <memory>
#include <string>

#include "mail/address.hpp"
#include "mail/mailer.hpp"

namespace cairn::mail {

class SmtpMailer final : public Mailer {
 public:
  // Validates host and port (Error::Validation naming SMTP_HOST / SMTP_PORT / SMTP_USER) and
  // initializes libcurl once per process.
  static Result<std::unique_ptr<Mailer>> Make(Mailbox from, const MailSettings& settings);

  Status Send(const Message& message) override;
  std::string_view Kind() const override { return "smtp"; }

 private:
  SmtpMailer(Mailbox from, const MailSettings& settings, std::string url);

  Mailbox from_;
  std::string url_;       // smtp://host:port or smtps://host:port; never holds credentials
  std::string endpoint_;  // host:port, for error details
  std::string user_, pass_;
  bool require_tls_;  // implicit TLS (465) or credentials set: plaintext is refused
};

}  // namespace cairn::mail
