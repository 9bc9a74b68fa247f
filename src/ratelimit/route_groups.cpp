#include "ratelimit/route_groups.hpp"

#include "ratelimit/limits.hpp"

namespace cairn::ratelimit {
namespace {

// True when `path` is `prefix` or continues it with a new segment.
bool UnderSegment(std::string_view path, std::string_view prefix) {
  return path.starts_with(prefix) && (path.size() == prefix.size() || path[prefix.size()] == '/');
}

}  // namespace

std::optional<RouteLimit> ClassifyRoute(std::string_view path, int window_seconds) {
  const std::int64_t window_ms = static_cast<std::int64_t>(window_seconds) * 1000;
  const auto per_window = [&](std::string_view group, int max) {
    return RouteLimit{group, Limit{max, window_ms}};
  };
  // Admin endpoints (interface.md "Authentication" rule 7): schema editing, the audit log and
  // the MCP server (admins only; a tool call counts once, the route it runs is not counted).
  if (UnderSegment(path, "/api/admin") || UnderSegment(path, "/api/activity") ||
      UnderSegment(path, "/mcp")) {
    return RouteLimit{"admin", Limit{kAdminPerWindow, kAdminWindowMs}};
  }
  if (path == "/api/analytics/collect") {
    return per_window("analytics-collect", kAnalyticsCollectPerWindow);
  }
  if (!UnderSegment(path, "/api/auth")) return std::nullopt;
  const std::string_view rest = path.substr(std::string_view("/api/auth").size());
  if (UnderSegment(rest, "/admin")) {
    return RouteLimit{"admin", Limit{kAdminPerWindow, kAdminWindowMs}};
  }
  if (UnderSegment(rest, "/sign-in/email-otp") || UnderSegment(rest, "/sign-in/magic-link") ||
      UnderSegment(rest, "/email-otp") || UnderSegment(rest, "/magic-link") ||
      UnderSegment(rest, "/forget-password/email-otp")) {
    return per_window("one-time-code", kOneTimeCodePerWindow);
  }
  if (UnderSegment(rest, "/sign-in")) return per_window("sign-in", kSignInPerWindow);
  if (UnderSegment(rest, "/sign-up")) return per_window("sign-up", kSignUpPerWindow);
  if (UnderSegment(rest, "/request-password-reset") || UnderSegment(rest, "/forget-password") ||
      rest.starts_with("/reset-password")) {
    return per_window("password-reset", kPasswordResetPerWindow);
  }
  return per_window("auth", kAuthPerWindow);
}

}  // namespace cairn::ratelimit
