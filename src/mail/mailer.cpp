#include "mail/mailer.hpp"

#include <filesystem>
#include <system_error>

#include "mail/address.hpp"
#include "mail/outbox_mailer.hpp"
#include "mail/smtp_mailer.hpp"

namespace cairn::mail {

Result<std::unique_ptr<Mailer>> MakeMailer(const MailSettings& settings) {
  CAIRN_ASSIGN_OR_RETURN(Mailbox from, ParseMailbox(settings.from, "SMTP_FROM"));
  if (!settings.smtp_host.empty()) return SmtpMailer::Make(std::move(from), settings);

  // A caller bug, not an operator mistake: the data directory always yields an outbox path.
  if (settings.outbox_dir.empty()) return Error::Internal("mail: no SMTP_HOST and no outbox_dir");
  std::error_code ec;
  std::filesystem::create_directories(settings.outbox_dir, ec);
  if (ec) {
    return Error::Internal("mail: cannot create outbox " + settings.outbox_dir + ": " +
                           ec.message());
  }
  return std::unique_ptr<Mailer>(
      std::make_unique<OutboxMailer>(std::move(from), settings.outbox_dir));
}

}  // namespace cairn::mail
