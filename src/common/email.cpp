#include "common/email.hpp"

namespace cairn::email {
namespace {

constexpr std::size_t kMaxLabelLength = 63;
constexpr std::string_view kLocalSymbols = ".!#$%&'*+/=?^_`{|}~-";

bool IsAsciiAlnum(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9');
}

bool IsLocalChar(char c) {
  return IsAsciiAlnum(c) || kLocalSymbols.find(c) != std::string_view::npos;
}

bool IsLabel(std::string_view label) {
  if (label.empty() || label.size() > kMaxLabelLength) return false;
  if (label.front() == '-' || label.back() == '-') return false;
  for (const char c : label) {
    if (!IsAsciiAlnum(c) && c != '-') return false;
  }
  return true;
}

}  // namespace

bool IsValidAddress(std::string_view address) {
  if (address.size() > kMaxAddressLength) return false;
  const std::size_t at = address.find('@');
  if (at == 0 || at == std::string_view::npos) return false;
  for (const char c : address.substr(0, at)) {
    if (!IsLocalChar(c)) return false;
  }
  std::string_view domain = address.substr(at + 1);  // a second '@' fails as a label character
  while (true) {
    const std::size_t dot = domain.find('.');
    if (!IsLabel(domain.substr(0, dot))) return false;
    if (dot == std::string_view::npos) return true;
    domain.remove_prefix(dot + 1);
  }
}

}  // namespace cairn::email
