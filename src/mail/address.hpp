// Mailboxes: `local@domain` or `Display Name <local@domain>`, one per header. Parsing refuses
// anything that could smuggle a second header or a second recipient.
#pragma once

#include <string>
#include <string_view>

#include "common/result.hpp"

namespace cairn::mail {

struct Mailbox {
  std::string display_name;  // UTF-8, unquoted; may be empty
  std::string address;       // `local@domain`, ASCII (no SMTPUTF8)

  std::string_view Domain() const;
};

// `field` names the value in the error (`to`, `SMTP_FROM`). Error::Validation when the text holds
// CR, LF or another control character, more than one address, or an address that is not a
// dot-atom local part @ a host name.
Result<Mailbox> ParseMailbox(std::string_view text, std::string_view field);

// The header form: `local@domain`, `Name <local@domain>`, `"Doe, Jane" <local@domain>`, or the
// display name as RFC 2047 encoded-words when it is not ASCII.
std::string FormatMailbox(const Mailbox& mailbox);

}  // namespace cairn::mail
