// Rate limiting (D16), the middleware after the error envelope and before the session
// (http/middleware.hpp). It resolves the client address of every routed request (TRUSTED_PROXIES)
// and writes it to Request::client_address, so later layers see and log the real client; then it
// counts the request against its route group (route_groups.hpp) and answers 429 RATE_LIMITED
// with Retry-After over the limit.
//
// When the limiter fails (the database is unreachable) the request is let through and a warning
// is logged at most every kFailureLogIntervalMs: the limiter guards against abuse, and refusing
// every sign-in while the database blips would turn a partial outage into a full one (requests
// that need the database fail on their own anyway).
#pragma once

#include <atomic>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>

#include "http/middleware.hpp"
#include "ratelimit/client_address.hpp"
#include "ratelimit/limits.hpp"
#include "ratelimit/rate_limiter.hpp"

namespace cairn::ratelimit {

struct RateLimitOptions {
  std::shared_ptr<RateLimiter> limiter;  // required unless disabled
  TrustedProxies trusted_proxies;
  int window_seconds = kDefaultWindowSeconds;  // RATE_LIMIT_WINDOW_SECONDS (≥ 1)
  bool disabled = false;                       // RATE_LIMIT_DISABLED=true: never limit
  // The clock hits are counted on (Unix epoch milliseconds; shared by every node). Empty: the
  // system clock.
  std::function<std::int64_t()> now_ms;
};

// The 429 RATE_LIMITED envelope with Retry-After (seconds ≥ 1).
http::Response TooManyRequests(int retry_after_seconds);

// Limits each signed-in user per node (D16 keys by address only; one member with many
// addresses, or behind one proxy, could otherwise degrade a node): the middleware after the
// session layer. RATE_LIMIT_USER_MAX requests per RATE_LIMIT_WINDOW_SECONDS; in memory, since a
// node protects its own capacity. Requests without a caller pass.
struct UserRateLimitOptions {
  int max_requests = kDefaultUserMaxRequests;  // ≤ 0: off
  int window_seconds = kDefaultWindowSeconds;
  std::function<std::int64_t()> now_ms;  // empty: the system clock
  // The user id of a request's caller, or empty (the session layer's CallerOf, given by the
  // composition root: ratelimit knows nothing of sessions).
  std::function<std::string_view(const http::Request&)> user_of;
};

class UserRateLimitMiddleware final : public http::Middleware {
 public:
  explicit UserRateLimitMiddleware(UserRateLimitOptions options);
  std::optional<http::Response> Before(http::Request& request, const http::RouteSpec&) override;

 private:
  UserRateLimitOptions options_;
  std::unique_ptr<RateLimiter> limiter_;
};

class RateLimitMiddleware final : public http::Middleware {
 public:
  // A missing limiter while not disabled is a wiring bug: std::invalid_argument.
  explicit RateLimitMiddleware(RateLimitOptions options);

  std::optional<http::Response> Before(http::Request& request, const http::RouteSpec&) override;

 private:
  void LogFailure(const Error& error, std::int64_t now_ms);

  RateLimitOptions options_;
  std::atomic<std::int64_t> next_failure_log_ms_{0};
};

}  // namespace cairn::ratelimit
