// What the analytics e2e suites share: the admin they sign in, the units of the test's clock,
// real browsers' user agents (parsed by uap-core into device, browser and OS), and `At`, an ISO
// time as the clock's milliseconds.
#pragma once

#include <cstdint>
#include <stdexcept>
#include <string>

#include "common/time.hpp"

namespace cairn::test {

inline constexpr const char* kAnalyticsAdminEmail = "root@example.com";
inline constexpr const char* kAnalyticsAdminPassword = "root password 1";

inline constexpr std::int64_t kMinute = 60'000;
inline constexpr std::int64_t kHour = 60 * kMinute;
inline constexpr std::int64_t kDay = 24 * kHour;

inline constexpr const char* kChromeWindows =
    "Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) "
    "Chrome/120.0.0.0 Safari/537.36";
inline constexpr const char* kSafariIphone =
    "Mozilla/5.0 (iPhone; CPU iPhone OS 17_0 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like "
    "Gecko) Version/17.0 Mobile/15E148 Safari/604.1";
inline constexpr const char* kFirefoxLinux =
    "Mozilla/5.0 (X11; Linux x86_64; rv:121.0) Gecko/20100101 Firefox/121.0";
inline constexpr const char* kSafariIpad =
    "Mozilla/5.0 (iPad; CPU OS 17_0 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) "
    "Version/17.0 Mobile/15E148 Safari/604.1";
inline constexpr const char* kGooglebot =
    "Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)";

// Milliseconds since the epoch of `iso` (a test's own constant: a bad one throws).
inline std::int64_t At(const std::string& iso) {
  const auto millis = time::ParseIso(iso);
  if (!millis) throw std::invalid_argument("bad time " + iso);
  return *millis;
}

}  // namespace cairn::test
