// What the two-factor flows (two_factor_service.cpp, two_factor_sign_in.cpp) share: the
// purposes and value formats of their verification rows, and their errors.
#pragma once

#include <string>
#include <string_view>
#include <utility>

#include "auth/auth_errors.hpp"

namespace cairn::auth::two_factor {

// Purposes of the `_cairn_auth_verifications` rows two-factor keeps.
inline constexpr std::string_view kChallengePurpose = "two-factor-challenge";
inline constexpr std::string_view kTrustPurpose = "trust-device";
inline constexpr std::string_view kOtpPurpose = "two-factor-otp";
// Keeps the derived key apart from any other use of the auth secret.
inline constexpr std::string_view kSealPurpose = "two-factor";

inline Error InvalidTwoFactorCookie() {
  return AuthError(ErrorCode::kUnauthorized, "INVALID_TWO_FACTOR_COOKIE",
                   "Invalid two factor cookie");
}
inline Error InvalidCode() {
  return AuthError(ErrorCode::kUnauthorized, "INVALID_CODE", "Invalid code");
}
inline Error TotpNotEnabled() {
  return AuthError(ErrorCode::kValidation, "TOTP_NOT_ENABLED", "TOTP not enabled");
}
inline Error TwoFactorNotEnabled() {
  return AuthError(ErrorCode::kValidation, "TWO_FACTOR_NOT_ENABLED", "Two factor isn't enabled");
}
inline Error TooManyAttempts() {
  return AuthError(ErrorCode::kValidation, "TOO_MANY_ATTEMPTS_REQUEST_NEW_CODE",
                   "Too many attempts. Please request a new code.");
}
inline Error SealBroken() {
  // Only a changed AUTH_SECRET (or an altered row) gets here; the client cannot fix it.
  return Error::Internal("a sealed two-factor value cannot be opened: was AUTH_SECRET changed?");
}

// "<attempts>:<remember 0|1>", the value of a challenge row (a mailed code's is
// "<attempts>:<sealed code>").
inline std::string ChallengeValue(bool remember, int attempts) {
  return std::to_string(attempts) + ":" + (remember ? "1" : "0");
}

// A leading count before ':' and the rest ("3:abc" → 3, "abc"); count -1 when malformed.
inline std::pair<int, std::string> SplitCount(std::string_view value) {
  const std::size_t colon = value.find(':');
  if (colon == std::string_view::npos || colon == 0 || colon > 3) return {-1, std::string(value)};
  int count = 0;
  for (char c : value.substr(0, colon)) {
    if (c < '0' || c > '9') return {-1, std::string(value)};
    count = count * 10 + (c - '0');
  }
  return {count, std::string(value.substr(colon + 1))};
}

}  // namespace cairn::auth::two_factor
