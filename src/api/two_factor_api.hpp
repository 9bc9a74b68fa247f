// /api/auth/two-factor/*: Better Auth's twoFactor plugin routes (D19) over
// auth::TwoFactorService, registered only with `auth.twoFactor: true`; plus TwoFactorSignIn, what
// password sign-in (auth_api.cpp) does about the second factor.
#pragma once

#include <string_view>

#include "api/session_layer.hpp"
#include "auth/two_factor_service.hpp"
#include "common/result.hpp"
#include "http/request.hpp"
#include "http/response.hpp"
#include "http/router.hpp"

namespace cairn::api {

// Better Auth's cookie names: the sign-in challenge and the trusted device.
inline constexpr std::string_view kTwoFactorCookie = "better-auth.two_factor";
inline constexpr std::string_view kTrustDeviceCookie = "better-auth.trust_device";

Status AddTwoFactorRoutes(http::Router& router, auth::TwoFactorService& two_factor,
                          const auth::SessionTokenCodec& codec, const SessionCookies& cookies);

// Two-factor's part in one password sign-in (auth_api.cpp): the gate that opens a challenge
// instead of a session, the challenge's answer, and the trusted device's renewed cookie.
class TwoFactorSignIn {
 public:
  // All four must outlive this object.
  TwoFactorSignIn(auth::TwoFactorService& two_factor, const auth::SessionTokenCodec& codec,
                  const SessionCookies& cookies, const http::Request& request)
      : two_factor_(two_factor), codec_(codec), cookies_(cookies), request_(request) {}

  // For AuthService::SignIn; it records the outcome here, so it must not outlive this object.
  auth::SecondFactorGate Gate();
  // `{twoFactorRedirect: true, twoFactorMethods}` and the signed two_factor cookie; no session.
  Result<http::Response> ChallengeAnswer(std::string_view user_id,
                                         std::string_view challenge) const;
  // Sets the trusted device's renewed cookie on a sign-in's answer, or clears one that no
  // longer counts.
  void Finish(http::Response& response) const;

 private:
  auth::TwoFactorService& two_factor_;
  const auth::SessionTokenCodec& codec_;
  const SessionCookies& cookies_;
  const http::Request& request_;
  auth::SignInGateOutcome outcome_;
};

}  // namespace cairn::api
