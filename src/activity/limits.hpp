// Activity log constants (D50). The page bounds are the list's; stored text is bounded so that
// a client cannot grow an entry without limit through its User-Agent header.
#pragma once

#include <cstddef>

namespace cairn::activity {

inline constexpr int kDefaultPageSize = 50;
inline constexpr int kMaxPageSize = 100;

// Longer User-Agent values are cut (as the auth tables cut them).
inline constexpr std::size_t kMaxUserAgentLength = 512;
// An IPv6 address with a zone index fits well within this.
inline constexpr std::size_t kMaxIpAddressLength = 64;

}  // namespace cairn::activity
