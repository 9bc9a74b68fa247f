// Cross-site request forgery defence for cookie sessions, as Better Auth does it:
//   - a state-changing request (not GET/HEAD/OPTIONS) that carries a Cookie header must come
//     from a trusted origin (its Origin, else its Referer): 403 MISSING_OR_NULL_ORIGIN or
//     INVALID_ORIGIN otherwise;
//   - the sign-in and sign-up routes it is given (those that exist: PasswordSignInPaths) are
//     checked even without cookies when the client says it is a browser (Sec-Fetch-* headers)
//     or names an origin, so a cross-site form cannot sign a victim in to the attacker's
//     account. Plain API clients (no such headers) are not affected.
// Trusted origins: BASE_URL's origin and TRUSTED_ORIGINS.
#pragma once

#include <string>
#include <vector>

#include "http/middleware.hpp"

namespace cairn::api {

class OriginCheck final : public http::Middleware {
 public:
  // `trusted` holds origins such as `https://app.example.com` (scheme://host[:port]);
  // `sign_in_paths` the full paths of the routes that start a session without one.
  OriginCheck(std::vector<std::string> trusted, std::vector<std::string> sign_in_paths)
      : trusted_(std::move(trusted)), sign_in_paths_(std::move(sign_in_paths)) {}
  std::optional<http::Response> Before(http::Request& request, const http::RouteSpec&) override;

 private:
  bool IsTrusted(std::string_view origin) const;
  bool IsSignIn(std::string_view path) const;
  std::vector<std::string> trusted_;
  std::vector<std::string> sign_in_paths_;
};

// The origin (scheme://host[:port]) of an absolute http(s) URL; empty when it is not one.
std::string OriginOf(std::string_view url);

}  // namespace cairn::api
