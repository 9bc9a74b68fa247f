// Error: the one failure type. The client message and the logged detail are separate.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace cairn {

enum class ErrorCode {
  kValidation,       // 400 VALIDATION_ERROR
  kUnauthorized,     // 401 UNAUTHORIZED
  kForbidden,        // 403 FORBIDDEN
  kNotFound,         // 404 NOT_FOUND
  kConflict,         // 409 CONFLICT
  kPayloadTooLarge,  // 413 PAYLOAD_TOO_LARGE
  kHeadersTooLarge,  // 431 VALIDATION_ERROR
  kRateLimited,      // 429 RATE_LIMITED
  kInternal,         // 500 INTERNAL_ERROR
  kUnavailable,      // 503 SERVICE_UNAVAILABLE
};

struct FieldError {
  std::string field;
  std::string message;
};

struct Error {
  ErrorCode code = ErrorCode::kInternal;
  std::string message;             // safe to show to the client
  std::vector<FieldError> errors;  // field-level failures (400)
  std::string reason;              // legacy `error` member (for example Better Auth's reason)
  std::string detail;              // logged only, never sent
  int http_status = 0;  // non-zero: replaces the code's status (Better Auth's 422 on sign-up)
  int retry_after_seconds = 0;  // non-zero: the answer's Retry-After (a 503 worth retrying)

  static Error Validation(std::string message, std::vector<FieldError> errors = {});
  static Error NotFound(std::string message = "Not found");
  static Error Unauthorized(std::string message = "Authentication required");
  static Error Forbidden(std::string message = "Forbidden");
  static Error Conflict(std::string message);
  static Error PayloadTooLarge(std::string message);
  static Error Internal(std::string detail);
  static Error Unavailable(std::string message, std::string detail = {});
};

// HTTP status for an error code.
int HttpStatus(ErrorCode code);
// The envelope's `code` member for an error code.
std::string_view CodeName(ErrorCode code);

}  // namespace cairn
