// Which D16 group a request path belongs to, and that group's limit.
#pragma once

#include <optional>
#include <string_view>

#include "ratelimit/rate_limiter.hpp"

namespace cairn::ratelimit {

struct RouteLimit {
  std::string_view group;  // `sign-in`, `sign-up`, `password-reset`, `one-time-code`,
                           // `admin`, `auth`, `analytics-collect`
  Limit limit;
};

// The group of a (percent-decoded) request path, or nullopt when the path is not limited:
//   /api/auth/sign-in[/…]                                 sign-in         20 per window
//   /api/auth/sign-up[/…]                                 sign-up         20 per window
//   /api/auth/request-password-reset[/…],
//   /api/auth/forget-password[/…], /api/auth/reset-password…   password-reset  10 per window
//   /api/auth/sign-in/email-otp, /api/auth/sign-in/magic-link,
//   /api/auth/email-otp[/…], /api/auth/magic-link[/…],
//   /api/auth/forget-password/email-otp                   one-time-code   10 per window
//   /api/auth/admin[/…], /api/admin[/…], /api/activity[/…],
//   /mcp                                                  admin           10 per second
//   any other /api/auth[/…]                               auth           100 per window
//   /api/analytics/collect                                analytics-collect  600 per window
// `window_seconds` (RATE_LIMIT_WINDOW_SECONDS) is the window of every group but admin, whose
// window is always kAdminWindowMs.
std::optional<RouteLimit> ClassifyRoute(std::string_view path, int window_seconds);

}  // namespace cairn::ratelimit
