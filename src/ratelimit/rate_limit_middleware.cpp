#include "ratelimit/rate_limit_middleware.hpp"

#include <chrono>
#include <stdexcept>
#include <string>

#include "common/log.hpp"
#include "ratelimit/route_groups.hpp"

namespace cairn::ratelimit {
namespace {

std::int64_t SystemNowMs() {
  return std::chrono::duration_cast<std::chrono::milliseconds>(
             std::chrono::system_clock::now().time_since_epoch())
      .count();
}

// Every X-Forwarded-For value of the request, in order, joined by commas (a proxy may append a
// header line instead of extending the existing one).
std::string ForwardedFor(const http::Request& request) {
  std::string joined;
  if (request.raw == nullptr) return joined;
  const auto range = request.raw->equal_range("X-Forwarded-For");
  for (auto it = range.first; it != range.second; ++it) {
    if (!joined.empty()) joined += ',';
    joined.append(it->value());
  }
  return joined;
}

}  // namespace

http::Response TooManyRequests(int retry_after_seconds) {
  const std::string seconds = std::to_string(retry_after_seconds);
  Error error{ErrorCode::kRateLimited,
              "Too many requests, retry in " + seconds + " s",
              {},
              "RATE_LIMITED",
              {}};
  http::Response response = http::Response::FromError(error);
  response.SetHeader("Retry-After", seconds);
  return response;
}

RateLimitMiddleware::RateLimitMiddleware(RateLimitOptions options) : options_(std::move(options)) {
  if (!options_.disabled && !options_.limiter) {
    throw std::invalid_argument("RateLimitMiddleware needs a limiter unless disabled");
  }
  if (options_.window_seconds < 1) options_.window_seconds = 1;
  if (!options_.now_ms) options_.now_ms = SystemNowMs;
}

std::optional<http::Response> RateLimitMiddleware::Before(http::Request& request,
                                                          const http::RouteSpec&) {
  const TrustedProxies& proxies = options_.trusted_proxies;
  // X-Forwarded-For only counts when the peer is a trusted proxy: skip reading it otherwise.
  request.client_address = proxies.ClientAddress(
      request.client_address, proxies.empty() ? std::string() : ForwardedFor(request));
  if (options_.disabled) return std::nullopt;

  const auto route = ClassifyRoute(request.path, options_.window_seconds);
  if (!route) return std::nullopt;
  const std::string address_key = RateLimitKeyOf(request.client_address);
  std::string key;
  key.reserve(route->group.size() + 1 + address_key.size());
  key.append(route->group).append("|").append(address_key);

  const std::int64_t now_ms = options_.now_ms();
  Result<Decision> decision = options_.limiter->Hit(key, route->limit, now_ms);
  if (!decision.ok()) {
    LogFailure(decision.error(), now_ms);
    return std::nullopt;  // fail open (see the header)
  }
  if (decision->allowed) return std::nullopt;
  return TooManyRequests(decision->retry_after_seconds);
}

void RateLimitMiddleware::LogFailure(const Error& error, std::int64_t now_ms) {
  std::int64_t due = next_failure_log_ms_.load(std::memory_order_relaxed);
  if (now_ms < due) return;
  if (!next_failure_log_ms_.compare_exchange_strong(due, now_ms + kFailureLogIntervalMs)) return;
  log::Warn("rate limit: the limiter failed, letting requests through: " + error.message +
            (error.detail.empty() ? "" : " (" + error.detail + ")"));
}

UserRateLimitMiddleware::UserRateLimitMiddleware(UserRateLimitOptions options)
    : options_(std::move(options)), limiter_(MakeMemoryRateLimiter()) {
  if (options_.window_seconds < 1) options_.window_seconds = 1;
  if (!options_.now_ms) options_.now_ms = SystemNowMs;
}

std::optional<http::Response> UserRateLimitMiddleware::Before(http::Request& request,
                                                              const http::RouteSpec&) {
  if (options_.max_requests <= 0 || !options_.user_of) return std::nullopt;
  const std::string_view user = options_.user_of(request);
  if (user.empty()) return std::nullopt;
  std::string key("user|");
  key.append(user);
  const Limit limit{options_.max_requests, options_.window_seconds * 1000LL};
  // The memory limiter never fails.
  const Result<Decision> decision = limiter_->Hit(key, limit, options_.now_ms());
  if (!decision.ok() || decision->allowed) return std::nullopt;
  return TooManyRequests(decision->retry_after_seconds);
}

}  // namespace cairn::ratelimit
