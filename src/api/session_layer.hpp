// The session layer (D11, D17): resolves the caller from the session cookie or a Bearer token
// for routes that use a session, answers 401 before anything else for routes that require one,
// and re-sends the cookie when a session was extended. Handlers read the caller with CallerOf.
#pragma once

#include <memory>
#include <string>
#include <string_view>

#include "auth/auth_service.hpp"
#include "http/middleware.hpp"

namespace cairn::api {

inline constexpr std::string_view kSessionCookie = "better-auth.session_token";
// Holds the admin's own session while it impersonates someone (Better Auth's name).
inline constexpr std::string_view kAdminSessionCookie = "better-auth.admin_session";

// What the session layer leaves on the request.
struct CallerContext {
  auth::Caller caller;
  bool refreshed = false;
  bool from_cookie = false;
};

// The caller of a request, or null when it has no live session.
const auth::Caller* CallerOf(const http::Request& request);

// Set-Cookie headers for session tokens: HttpOnly, SameSite=Lax, Path=/, Secure on https.
class SessionCookies {
 public:
  SessionCookies(const auth::SessionTokenCodec& codec, bool secure)
      : codec_(codec), secure_(secure) {}
  // `remember` false gives a browser-session cookie (no Max-Age).
  void Set(http::Response& response, std::string_view name, std::string_view token,
           bool remember) const;
  void Clear(http::Response& response, std::string_view name) const;
  // Any other signed cookie (Better Auth's setSignedCookie), living `max_age_seconds`.
  void SetSigned(http::Response& response, std::string_view name, std::string_view value,
                 std::int64_t max_age_seconds) const;
  void SetSession(http::Response& response, const auth::IssuedSession& issued) const {
    Set(response, kSessionCookie, issued.token, issued.session.remember);
  }

 private:
  const auth::SessionTokenCodec& codec_;
  bool secure_;
};

class SessionLayer final : public http::Middleware {
 public:
  SessionLayer(auth::AuthService& auth, const SessionCookies& cookies)
      : auth_(auth), cookies_(cookies) {}
  std::optional<http::Response> Before(http::Request& request,
                                       const http::RouteSpec& route) override;
  void After(const http::Request& request, http::Response& response) override;

 private:
  auth::AuthService& auth_;
  const SessionCookies& cookies_;
};

}  // namespace cairn::api
