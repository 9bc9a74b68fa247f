// The middleware: client address resolution, 429 envelope with Retry-After, disabled mode and
// failing open.
#include "ratelimit/rate_limit_middleware.hpp"

#include <atomic>
#include <string>

#include <gtest/gtest.h>
#include <boost/json/parse.hpp>

namespace cairn::ratelimit {
namespace {

namespace beast_http = boost::beast::http;

// A limiter that always fails, counting its calls.
class FailingLimiter final : public RateLimiter {
 public:
  Result<Decision> Hit(std::string_view, const Limit&, std::int64_t) override {
    ++calls;
    return Error::Unavailable("database down", "connection refused");
  }
  std::atomic<int> calls{0};
};

class RateLimitMiddlewareTest : public ::testing::Test {
 protected:
  RateLimitMiddleware Make(TrustedProxies proxies = {}, bool disabled = false,
                           std::shared_ptr<RateLimiter> limiter = nullptr) {
    RateLimitOptions options;
    options.limiter =
        limiter ? std::move(limiter) : std::shared_ptr<RateLimiter>(MakeMemoryRateLimiter());
    options.trusted_proxies = std::move(proxies);
    options.disabled = disabled;
    options.now_ms = [this] { return now_ms_; };
    return RateLimitMiddleware(std::move(options));
  }

  // Sends one request through Before(); returns the short-circuit response, if any.
  std::optional<http::Response> Send(RateLimitMiddleware& middleware, std::string path,
                                     std::string peer, std::vector<std::string> forwarded = {}) {
    raw_ = http::BeastRequest{beast_http::verb::post, path, 11};
    for (const auto& value : forwarded) raw_.insert("X-Forwarded-For", value);
    request_ = http::Request{};
    request_.raw = &raw_;
    request_.method = "POST";
    request_.path = std::move(path);
    request_.client_address = std::move(peer);
    return middleware.Before(request_, route_);
  }

  // Sends `count` requests and returns how many went through.
  int Through(RateLimitMiddleware& middleware, int count, const std::string& path,
              const std::string& peer, std::vector<std::string> forwarded = {}) {
    int through = 0;
    for (int i = 0; i < count; ++i) {
      if (!Send(middleware, path, peer, forwarded)) ++through;
    }
    return through;
  }

  static TrustedProxies Proxies(std::string_view text) {
    return std::move(TrustedProxies::Parse(text)).value();
  }

  std::int64_t now_ms_ = 1'700'000'000'000;
  http::BeastRequest raw_;
  http::Request request_;
  http::RouteSpec route_;
};

TEST_F(RateLimitMiddlewareTest, SignInIsLimitedWithEnvelopeAndRetryAfter) {
  RateLimitMiddleware middleware = Make();
  EXPECT_EQ(Through(middleware, 20, "/api/auth/sign-in/email", "203.0.113.7"), 20);
  const auto refused = Send(middleware, "/api/auth/sign-in/email", "203.0.113.7");
  ASSERT_TRUE(refused);
  EXPECT_EQ(refused->status, 429);
  const auto body = boost::json::parse(refused->body).as_object();
  EXPECT_EQ(body.at("success"), false);
  EXPECT_EQ(body.at("code"), "RATE_LIMITED");
  EXPECT_EQ(body.at("error"), "RATE_LIMITED");
  std::string retry_after;
  for (const auto& [name, value] : refused->headers) {
    if (name == "Retry-After") retry_after = value;
  }
  ASSERT_FALSE(retry_after.empty());
  const int seconds = std::stoi(retry_after);
  EXPECT_GE(seconds, 1);
  EXPECT_EQ(body.at("message").as_string(), "Too many requests, retry in " + retry_after + " s");
  // Other clients and other groups are unaffected.
  EXPECT_FALSE(Send(middleware, "/api/auth/sign-in/email", "203.0.113.8"));
  EXPECT_FALSE(Send(middleware, "/api/auth/sign-up/email", "203.0.113.7"));
  // After Retry-After the client may try again.
  now_ms_ += seconds * 1000LL;
  EXPECT_FALSE(Send(middleware, "/api/auth/sign-in/email", "203.0.113.7"));
}

TEST_F(RateLimitMiddlewareTest, GroupLimits) {
  RateLimitMiddleware middleware = Make();
  EXPECT_EQ(Through(middleware, 15, "/api/auth/forget-password", "192.0.2.1"), 10);
  EXPECT_EQ(Through(middleware, 120, "/api/auth/get-session", "192.0.2.1"), 100);
  EXPECT_EQ(Through(middleware, 15, "/api/admin/tables", "192.0.2.1"), 10);
  now_ms_ += 2000;  // admin: per second, whatever the window
  EXPECT_EQ(Through(middleware, 15, "/api/admin/tables", "192.0.2.1"), 10);
  EXPECT_EQ(Through(middleware, 500, "/api/health", "192.0.2.1"), 500);
}

TEST_F(RateLimitMiddlewareTest, SpoofedForwardedForFromUntrustedPeerIsIgnored) {
  RateLimitMiddleware middleware = Make(Proxies("10.0.0.0/8"));
  for (int i = 0; i < 20; ++i) {
    // A new made-up address every time does not give a new budget.
    EXPECT_FALSE(Send(middleware, "/api/auth/sign-in/email", "203.0.113.7",
                      {"198.51.100." + std::to_string(i)}));
    EXPECT_EQ(request_.client_address, "203.0.113.7");
  }
  EXPECT_TRUE(Send(middleware, "/api/auth/sign-in/email", "203.0.113.7", {"198.51.100.99"}));
}

TEST_F(RateLimitMiddlewareTest, TrustedProxyForwardsTheClient) {
  RateLimitMiddleware middleware = Make(Proxies("10.0.0.0/8"));
  EXPECT_EQ(
      Through(middleware, 25, "/api/auth/sign-in/email", "10.0.0.1", {"1.1.1.1, 203.0.113.7"}), 20);
  EXPECT_EQ(request_.client_address, "203.0.113.7");
  // Another client behind the same proxy has its own budget; the spoofed left part is ignored.
  EXPECT_EQ(
      Through(middleware, 20, "/api/auth/sign-in/email", "10.0.0.1", {"203.0.113.7, 203.0.113.8"}),
      20);
  // Several header lines are one list.
  EXPECT_TRUE(Send(middleware, "/api/auth/sign-in/email", "10.0.0.1",
                   {"198.51.100.1", "203.0.113.7", "10.0.0.2"}));
  EXPECT_EQ(request_.client_address, "203.0.113.7");
}

TEST_F(RateLimitMiddlewareTest, DisabledResolvesTheClientButNeverLimits) {
  RateLimitMiddleware middleware = Make(Proxies("10.0.0.1"), /*disabled=*/true);
  EXPECT_EQ(Through(middleware, 100, "/api/auth/sign-in/email", "10.0.0.1", {"203.0.113.9"}), 100);
  EXPECT_EQ(request_.client_address, "203.0.113.9");
  RateLimitOptions options;  // no limiter needed when disabled
  options.disabled = true;
  EXPECT_NO_THROW(RateLimitMiddleware{options});
  options.disabled = false;
  EXPECT_THROW(RateLimitMiddleware{options}, std::invalid_argument);
}

TEST_F(RateLimitMiddlewareTest, FailingLimiterLetsRequestsThrough) {
  auto failing = std::make_shared<FailingLimiter>();
  RateLimitMiddleware middleware = Make({}, false, failing);
  EXPECT_EQ(Through(middleware, 50, "/api/auth/sign-in/email", "203.0.113.7"), 50);
  EXPECT_EQ(failing->calls.load(), 50);
  EXPECT_EQ(Through(middleware, 5, "/api/health", "203.0.113.7"), 5);
  EXPECT_EQ(failing->calls.load(), 50);  // unlimited routes never reach the limiter
}

TEST_F(RateLimitMiddlewareTest, WindowSecondsScalesTheWindow) {
  RateLimitOptions options;
  options.limiter = MakeMemoryRateLimiter();
  options.window_seconds = 2;
  options.now_ms = [this] { return now_ms_; };
  RateLimitMiddleware middleware(std::move(options));
  EXPECT_EQ(Through(middleware, 25, "/api/auth/sign-in/email", "203.0.113.7"), 20);
  now_ms_ += 4000;  // two 2 s windows later
  EXPECT_EQ(Through(middleware, 25, "/api/auth/sign-in/email", "203.0.113.7"), 20);
}

}  // namespace
}  // namespace cairn::ratelimit
