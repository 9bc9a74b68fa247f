// Message → RFC 5322 text with MIME parts, ready for SMTP DATA or an .eml file.
#pragma once

#include <string>

#include "common/result.hpp"
#include "common/time.hpp"
#include "mail/address.hpp"
#include "mail/mailer.hpp"

namespace cairn::mail {

struct BuiltMessage {
  std::string envelope_from;  // bare addresses (display names stripped): MAIL FROM / RCPT TO
  std::string envelope_to;
  std::string message_id;  // `<hex.millis@from-domain>`
  std::string data;        // headers and body, CRLF line endings, ends with CRLF
};

// Error::Validation when `to` is not one address or `to`/`subject` hold CR, LF or other control
// characters (header injection). `now` becomes the Date header.
Result<BuiltMessage> BuildMessage(const Message& message, const Mailbox& from,
                                  time::EpochMillis now);

}  // namespace cairn::mail
