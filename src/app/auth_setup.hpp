// Builds the auth surface for the composition root: what lives across schema versions (tables,
// signing secret, mailer, counters), what one version's `auth` section builds (service, cookies,
// two-factor, OAuth, the session layer), the first admin (D14), and the rate-limit layers.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <vector>

#include "api/session_layer.hpp"
#include "app/settings.hpp"
#include "auth/auth_service.hpp"
#include "auth/oauth/oauth_service.hpp"
#include "auth/two_factor_service.hpp"
#include "common/result.hpp"
#include "config/model.hpp"
#include "db/database.hpp"
#include "http/middleware.hpp"
#include "http/router.hpp"
#include "mail/mail_queue.hpp"
#include "mail/mailer.hpp"
#include "ratelimit/rate_limiter.hpp"

namespace cairn::app {

// What auth needs that no config key decides, built once at startup and shared by every schema
// version: the secret (AUTH_SECRET or the one kept in the database), the durable mail queue,
// the rate-limit counters of per-email limits and code guesses, the resolved-session cache and
// the per-user limit (their counts survive a publish), and the erasure hooks.
struct AuthRuntime {
  std::string secret;
  // The durable queue over the transport (SMTP or the outbox); `mailer` is the same object.
  std::shared_ptr<mail::QueuedMailer> mail_queue;
  std::shared_ptr<mail::Mailer> mailer;
  auth::RateCheck rate_check;                             // empty with RATE_LIMIT_DISABLED
  std::shared_ptr<ratelimit::RateLimiter> guess_limiter;  // two-factor code guesses; idem
  std::shared_ptr<auth::SessionCache> session_cache;
  std::shared_ptr<http::Middleware> user_rate_limit;  // after the session layer
  std::vector<auth::AccountErasureHook> erasure_hooks;
  std::vector<std::string> trusted_origins;  // BASE_URL's origin and TRUSTED_ORIGINS
};

// What one version's `auth` section builds (AppSnapshot::auth). A version whose `auth` and app
// name equal the previous version's shares its services.
struct AuthServices {
  std::unique_ptr<auth::AuthService> service;
  std::unique_ptr<api::SessionCookies> cookies;
  std::unique_ptr<auth::TwoFactorService> two_factor;  // with `auth.twoFactor: true` only
  std::unique_ptr<auth::oauth::OAuthService> oauth;    // with the oauth strategy only
  // The version's layers after the rate limit: the CSRF origin check (its sign-in routes), the
  // session layer and the per-user limit (http::Router::SetMiddleware).
  http::MiddlewareChain middleware;
};

// Tables, secret, mailer (SMTP_* or the outbox, behind the durable mail queue), limiters.
// `erasure_hooks` untie other modules' rows from an erased account (AccountErasureHooks).
Result<std::unique_ptr<AuthRuntime>> SetUpAuthRuntime(
    const Settings& settings, db::Database& database,
    std::vector<auth::AccountErasureHook> erasure_hooks,
    std::function<std::int64_t()> rate_limit_now_ms);
// The tables a version's auth section needs beyond the base tables (the oauth strategy's), in
// the caller's schema transaction: at startup, and in the transaction that publishes it.
Status CreateAuthTables(db::Connection& connection, const config::AuthConfig& config);
// Every check the services of `config` make before they can be built, without building them:
// each configured OAuth provider has its credentials in the environment (D18), else a 400
// naming the provider's key path (`auth.strategies[1].providers[0]`).
Status CheckAuthServices(const Settings& settings, const config::AuthConfig& config);
// The services of one version: `name` is the app's (the authenticator label of two-factor).
Result<std::shared_ptr<AuthServices>> BuildAuthServices(const Settings& settings,
                                                        db::Database& database,
                                                        AuthRuntime& runtime,
                                                        const config::AuthConfig& config,
                                                        const std::string& name);
// AUTH_ADMIN_EMAIL / AUTH_ADMIN_PASSWORD: a verified admin when that email is not taken.
Status EnsureFirstAdmin(const Settings& settings, auth::AuthService& auth);
// The rate-limit layer (D16): counters in memory on SQLite, in the database on PostgreSQL.
// `now_ms` is the clock hits are counted on (empty: the system clock).
Result<std::shared_ptr<http::Middleware>> MakeRateLimitLayer(
    const Settings& settings, db::Database& database,
    std::function<std::int64_t()> now_ms = nullptr);
// The per-user limit (RATE_LIMIT_USER_MAX per window and node), after the session layer; off
// with RATE_LIMIT_DISABLED.
std::shared_ptr<http::Middleware> MakeUserRateLimitLayer(const Settings& settings,
                                                         std::function<std::int64_t()> now_ms);

}  // namespace cairn::app
