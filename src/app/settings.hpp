// Operator settings (D2): flags beat environment beats defaults. A bad value is a startup error
// that names the setting.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "common/log.hpp"
#include "common/result.hpp"
#include "db/database.hpp"
#include "ratelimit/limits.hpp"
#include "storage/storage_settings.hpp"

namespace cairn::app {

struct Settings {
  std::string host = "127.0.0.1";
  std::uint16_t port = 3000;
  std::string data_dir = "./cairn_data";
  std::string base_url;  // default http://<host>:<port> (the bound port when PORT is 0)
  bool base_url_explicit = false;
  log::Level log_level = log::Level::kInfo;
  std::string database_url;  // empty → SQLite at <data_dir>/cairn.db
  int database_pool_size = 0;
  // DATABASE_STATEMENT_TIMEOUT_MS, DATABASE_LOCK_TIMEOUT_MS, DATABASE_CONNECT_TIMEOUT_SECONDS,
  // DATABASE_TCP_KEEPALIVES… (docs/settings.md): every PostgreSQL connection gets them.
  db::PostgresOptions database_postgres;
  bool allow_destructive = false;
  int io_threads = 0;
  int worker_threads = 0;
  int long_query_threads = 0;    // CAIRN_LONG_QUERY_THREADS; 0: LongQueryThreads' default
  int max_connections = 10'000;  // CAIRN_MAX_CONNECTIONS

  // Operator settings of the spec; validated here, used by the modules that own them.
  std::string auth_secret;  // empty: a generated secret kept in the database

  // Auth (D14–D16).
  std::string admin_email, admin_password, admin_name;
  std::string smtp_host;
  int smtp_port = 587;
  std::string smtp_user, smtp_pass, smtp_from;
  // Origins allowed to send cookie-authenticated writes, beside BASE_URL's (comma-separated).
  std::vector<std::string> trusted_origins;
  std::string trusted_proxies;  // comma-separated addresses and CIDR ranges, validated
  // OAuth (D18): where GitHub lives, for a GitHub Enterprise Server (GITHUB_URL, GITHUB_API_URL).
  std::string github_url = "https://github.com";
  std::string github_api_url = "https://api.github.com";
  // The environment these settings were read from: the OAuth providers' <NAME>_CLIENT_ID and
  // <NAME>_CLIENT_SECRET are named by the config, so they are read once it is known. Empty: none.
  std::function<std::optional<std::string>(const char*)> env;
  int rate_limit_window_seconds = 60;
  bool rate_limit_disabled = false;
  int rate_limit_user_max = ratelimit::kDefaultUserMaxRequests;  // per window and node; 0: off
  // D19a: days between delete-user and the purge of the account; 0 purges at once.
  int account_deletion_grace_days = 7;
  // STORAGE_PROVIDER, STORAGE_LOCAL_DIRECTORY, STORAGE_S3_*, STORAGE_DEFAULT_ACCESS,
  // STORAGE_PUBLIC_PATHS (D41, docs/storage.md).
  storage::StorageSettings storage;
  // Image transforms (D46, docs/storage.md "Image transforms").
  std::string storage_transform_presets;    // JSON object text, validated (transform::ParsePresets)
  std::string storage_transform_cache_dir;  // empty → <temp dir>/cairn-<hash of the data dir>
  int storage_transform_cache_max_mb = 500;
  std::int64_t storage_transform_max_pixels = 100'000'000;  // STORAGE_TRANSFORM_MAX_PIXELS
  int transform_threads = 0;  // CAIRN_TRANSFORM_THREADS; 0: one per core
  int transform_queue = 64;   // CAIRN_TRANSFORM_QUEUE: transforms waiting; beyond: 503
  std::string eco_image_format = "avif";
  std::optional<int> eco_retention_purge_days;
  bool schema_edit_api_enabled = false;
};

// Command-line flags already split into name → value (`--port 8080` → {"port","8080"}).
using Flags = std::map<std::string, std::string>;
// Environment lookup; returns nullopt when unset. Tests pass their own.
using EnvLookup = std::function<std::optional<std::string>(const char*)>;

EnvLookup ProcessEnvironment();
// Every bad setting is reported; the error's `errors` name each one.
Result<Settings> LoadSettings(const Flags& flags, const EnvLookup& env);

// The network threads: CAIRN_IO_THREADS, else one per core (`cores` 0 counts as one). They only
// parse, route and write; everything that may block runs on the worker pool.
int IoThreads(const Settings& settings, unsigned cores);
// The worker pool: CAIRN_WORKER_THREADS, else on a shared server (PostgreSQL) two per core and at
// least the pool's connections, since handlers there mostly wait for the server; on SQLite one
// per core, since its reads are CPU work and its writes queue for the one writer anyway
// (measured on 2 cores: 2 workers serve reads at 70% of the ceiling, 3 at 66%, 4 at 49%).
int WorkerThreads(const Settings& settings, bool shared_server, unsigned cores);

}  // namespace cairn::app
