#include "app/settings.hpp"

#include <algorithm>
#include <charconv>
#include <cstdlib>

#include <boost/asio/ip/address.hpp>
#include <boost/json/parse.hpp>

#include "auth/oauth/providers.hpp"
#include "db/limits.hpp"
#include "ratelimit/client_address.hpp"
#include "storage/file_path.hpp"
#include "transform/params.hpp"

namespace cairn::app {
namespace {

constexpr int kMaxPoolSize = 1000;
constexpr int kMaxThreads = 1024;
constexpr int kMaxConnections = 1'000'000;
// HMAC keys shorter than this are guessable; `cairn secret generate` prints 43 characters.
constexpr std::size_t kMinAuthSecretLength = 32;
constexpr int kMaxRateLimitWindowSeconds = 24 * 60 * 60;
// Day counts (ACCOUNT_DELETION_GRACE_DAYS, ECO_RETENTION_PURGE_DAYS): a hundred years at most.
constexpr int kMaxRetentionDays = 36500;

class Reader {
 public:
  Reader(const Flags& flags, const EnvLookup& env) : flags_(flags), env_(env) {}

  // The flag `--flag`, else the environment variable `env_name`.
  std::optional<std::string> Get(const char* flag, const char* env_name) {
    if (flag != nullptr) {
      if (auto it = flags_.find(flag); it != flags_.end()) {
        source_ = std::string("--") + flag;
        return it->second;
      }
    }
    if (env_name != nullptr) {
      if (auto value = env_(env_name); value && !value->empty()) {
        source_ = env_name;
        return value;
      }
    }
    return std::nullopt;
  }

  void Fail(std::string message) { errors_.push_back({source_, std::move(message)}); }
  // A failure of a setting that was not just read (one that is missing, or checked later).
  void FailAt(std::string setting, std::string message) {
    errors_.push_back({std::move(setting), std::move(message)});
  }

  template <class Int>
  void ReadInt(const char* flag, const char* env_name, Int& out, long long min, long long max) {
    auto text = Get(flag, env_name);
    if (!text) return;
    long long value = 0;
    auto [end, ec] = std::from_chars(text->data(), text->data() + text->size(), value);
    if (ec != std::errc() || end != text->data() + text->size() || value < min || value > max) {
      Fail("must be an integer from " + std::to_string(min) + " to " + std::to_string(max) +
           " (got \"" + *text + "\")");
      return;
    }
    out = static_cast<Int>(value);
  }

  void ReadBool(const char* flag, const char* env_name, bool& out) {
    auto text = Get(flag, env_name);
    if (!text) return;
    if (*text == "true" || *text == "1")
      out = true;
    else if (*text == "false" || *text == "0")
      out = false;
    else
      Fail("must be true or false (got \"" + *text + "\")");
  }

  void ReadChoice(const char* flag, const char* env_name, std::string& out,
                  std::initializer_list<const char*> choices) {
    auto text = Get(flag, env_name);
    if (!text) return;
    std::string allowed;
    for (const char* choice : choices) {
      if (*text == choice) {
        out = *text;
        return;
      }
      if (!allowed.empty()) allowed += ", ";
      allowed += choice;
    }
    Fail("must be one of " + allowed + " (got \"" + *text + "\")");
  }

  std::vector<FieldError>& errors() { return errors_; }

 private:
  const Flags& flags_;
  const EnvLookup& env_;
  std::string source_;
  std::vector<FieldError> errors_;
};

std::vector<std::string> SplitComma(const std::string& text) {
  std::vector<std::string> parts;
  std::size_t start = 0;
  while (start <= text.size()) {
    std::size_t end = text.find(',', start);
    if (end == std::string::npos) end = text.size();
    std::string part = text.substr(start, end - start);
    while (!part.empty() && part.front() == ' ') part.erase(part.begin());
    while (!part.empty() && part.back() == ' ') part.pop_back();
    if (!part.empty()) parts.push_back(part);
    start = end + 1;
  }
  return parts;
}

void ReadPublicPaths(Reader& reader, Settings& settings) {
  auto text = reader.Get(nullptr, "STORAGE_PUBLIC_PATHS");
  if (!text) return;
  auto& paths = settings.storage.public_paths;
  paths = SplitComma(*text);
  for (std::size_t i = 0; i < paths.size(); ++i) {
    if (paths[i].ends_with("*")) {
      reader.Fail("\"" + paths[i] + "\" must not end with a wildcard: prefixes match already");
      continue;
    }
    if (Status checked = storage::CheckPrefix(paths[i]); !checked.ok()) {
      reader.Fail("\"" + paths[i] + "\": " + checked.error().errors.front().message +
                  " (a prefix is <bucket>/<folder>, such as default/public)");
    }
    for (std::size_t j = 0; j < paths.size(); ++j) {
      if (i != j && paths[j].starts_with(paths[i]) && (i < j || paths[i] != paths[j])) {
        reader.Fail("\"" + paths[i] + "\" overlaps \"" + paths[j] + "\"");
      }
    }
  }
}

void ReadStorageProvider(Reader& reader, Settings& settings) {
  storage::StorageSettings& out = settings.storage;
  if (auto provider = reader.Get(nullptr, "STORAGE_PROVIDER")) {
    if (*provider == "local") {
      out.provider = storage::Provider::kLocal;
    } else if (*provider == "bytea") {
      out.provider = storage::Provider::kBytea;
    } else if (*provider == "s3") {
      out.provider = storage::Provider::kS3;
    } else {
      reader.Fail("must be one of local, bytea, s3 (got \"" + *provider + "\")");
    }
  }
  const bool s3 = out.provider == storage::Provider::kS3;
  if (auto directory = reader.Get(nullptr, "STORAGE_LOCAL_DIRECTORY")) {
    if (out.provider && out.provider != storage::Provider::kLocal) {
      reader.Fail("is only used with STORAGE_PROVIDER=local");
    }
    out.local_directory = *directory;
  }
  storage::S3Settings& s3_settings = out.s3;
  const auto read_s3 = [&](const char* name, std::string& value, bool required) {
    auto text = reader.Get(nullptr, name);
    if (text && !s3) {
      reader.Fail("is only used with STORAGE_PROVIDER=s3");
      return;
    }
    if (text) {
      value = *text;
    } else if (s3 && required) {
      reader.FailAt(name, "is required with STORAGE_PROVIDER=s3");
    }
  };
  read_s3("STORAGE_S3_ENDPOINT", s3_settings.endpoint, false);
  read_s3("STORAGE_S3_BUCKET", s3_settings.bucket, true);
  read_s3("STORAGE_S3_REGION", s3_settings.region, false);
  read_s3("STORAGE_S3_ACCESS_KEY_ID", s3_settings.access_key_id, true);
  read_s3("STORAGE_S3_SECRET_ACCESS_KEY", s3_settings.secret_access_key, true);
  if (reader.Get(nullptr, "STORAGE_S3_FORCE_PATH_STYLE") && !s3) {
    reader.Fail("is only used with STORAGE_PROVIDER=s3");
  } else {
    reader.ReadBool(nullptr, "STORAGE_S3_FORCE_PATH_STYLE", s3_settings.force_path_style);
  }
  if (s3 && !s3_settings.endpoint.empty() && !s3_settings.endpoint.starts_with("http://") &&
      !s3_settings.endpoint.starts_with("https://")) {
    reader.FailAt("STORAGE_S3_ENDPOINT", "must be an http:// or https:// URL");
  }
  const std::string& bucket = s3_settings.bucket;
  const bool bucket_ok =
      bucket.size() >= 3 && bucket.size() <= 63 &&
      std::all_of(bucket.begin(), bucket.end(), [](char c) {
        return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-' || c == '.';
      });
  if (s3 && !bucket.empty() && !bucket_ok) {
    reader.FailAt(
        "STORAGE_S3_BUCKET",
        "must be an S3 bucket name: 3 to 63 of a-z, 0-9, - and . (got \"" + bucket + "\")");
  }
}

void ReadTransformPresets(Reader& reader, Settings& settings) {
  auto text = reader.Get(nullptr, "STORAGE_TRANSFORM_PRESETS");
  if (!text) return;
  // Names, members and every value checked as the URL's parameters are (interface.md rule 7).
  if (auto presets = transform::ParsePresets(*text); !presets) {
    for (const FieldError& error : presets.error().errors) reader.Fail(error.message);
    return;
  }
  settings.storage_transform_presets = *text;
}

// PostgreSQL robustness (db::PostgresOptions): timeouts in milliseconds (0 turns one off, up to
// a day), the connect timeout and keepalives in seconds. Read whatever the backend: a bad value
// is caught before the day DATABASE_URL is set.
void ReadDatabaseSettings(Reader& reader, Settings& settings) {
  constexpr int kDayMs = 24 * 60 * 60 * 1000;
  constexpr int kHourSeconds = 60 * 60;
  db::PostgresOptions& postgres = settings.database_postgres;
  reader.ReadInt(nullptr, "DATABASE_STATEMENT_TIMEOUT_MS", postgres.statement_timeout_ms, 0,
                 kDayMs);
  reader.ReadInt(nullptr, "DATABASE_LOCK_TIMEOUT_MS", postgres.lock_timeout_ms, 0, kDayMs);
  reader.ReadInt(nullptr, "DATABASE_IDLE_IN_TRANSACTION_TIMEOUT_MS",
                 postgres.idle_in_transaction_timeout_ms, 0, kDayMs);
  reader.ReadInt(nullptr, "DATABASE_CONNECT_TIMEOUT_SECONDS", postgres.connect_timeout_seconds, 1,
                 kHourSeconds);
  reader.ReadBool(nullptr, "DATABASE_TCP_KEEPALIVES", postgres.keepalives);
  reader.ReadInt(nullptr, "DATABASE_TCP_KEEPALIVES_IDLE_SECONDS", postgres.keepalives_idle_seconds,
                 1, kHourSeconds);
  reader.ReadInt(nullptr, "DATABASE_TCP_KEEPALIVES_INTERVAL_SECONDS",
                 postgres.keepalives_interval_seconds, 1, kHourSeconds);
  reader.ReadInt(nullptr, "DATABASE_TCP_KEEPALIVES_COUNT", postgres.keepalives_count, 1, 100);
}

void ReadAuthSettings(Reader& reader, Settings& settings) {
  if (auto email = reader.Get(nullptr, "AUTH_ADMIN_EMAIL")) settings.admin_email = *email;
  if (auto password = reader.Get(nullptr, "AUTH_ADMIN_PASSWORD")) {
    settings.admin_password = *password;
  }
  if (auto name = reader.Get(nullptr, "AUTH_ADMIN_NAME")) settings.admin_name = *name;
  if (settings.admin_email.empty() != settings.admin_password.empty()) {
    reader.Get(nullptr, settings.admin_email.empty() ? "AUTH_ADMIN_PASSWORD" : "AUTH_ADMIN_EMAIL");
    reader.Fail("AUTH_ADMIN_EMAIL and AUTH_ADMIN_PASSWORD must be set together");
  }
  if (auto host = reader.Get(nullptr, "SMTP_HOST")) settings.smtp_host = *host;
  reader.ReadInt(nullptr, "SMTP_PORT", settings.smtp_port, 1, 65535);
  if (auto user = reader.Get(nullptr, "SMTP_USER")) settings.smtp_user = *user;
  if (auto pass = reader.Get(nullptr, "SMTP_PASS")) settings.smtp_pass = *pass;
  if (auto from = reader.Get(nullptr, "SMTP_FROM")) settings.smtp_from = *from;
  if (auto origins = reader.Get(nullptr, "TRUSTED_ORIGINS")) {
    for (std::string& origin : SplitComma(*origins)) {
      while (!origin.empty() && origin.back() == '/') origin.pop_back();
      const bool http = origin.starts_with("http://") || origin.starts_with("https://");
      if (!http || origin.find('/', origin.find("//") + 2) != std::string::npos) {
        reader.Fail("\"" + origin + "\" must be an origin such as https://app.example.com");
      }
      settings.trusted_origins.push_back(std::move(origin));
    }
  }
  for (auto [name, out] : {std::pair{"GITHUB_URL", &settings.github_url},
                           std::pair{"GITHUB_API_URL", &settings.github_api_url}}) {
    if (auto url = reader.Get(nullptr, name)) {
      while (!url->empty() && url->back() == '/') url->pop_back();
      if (auto checked = auth::oauth::CheckProviderUrl(*url, name); !checked.ok()) {
        reader.Fail(checked.error().message);
      }
      *out = *url;
    }
  }
  if (auto proxies = reader.Get(nullptr, "TRUSTED_PROXIES")) {
    if (auto parsed = ratelimit::TrustedProxies::Parse(*proxies); !parsed.ok()) {
      reader.Fail(parsed.error().message);
    }
    settings.trusted_proxies = *proxies;
  }
  reader.ReadInt(nullptr, "RATE_LIMIT_WINDOW_SECONDS", settings.rate_limit_window_seconds, 1,
                 kMaxRateLimitWindowSeconds);
  reader.ReadBool(nullptr, "RATE_LIMIT_DISABLED", settings.rate_limit_disabled);
  reader.ReadInt(nullptr, "RATE_LIMIT_USER_MAX", settings.rate_limit_user_max, 0,
                 ratelimit::kMaxUserMaxRequests);
  reader.ReadInt(nullptr, "ACCOUNT_DELETION_GRACE_DAYS", settings.account_deletion_grace_days, 0,
                 kMaxRetentionDays);
}

}  // namespace

EnvLookup ProcessEnvironment() {
  return [](const char* name) -> std::optional<std::string> {
    const char* value = std::getenv(name);
    if (value == nullptr) return std::nullopt;
    return std::string(value);
  };
}

Result<Settings> LoadSettings(const Flags& flags, const EnvLookup& env) {
  Settings settings;
  settings.env = env;
  Reader reader(flags, env);

  if (auto host = reader.Get("host", "HOST")) {
    boost::system::error_code ec;
    boost::asio::ip::make_address(*host, ec);
    if (ec)
      reader.Fail("must be an IP address such as 127.0.0.1 or 0.0.0.0 (got \"" + *host + "\")");
    settings.host = *host;
  }
  reader.ReadInt("port", "PORT", settings.port, 0, 65535);
  if (auto dir = reader.Get("data-dir", "CAIRN_DATA_DIR")) settings.data_dir = *dir;
  if (auto level = reader.Get("log-level", "LOG_LEVEL")) {
    if (!log::ParseLevel(*level, settings.log_level)) {
      reader.Fail("must be one of debug, info, warn, error (got \"" + *level + "\")");
    }
  }
  if (auto url = reader.Get("database-url", "DATABASE_URL")) {
    if (!url->starts_with("postgres://") && !url->starts_with("postgresql://")) {
      reader.Fail("must start with postgres:// or postgresql:// (unset it to use SQLite)");
    }
    settings.database_url = *url;
  }
  reader.ReadInt(nullptr, "DATABASE_POOL_SIZE", settings.database_pool_size, 1, kMaxPoolSize);
  ReadDatabaseSettings(reader, settings);
  reader.ReadBool(nullptr, "CAIRN_ALLOW_DESTRUCTIVE", settings.allow_destructive);
  reader.ReadInt(nullptr, "CAIRN_IO_THREADS", settings.io_threads, 1, kMaxThreads);
  reader.ReadInt(nullptr, "CAIRN_WORKER_THREADS", settings.worker_threads, 1, kMaxThreads);
  reader.ReadInt(nullptr, "CAIRN_LONG_QUERY_THREADS", settings.long_query_threads, 1, kMaxThreads);
  reader.ReadInt(nullptr, "CAIRN_MAX_CONNECTIONS", settings.max_connections, 1, kMaxConnections);

  if (auto secret = reader.Get(nullptr, "AUTH_SECRET")) {
    if (secret->size() < kMinAuthSecretLength) {
      reader.Fail("must be at least " + std::to_string(kMinAuthSecretLength) +
                  " characters (`cairn secret generate` makes one)");
    }
    settings.auth_secret = *secret;
  }
  ReadAuthSettings(reader, settings);
  std::string default_access = "private";
  reader.ReadChoice(nullptr, "STORAGE_DEFAULT_ACCESS", default_access, {"private", "public"});
  settings.storage.default_public = default_access == "public";
  ReadStorageProvider(reader, settings);
  ReadPublicPaths(reader, settings);
  ReadTransformPresets(reader, settings);
  if (auto dir = reader.Get(nullptr, "STORAGE_TRANSFORM_CACHE_DIR")) {
    settings.storage_transform_cache_dir = *dir;
  }
  reader.ReadInt(nullptr, "STORAGE_TRANSFORM_CACHE_MAX_SIZE",
                 settings.storage_transform_cache_max_mb, 1, 1'000'000);
  reader.ReadInt(nullptr, "STORAGE_TRANSFORM_MAX_PIXELS", settings.storage_transform_max_pixels, 1,
                 1'000'000'000);
  reader.ReadInt(nullptr, "CAIRN_TRANSFORM_THREADS", settings.transform_threads, 1, kMaxThreads);
  reader.ReadInt(nullptr, "CAIRN_TRANSFORM_QUEUE", settings.transform_queue, 0, 100'000);
  reader.ReadChoice(nullptr, "ECO_IMAGE_FORMAT", settings.eco_image_format,
                    {"avif", "webp", "jpeg", "png"});
  int purge_days = 0;
  reader.ReadInt(nullptr, "ECO_RETENTION_PURGE_DAYS", purge_days, 1, kMaxRetentionDays);
  if (purge_days > 0) settings.eco_retention_purge_days = purge_days;
  reader.ReadBool(nullptr, "SCHEMA_EDIT_API_ENABLED", settings.schema_edit_api_enabled);

  if (auto base = reader.Get("base-url", "BASE_URL")) {
    if (!base->starts_with("http://") && !base->starts_with("https://")) {
      reader.Fail("must be an http:// or https:// URL");
    }
    while (!base->empty() && base->back() == '/') base->pop_back();
    settings.base_url = *base;
    settings.base_url_explicit = true;
  } else {
    settings.base_url = "http://" + settings.host + ":" + std::to_string(settings.port);
  }

  if (!reader.errors().empty()) {
    std::string message = "Invalid settings:";
    for (const auto& error : reader.errors())
      message += "\n  " + error.field + ": " + error.message;
    return Error::Validation(std::move(message), std::move(reader.errors()));
  }
  return settings;
}

int IoThreads(const Settings& settings, unsigned cores) {
  if (settings.io_threads > 0) return settings.io_threads;
  return static_cast<int>(std::max(1u, std::min(cores, 1024u)));
}

int WorkerThreads(const Settings& settings, bool shared_server, unsigned cores) {
  if (settings.worker_threads > 0) return settings.worker_threads;
  const int per_core = static_cast<int>(std::max(1u, std::min(cores, 1024u)));
  if (!shared_server) return per_core;
  const int pool =
      settings.database_pool_size > 0 ? settings.database_pool_size : db::kDefaultPostgresPoolSize;
  return std::min(kMaxThreads, std::max(2 * per_core, pool));
}

}  // namespace cairn::app
