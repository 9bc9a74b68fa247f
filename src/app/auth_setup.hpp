// Builds the auth surface for the composition root: tables, signing secret, mailer, service,
// cookies, the first admin (D14), and the middleware that goes with it (rate limit, session).
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

namespace cairn::app {

struct AuthParts {
  // The durable queue over the transport (SMTP or the outbox); `mailer` is the same object.
  std::shared_ptr<mail::QueuedMailer> mail_queue;
  std::shared_ptr<mail::Mailer> mailer;
  std::unique_ptr<auth::AuthService> service;
  std::unique_ptr<api::SessionCookies> cookies;
  std::unique_ptr<auth::TwoFactorService> two_factor;  // with `auth.twoFactor: true` only
  std::unique_ptr<auth::oauth::OAuthService> oauth;    // with the oauth strategy only
};

// Tables, secret (AUTH_SECRET or one kept in the database), mailer (SMTP_* or the outbox, behind
// the durable mail queue).
// `erasure_hooks` untie other modules' rows from an erased account (AccountErasureHooks).
Result<AuthParts> SetUpAuth(const Settings& settings, const config::AuthConfig& config,
                            db::Database& database,
                            std::vector<auth::AccountErasureHook> erasure_hooks);
// Two-factor (D19) over `parts`: TOTP codes named after the app (`issuer`), with code guesses
// counted in memory on SQLite and in the database on PostgreSQL (unless RATE_LIMIT_DISABLED).
Status SetUpTwoFactor(const Settings& settings, db::Database& database, std::string issuer,
                      AuthParts& parts);
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
