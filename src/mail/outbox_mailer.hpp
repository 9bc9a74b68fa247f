// Development/test delivery: each message becomes one .eml file in the outbox directory.
#pragma once

#include <filesystem>
#include <string>

#include "mail/address.hpp"
#include "mail/mailer.hpp"

namespace cairn::mail {

class OutboxMailer final : public Mailer {
 public:
  // `dir` must exist (MakeMailer creates it).
  OutboxMailer(Mailbox from, std::filesystem::path dir);

  // Writes `<millis>-<random>.eml` atomically: the file appears complete or not at all. Names
  // sort in send order, so the newest message is the last name.
  Status Send(const Message& message) override;
  std::string_view Kind() const override { return "outbox"; }

 private:
  Mailbox from_;
  std::filesystem::path dir_;
};

}  // namespace cairn::mail
