#include "api/origin_check.hpp"

#include <algorithm>

#include <boost/beast/websocket/rfc6455.hpp>

#include "auth/auth_errors.hpp"

namespace cairn::api {
namespace {

std::optional<http::Response> Refuse(std::string_view reason, std::string_view message) {
  return http::Response::FromError(auth::AuthError(ErrorCode::kForbidden, reason, message));
}

}  // namespace

std::string OriginOf(std::string_view url) {
  const std::size_t scheme_end = url.find("://");
  if (scheme_end == std::string_view::npos) return {};
  std::string scheme(url.substr(0, scheme_end));
  std::transform(scheme.begin(), scheme.end(), scheme.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  if (scheme != "http" && scheme != "https") return {};
  const std::size_t host_start = scheme_end + 3;
  const std::size_t host_end = url.find_first_of("/?#", host_start);
  std::string origin = scheme + "://";
  std::string host(url.substr(host_start, host_end == std::string_view::npos
                                              ? std::string_view::npos
                                              : host_end - host_start));
  if (host.empty() || host.find('@') != std::string::npos) return {};
  std::transform(host.begin(), host.end(), host.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return origin + host;
}

bool OriginCheck::IsTrusted(std::string_view origin) const {
  const std::string normalized = OriginOf(origin);
  if (normalized.empty()) return false;
  return std::find(trusted_.begin(), trusted_.end(), normalized) != trusted_.end();
}

bool OriginCheck::IsSignIn(std::string_view path) const {
  return std::find(sign_in_paths_.begin(), sign_in_paths_.end(), path) != sign_in_paths_.end();
}

std::optional<http::Response> OriginCheck::Before(http::Request& request, const http::RouteSpec&) {
  const std::string_view method = request.method;
  // A WebSocket upgrade is a GET that opens a channel the page can read: a cross-site page must
  // not open one with the user's cookie (cross-site WebSocket hijacking), so it is checked too.
  const bool websocket = method == "GET" && request.raw != nullptr &&
                         boost::beast::websocket::is_upgrade(*request.raw);
  if ((method == "GET" || method == "HEAD" || method == "OPTIONS") && !websocket) {
    return std::nullopt;
  }
  const bool has_cookie = !request.Header("Cookie").empty();
  std::string_view origin = request.Header("Origin");
  if (origin.empty()) origin = request.Header("Referer");
  bool must_check = has_cookie;
  if (!must_check && IsSignIn(request.path)) {
    const std::string_view site = request.Header("Sec-Fetch-Site");
    const std::string_view mode = request.Header("Sec-Fetch-Mode");
    const std::string_view dest = request.Header("Sec-Fetch-Dest");
    if (site == "cross-site" && mode == "navigate") {
      return Refuse("CROSS_SITE_NAVIGATION_LOGIN_BLOCKED",
                    "Cross-site navigation login blocked. This request appears to be a CSRF "
                    "attack.");
    }
    must_check = !site.empty() || !mode.empty() || !dest.empty() || !origin.empty();
  }
  if (!must_check) return std::nullopt;
  if (origin.empty() || origin == "null") {
    if (origin == "null" && request.Header("Sec-Fetch-Site") == "same-origin") return std::nullopt;
    return Refuse("MISSING_OR_NULL_ORIGIN", "Missing or null Origin");
  }
  if (!IsTrusted(origin)) return Refuse("INVALID_ORIGIN", "Invalid origin");
  return std::nullopt;
}

}  // namespace cairn::api
