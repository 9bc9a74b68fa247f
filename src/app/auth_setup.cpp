#include "app/auth_setup.hpp"

#include <algorithm>
#include <filesystem>

#include "api/session_layer.hpp"
#include "auth/auth_schema.hpp"
#include "common/log.hpp"
#include "common/time.hpp"
#include "ratelimit/rate_limit_middleware.hpp"

namespace cairn::app {

Result<AuthParts> SetUpAuth(const Settings& settings, const config::AuthConfig& config,
                            db::Database& database,
                            std::vector<auth::AccountErasureHook> erasure_hooks) {
  CAIRN_TRY(auth::EnsureAuthSchema(database));
  std::string secret = settings.auth_secret;
  if (secret.empty()) {
    CAIRN_ASSIGN_OR_RETURN(secret, auth::LoadOrCreateSecret(database));
    log::Info("AUTH_SECRET is not set: using the generated secret kept in the database");
  }
  mail::MailSettings mail_settings;
  mail_settings.smtp_host = settings.smtp_host;
  mail_settings.smtp_port = settings.smtp_port;
  mail_settings.smtp_user = settings.smtp_user;
  mail_settings.smtp_pass = settings.smtp_pass;
  if (!settings.smtp_from.empty()) mail_settings.from = settings.smtp_from;
  mail_settings.outbox_dir = (std::filesystem::path(settings.data_dir) / "outbox").string();
  CAIRN_ASSIGN_OR_RETURN(std::unique_ptr<mail::Mailer> transport, mail::MakeMailer(mail_settings));
  CAIRN_TRY(mail::EnsureMailQueueSchema(database));
  mail::MailQueueOptions queue_options;
  CAIRN_ASSIGN_OR_RETURN(queue_options.from, mail::ParseMailbox(mail_settings.from, "SMTP_FROM"));

  AuthParts parts;
  parts.mail_queue = std::make_shared<mail::QueuedMailer>(database, std::move(transport),
                                                          std::move(queue_options));
  parts.mailer = parts.mail_queue;
  auth::AuthOptions options{config, std::move(secret), settings.base_url, std::move(erasure_hooks)};
  options.deletion_grace_millis =
      static_cast<std::int64_t>(settings.account_deletion_grace_days) * auth::kMillisPerDay;
  if (!settings.rate_limit_disabled) {
    // The per-email limits of magic links and email codes, on the counters the D16 layer uses
    // (shared by every node on PostgreSQL).
    std::shared_ptr<ratelimit::RateLimiter> limiter;
    if (database.dialect().shared_server()) {
      CAIRN_ASSIGN_OR_RETURN(limiter, ratelimit::MakeDatabaseRateLimiter(database));
    } else {
      limiter = ratelimit::MakeMemoryRateLimiter();
    }
    options.rate_check = [limiter](std::string_view key, int max,
                                   std::int64_t window_ms) -> Result<int> {
      CAIRN_ASSIGN_OR_RETURN(auto decision, limiter->Hit(key, {max, window_ms}, time::NowMillis()));
      return decision.allowed ? 0 : std::max(1, decision.retry_after_seconds);
    };
  }
  parts.service = std::make_unique<auth::AuthService>(database, std::move(options), parts.mailer);
  parts.cookies = std::make_unique<api::SessionCookies>(parts.service->codec(),
                                                        settings.base_url.starts_with("https://"));
  if (config.HasStrategy("oauth")) {
    // D18: every configured provider's credentials, or a startup error naming them.
    const auto lookup = [&](const std::string& name) -> std::optional<std::string> {
      return settings.env ? settings.env(name.c_str()) : std::nullopt;
    };
    CAIRN_ASSIGN_OR_RETURN(auto providers,
                           auth::oauth::ConfiguredProviders(
                               config, lookup, {settings.github_url, settings.github_api_url}));
    CAIRN_TRY(auth::oauth::EnsureOAuthSchema(database));
    parts.oauth =
        std::make_unique<auth::oauth::OAuthService>(database, *parts.service, std::move(providers));
  }
  if (Status purged = parts.service->PurgeExpired(); !purged.ok()) {
    log::Warn("cannot purge expired sessions: " + purged.error().detail);
  }
  return parts;
}

Status SetUpTwoFactor(const Settings& settings, db::Database& database, std::string issuer,
                      AuthParts& parts) {
  auth::TwoFactorOptions options;
  options.issuer = std::move(issuer);
  if (!settings.rate_limit_disabled) {
    if (database.dialect().shared_server()) {
      CAIRN_ASSIGN_OR_RETURN(options.limiter, ratelimit::MakeDatabaseRateLimiter(database));
    } else {
      options.limiter = ratelimit::MakeMemoryRateLimiter();
    }
  }
  parts.two_factor = std::make_unique<auth::TwoFactorService>(*parts.service, database,
                                                              parts.mailer, std::move(options));
  return {};
}

Status EnsureFirstAdmin(const Settings& settings, auth::AuthService& auth) {
  if (settings.admin_email.empty()) return {};
  CAIRN_ASSIGN_OR_RETURN(
      bool created,
      auth.EnsureAdmin(settings.admin_email, settings.admin_password, settings.admin_name));
  if (created) log::Info("created the first admin from AUTH_ADMIN_EMAIL");
  return {};
}

Result<std::shared_ptr<http::Middleware>> MakeRateLimitLayer(const Settings& settings,
                                                             db::Database& database,
                                                             std::function<std::int64_t()> now_ms) {
  ratelimit::RateLimitOptions options;
  options.now_ms = std::move(now_ms);
  CAIRN_ASSIGN_OR_RETURN(options.trusted_proxies,
                         ratelimit::TrustedProxies::Parse(settings.trusted_proxies));
  options.window_seconds = settings.rate_limit_window_seconds;
  options.disabled = settings.rate_limit_disabled;
  if (!options.disabled) {
    if (database.dialect().shared_server()) {
      CAIRN_ASSIGN_OR_RETURN(options.limiter, ratelimit::MakeDatabaseRateLimiter(database));
    } else {
      options.limiter = ratelimit::MakeMemoryRateLimiter();
    }
  }
  return std::shared_ptr<http::Middleware>(
      std::make_shared<ratelimit::RateLimitMiddleware>(std::move(options)));
}

std::shared_ptr<http::Middleware> MakeUserRateLimitLayer(const Settings& settings,
                                                         std::function<std::int64_t()> now_ms) {
  ratelimit::UserRateLimitOptions options;
  options.max_requests = settings.rate_limit_disabled ? 0 : settings.rate_limit_user_max;
  options.window_seconds = settings.rate_limit_window_seconds;
  options.now_ms = std::move(now_ms);
  options.user_of = [](const http::Request& request) -> std::string_view {
    const auth::Caller* caller = api::CallerOf(request);
    return caller != nullptr ? std::string_view(caller->user.id) : std::string_view();
  };
  return std::make_shared<ratelimit::UserRateLimitMiddleware>(std::move(options));
}

}  // namespace cairn::app
