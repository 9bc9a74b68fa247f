#include "common/error.hpp"

namespace cairn {

Error Error::Validation(std::string message, std::vector<FieldError> errors) {
  return Error{ErrorCode::kValidation, std::move(message), std::move(errors), {}, {}};
}
Error Error::NotFound(std::string message) {
  return Error{ErrorCode::kNotFound, std::move(message), {}, {}, {}};
}
Error Error::Unauthorized(std::string message) {
  return Error{ErrorCode::kUnauthorized, std::move(message), {}, {}, {}};
}
Error Error::Forbidden(std::string message) {
  return Error{ErrorCode::kForbidden, std::move(message), {}, {}, {}};
}
Error Error::Conflict(std::string message) {
  return Error{ErrorCode::kConflict, std::move(message), {}, {}, {}};
}
Error Error::PayloadTooLarge(std::string message) {
  return Error{ErrorCode::kPayloadTooLarge, std::move(message), {}, {}, {}};
}
Error Error::Internal(std::string detail) {
  return Error{ErrorCode::kInternal, "An unexpected error occurred", {}, {}, std::move(detail)};
}
Error Error::Unavailable(std::string message, std::string detail) {
  return Error{ErrorCode::kUnavailable, std::move(message), {}, {}, std::move(detail)};
}

int HttpStatus(ErrorCode code) {
  switch (code) {
    case ErrorCode::kValidation:
      return 400;
    case ErrorCode::kUnauthorized:
      return 401;
    case ErrorCode::kForbidden:
      return 403;
    case ErrorCode::kNotFound:
      return 404;
    case ErrorCode::kConflict:
      return 409;
    case ErrorCode::kPayloadTooLarge:
      return 413;
    case ErrorCode::kHeadersTooLarge:
      return 431;
    case ErrorCode::kRateLimited:
      return 429;
    case ErrorCode::kInternal:
      return 500;
    case ErrorCode::kUnavailable:
      return 503;
  }
  return 500;
}

std::string_view CodeName(ErrorCode code) {
  switch (code) {
    case ErrorCode::kValidation:
      return "VALIDATION_ERROR";
    case ErrorCode::kUnauthorized:
      return "UNAUTHORIZED";
    case ErrorCode::kForbidden:
      return "FORBIDDEN";
    case ErrorCode::kNotFound:
      return "NOT_FOUND";
    case ErrorCode::kConflict:
      return "CONFLICT";
    case ErrorCode::kPayloadTooLarge:
      return "PAYLOAD_TOO_LARGE";
    case ErrorCode::kHeadersTooLarge:
      return "VALIDATION_ERROR";
    case ErrorCode::kRateLimited:
      return "RATE_LIMITED";
    case ErrorCode::kInternal:
      return "INTERNAL_ERROR";
    case ErrorCode::kUnavailable:
      return "SERVICE_UNAVAILABLE";
  }
  return "INTERNAL_ERROR";
}

}  // namespace cairn
