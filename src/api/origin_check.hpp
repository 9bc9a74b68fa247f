// Cross-site request forgery defence for cookie sessions, as Better Auth does it:
//   - a state-changing request (not GET/HEAD/OPTIONS) that carries a Cookie header must come
//     from a trusted origin (its Origin, else its Referer): 403 MISSING_OR_NULL_ORIGIN or
//     INVALID_ORIGIN otherwise;
//   - sign-in and sign-up are checked even without cookies when the client says it is a browser
//     (Sec-Fetch-* headers) or names an origin, so a cross-site form cannot sign a victim in
//     to the attacker's account. Plain API clients (no such headers) are not affected.
// Trusted origins: BASE_URL's origin and TRUSTED_ORIGINS.
#pragma once

#include <string>
#include <vector>

#include "http/middleware.hpp"

namespace cairn::api {

class OriginCheck final : public http::Middleware {
 public:
  // `trusted` holds origins such as `https://app.example.com` (scheme://host[:port]).
  explicit OriginCheck(std::vector<std::string> trusted) : trusted_(std::move(trusted)) {}
  std::optional<http::Response> Before(http::Request& request, const http::RouteSpec&) override;

 private:
  bool IsTrusted(std::string_view origin) const;
  std::vector<std::string> trusted_;
};

// The origin (scheme://host[:port]) of an absolute http(s) URL; empty when it is not one.
std::string OriginOf(std::string_view url);

}  // namespace cairn::api
