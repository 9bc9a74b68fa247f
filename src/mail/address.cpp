#include "mail/address.hpp"

#include <algorithm>
#include <cstring>

#include "common/email.hpp"
#include "mail/limits.hpp"
#include "mail/mime.hpp"

namespace cairn::mail {
namespace {

bool IsAlnum(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9');
}

// RFC 5322 §3.2.3 atext.
bool IsAtext(char c) {
  return IsAlnum(c) || (c != '\0' && std::strchr("!#$%&'*+-/=?^_`{|}~", c) != nullptr);
}

// The users' address grammar (common/email.hpp), with SMTP's 64-octet local part (RFC 5321).
bool IsValidAddress(std::string_view address) {
  return email::IsValidAddress(address) && address.find('@') <= kMaxLocalPartLength;
}

std::string_view Trim(std::string_view text) {
  while (!text.empty() && text.front() == ' ') text.remove_prefix(1);
  while (!text.empty() && text.back() == ' ') text.remove_suffix(1);
  return text;
}

// `"Doe, \"J\""` → `Doe, "J"`; false when the quoting is broken.
bool Unquote(std::string_view quoted, std::string& out) {
  out.clear();
  for (std::size_t i = 1; i + 1 < quoted.size(); ++i) {
    char c = quoted[i];
    if (c == '\\') {
      if (i + 2 >= quoted.size()) return false;
      c = quoted[++i];
    } else if (c == '"') {
      return false;
    }
    out += c;
  }
  return true;
}

// An unquoted display name must be a phrase: no specials that would start another address
// (`.` is allowed, as in `J. Doe`: RFC 5322's obsolete phrase syntax, common in practice).
bool IsPlainPhrase(std::string_view name) {
  return name.find_first_of("<>()[]:;@\\,\"") == std::string_view::npos;
}

// A display name that can go out without quotes: atoms separated by single spaces.
bool IsAtomPhrase(std::string_view name) {
  if (name.empty() || name.front() == ' ' || name.back() == ' ') return false;
  if (name.find("  ") != std::string_view::npos) return false;
  // `=?...?=` would be decoded as an encoded-word by mail clients; quoted, it stays literal.
  if (name.find("=?") != std::string_view::npos) return false;
  return std::all_of(name.begin(), name.end(), [](char c) { return c == ' ' || IsAtext(c); });
}

Error Invalid(std::string_view field, std::string message) {
  return Error::Validation(message, {FieldError{std::string(field), message}});
}

}  // namespace

std::string_view Mailbox::Domain() const {
  const std::string_view view = address;
  return view.substr(view.find('@') + 1);
}

Result<Mailbox> ParseMailbox(std::string_view text, std::string_view field) {
  const std::string name(field);
  if (text.find_first_of("\r\n") != std::string_view::npos) {
    return Invalid(field, name + " must not contain line breaks");
  }
  if (HasControlCharacter(text)) {
    return Invalid(field, name + " must not contain control characters");
  }
  const std::string_view trimmed = Trim(text);
  Mailbox mailbox;
  const std::size_t open = trimmed.find('<');
  if (open == std::string_view::npos) {
    mailbox.address = std::string(trimmed);
  } else {
    // `Name <address>`: the address is the bracketed rest, and nothing may follow it.
    if (trimmed.back() != '>' || trimmed.find('<', open + 1) != std::string_view::npos) {
      return Invalid(field, name + " must be a single email address");
    }
    mailbox.address = std::string(trimmed.substr(open + 1, trimmed.size() - open - 2));
    const std::string_view display = Trim(trimmed.substr(0, open));
    if (display.size() > kMaxDisplayNameBytes) {
      return Invalid(field, name + " has a display name that is too long");
    }
    if (display.size() >= 2 && display.front() == '"' && display.back() == '"') {
      if (!Unquote(display, mailbox.display_name)) {
        return Invalid(field, name + " has a malformed quoted display name");
      }
    } else if (IsPlainPhrase(display)) {
      mailbox.display_name = std::string(display);
    } else {
      return Invalid(field, name + " must be a single email address");
    }
  }
  if (!IsValidAddress(mailbox.address)) {
    return Invalid(field, name + " must be a single email address");
  }
  return mailbox;
}

std::string FormatMailbox(const Mailbox& mailbox) {
  if (mailbox.display_name.empty()) return mailbox.address;
  std::string out;
  if (!IsPrintableAscii(mailbox.display_name)) {
    out = EncodeWords(mailbox.display_name);
  } else if (IsAtomPhrase(mailbox.display_name)) {
    out = mailbox.display_name;
  } else {
    out += '"';
    for (char c : mailbox.display_name) {
      if (c == '"' || c == '\\') out += '\\';
      out += c;
    }
    out += '"';
  }
  out += " <" + mailbox.address + ">";
  return out;
}

}  // namespace cairn::mail
