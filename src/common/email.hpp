// The one check of an email address from users (record fields, config defaults, auth, mail
// addresses): the WHATWG HTML "valid email address" grammar browsers apply to
// <input type=email>, within the 254 characters an SMTP path allows (RFC 5321).
#pragma once

#include <cstddef>
#include <string_view>

namespace cairn::email {

inline constexpr std::size_t kMaxAddressLength = 254;

// 1*( atext / "." ) "@" label *( "." label ), where atext is [a-zA-Z0-9.!#$%&'*+/=?^_`{|}~-] and
// a label is 1–63 letters, digits and hyphens that neither starts nor ends with a hyphen.
bool IsValidAddress(std::string_view address);

}  // namespace cairn::email
