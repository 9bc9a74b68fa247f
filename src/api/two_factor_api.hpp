// /api/auth/two-factor/*: Better Auth's twoFactor plugin routes (D19) over
// auth::TwoFactorService, registered only with `auth.twoFactor: true`; plus the two pieces that
// sign-in (auth_api.cpp) uses: the gate that opens a challenge instead of a session, and the
// challenge's answer.
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

// For sign-in: asks `two_factor` whether this request's user needs a second factor (its
// trust_device cookie may say no). `request` must outlive the gate's use.
auth::SecondFactorGate TwoFactorSignInGate(auth::TwoFactorService& two_factor,
                                           const auth::SessionTokenCodec& codec,
                                           const http::Request& request);
// `{twoFactorRedirect: true, twoFactorMethods}` and the signed two_factor cookie; no session.
Result<http::Response> TwoFactorChallengeAnswer(auth::TwoFactorService& two_factor,
                                                const SessionCookies& cookies,
                                                std::string_view user_id,
                                                std::string_view challenge);

}  // namespace cairn::api
