#include "app/auth_setup.hpp"

#include <algorithm>
#include <filesystem>

#include <boost/json.hpp>

#include "api/auth_routes.hpp"
#include "api/origin_check.hpp"
#include "api/session_layer.hpp"
#include "auth/auth_schema.hpp"
#include "auth/oauth/oauth_store.hpp"
#include "auth/oauth/providers.hpp"
#include "common/log.hpp"
#include "common/time.hpp"
#include "ratelimit/rate_limit_middleware.hpp"

namespace cairn::app {
namespace {

namespace json = boost::json;

Result<std::shared_ptr<ratelimit::RateLimiter>> MakeLimiter(db::Database& database) {
  if (database.dialect().shared_server()) {
    CAIRN_ASSIGN_OR_RETURN(auto limiter, ratelimit::MakeDatabaseRateLimiter(database));
    return std::shared_ptr<ratelimit::RateLimiter>(std::move(limiter));
  }
  return std::shared_ptr<ratelimit::RateLimiter>(ratelimit::MakeMemoryRateLimiter());
}

// The index of the oauth strategy in `auth.strategies` (its key path).
std::size_t OAuthStrategyIndex(const config::AuthConfig& config) {
  for (std::size_t i = 0; i < config.strategies.size(); ++i) {
    if (config.strategies[i].type == "oauth") return i;
  }
  return 0;
}

// A missing credential names the provider's key path in the config (what a publish is told)
// and the variables to set; credentials are read from the environment, never from the config.
Error MissingCredentials(const config::AuthConfig& config, const Error& error) {
  const std::size_t strategy = OAuthStrategyIndex(config);
  const json::value* providers = config.strategies[strategy].properties.if_contains("providers");
  std::vector<FieldError> errors;
  for (std::size_t i = 0;
       providers != nullptr && providers->is_array() && i < providers->get_array().size(); ++i) {
    const json::value& item = providers->get_array()[i];
    std::string name;
    if (item.is_string()) name = std::string(item.get_string());
    if (const auto* named = item.is_object() ? item.get_object().if_contains("name") : nullptr;
        named != nullptr && named->is_string()) {
      name = std::string(named->get_string());
    }
    for (const FieldError& missing : error.errors) {
      if (missing.message.find("provider " + name + " ") == std::string::npos) continue;
      errors.push_back(
          {"auth.strategies[" + std::to_string(strategy) + "].providers[" + std::to_string(i) + "]",
           missing.message + " in the environment (read at startup)"});
      break;
    }
  }
  if (errors.empty()) {
    errors.push_back(
        {"auth.strategies[" + std::to_string(strategy) + "].providers", error.message});
  }
  Error out = Error::Validation(error.message, std::move(errors));
  out.reason = "MISSING_CREDENTIALS";
  return out;
}

Result<std::vector<auth::oauth::Provider>> Providers(const Settings& settings,
                                                     const config::AuthConfig& config) {
  // D18: every configured provider's credentials, or an error naming them.
  const auto lookup = [&](const std::string& name) -> std::optional<std::string> {
    return settings.env ? settings.env(name.c_str()) : std::nullopt;
  };
  auto providers = auth::oauth::ConfiguredProviders(config, lookup,
                                                    {settings.github_url, settings.github_api_url});
  if (!providers.ok() && !providers.error().errors.empty()) {
    return MissingCredentials(config, providers.error());
  }
  return providers;
}

}  // namespace

Result<std::unique_ptr<AuthRuntime>> SetUpAuthRuntime(
    const Settings& settings, db::Database& database,
    std::vector<auth::AccountErasureHook> erasure_hooks,
    std::function<std::int64_t()> rate_limit_now_ms) {
  CAIRN_TRY(auth::EnsureAuthSchema(database));
  auto runtime = std::make_unique<AuthRuntime>();
  runtime->secret = settings.auth_secret;
  if (runtime->secret.empty()) {
    CAIRN_ASSIGN_OR_RETURN(runtime->secret, auth::LoadOrCreateSecret(database));
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
  runtime->mail_queue = std::make_shared<mail::QueuedMailer>(database, std::move(transport),
                                                             std::move(queue_options));
  runtime->mailer = runtime->mail_queue;
  if (!settings.rate_limit_disabled) {
    // The per-email limits of magic links and email codes, on the counters the D16 layer uses
    // (shared by every node on PostgreSQL).
    CAIRN_ASSIGN_OR_RETURN(std::shared_ptr<ratelimit::RateLimiter> limiter, MakeLimiter(database));
    runtime->rate_check = [limiter](std::string_view key, int max,
                                    std::int64_t window_ms) -> Result<int> {
      CAIRN_ASSIGN_OR_RETURN(auto decision, limiter->Hit(key, {max, window_ms}, time::NowMillis()));
      return decision.allowed ? 0 : std::max(1, decision.retry_after_seconds);
    };
    CAIRN_ASSIGN_OR_RETURN(runtime->guess_limiter, MakeLimiter(database));
  }
  runtime->session_cache = std::make_shared<auth::SessionCache>(auth::UseSessionCache(database));
  runtime->user_rate_limit = MakeUserRateLimitLayer(settings, std::move(rate_limit_now_ms));
  runtime->erasure_hooks = std::move(erasure_hooks);
  runtime->trusted_origins.push_back(api::OriginOf(settings.base_url));
  for (const auto& origin : settings.trusted_origins) {
    runtime->trusted_origins.push_back(api::OriginOf(origin));
  }
  return runtime;
}

Status CreateAuthTables(db::Connection& connection, const config::AuthConfig& config) {
  if (config.HasStrategy("oauth")) CAIRN_TRY(auth::oauth::CreateOAuthSchema(connection));
  return {};
}

Status CheckAuthServices(const Settings& settings, const config::AuthConfig& config) {
  if (!config.HasStrategy("oauth")) return {};
  CAIRN_TRY(Providers(settings, config));
  return {};
}

Result<std::shared_ptr<AuthServices>> BuildAuthServices(const Settings& settings,
                                                        db::Database& database,
                                                        AuthRuntime& runtime,
                                                        const config::AuthConfig& config,
                                                        const std::string& name) {
  auto parts = std::make_shared<AuthServices>();
  auth::AuthOptions options{config, runtime.secret, settings.base_url, runtime.erasure_hooks};
  options.deletion_grace_millis =
      static_cast<std::int64_t>(settings.account_deletion_grace_days) * auth::kMillisPerDay;
  options.rate_check = runtime.rate_check;
  options.session_cache = runtime.session_cache;
  parts->service =
      std::make_unique<auth::AuthService>(database, std::move(options), runtime.mailer);
  parts->cookies = std::make_unique<api::SessionCookies>(parts->service->codec(),
                                                         settings.base_url.starts_with("https://"));
  if (config.two_factor) {
    auth::TwoFactorOptions two_factor;
    two_factor.issuer = name;
    two_factor.limiter = runtime.guess_limiter;
    parts->two_factor = std::make_unique<auth::TwoFactorService>(
        *parts->service, database, runtime.mailer, std::move(two_factor));
  }
  if (config.HasStrategy("oauth")) {
    CAIRN_ASSIGN_OR_RETURN(auto providers, Providers(settings, config));
    parts->oauth = std::make_unique<auth::oauth::OAuthService>(database, *parts->service,
                                                               std::move(providers));
  }
  std::vector<std::string> sign_in_paths = api::PasswordSignInPaths(config);
  for (std::string& path : api::PasswordlessSignInPaths(config)) {
    sign_in_paths.push_back(std::move(path));
  }
  for (std::string& path : api::OAuthSignInPaths(config)) sign_in_paths.push_back(std::move(path));
  parts->middleware.push_back(
      std::make_shared<api::OriginCheck>(runtime.trusted_origins, std::move(sign_in_paths)));
  parts->middleware.push_back(
      std::make_shared<api::SessionLayer>(*parts->service, *parts->cookies));
  parts->middleware.push_back(runtime.user_rate_limit);
  return parts;
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
