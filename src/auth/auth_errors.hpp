// Errors of the auth surface (D12): our envelope code, with Better Auth's reason in `error` and
// its message, so that its client shows what it would show against Better Auth.
#pragma once

#include <string>
#include <string_view>

#include "common/error.hpp"

namespace cairn::auth {

inline Error AuthError(ErrorCode code, std::string_view reason, std::string_view message) {
  Error error;
  error.code = code;
  error.reason = std::string(reason);
  error.message = std::string(message);
  return error;
}

// Unknown email and wrong password give exactly this, so accounts cannot be enumerated.
inline Error InvalidCredentials() {
  return AuthError(ErrorCode::kUnauthorized, "INVALID_EMAIL_OR_PASSWORD",
                   "Invalid email or password");
}
inline Error InvalidToken() {
  return AuthError(ErrorCode::kValidation, "INVALID_TOKEN", "Invalid token");
}
inline Error UserNotFound() {
  return AuthError(ErrorCode::kNotFound, "USER_NOT_FOUND", "User not found");
}
inline Error Banned() {
  return AuthError(ErrorCode::kForbidden, "BANNED_USER",
                   "You have been banned from this application. Please contact support if you "
                   "believe this is an error.");
}
// D19a: the owner asked for the account to be erased; no session is issued until the purge.
inline Error DeletionScheduled() {
  return AuthError(ErrorCode::kForbidden, "ACCOUNT_DELETION_SCHEDULED",
                   "This account is scheduled for deletion");
}
inline Error FieldFailure(std::string_view reason, std::string_view field,
                          std::string_view message) {
  Error error =
      Error::Validation(std::string(message), {{std::string(field), std::string(message)}});
  error.reason = std::string(reason);
  return error;
}

}  // namespace cairn::auth
