// The composition root: opens the database, migrates it to the config, registers every route in
// order and serves. Used by `cairn serve` and, in-process on port 0, by the end-to-end tests.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>

#include "analytics/analytics_service.hpp"
#include "app/settings.hpp"
#include "common/result.hpp"
#include "config/model.hpp"
#include "db/database.hpp"
#include "http/router.hpp"
#include "http/server.hpp"
#include "jobs/purge_job.hpp"

namespace cairn::records {
class AttachmentFiles;  // records/attachment_files.hpp
}

namespace cairn::app {

struct ApplicationOptions {
  Settings settings;
  config::AppConfig config;
  // Registers additional routes after the built-in ones (tests use it for probes).
  std::function<Status(http::Router&, db::Database&)> extra_routes;
  // Registers routes that read the served version's config, with every schema version's routes
  // (`config` lives as long as that route table). Tests: the documents of the response check.
  std::function<Status(http::Router&, const config::AppConfig&)> extra_config_routes;
  // Adjusts server options after they are derived from the settings (tests shorten timeouts).
  std::function<void(http::ServerOptions&)> tune_server;
  // The rate limiter's clock (Unix epoch milliseconds); empty: the system clock. Tests drive it
  // to cross windows without sleeping.
  std::function<std::int64_t()> rate_limit_now_ms;
  // The clock signed URL tokens are dated and checked on (Unix epoch seconds); empty: the system
  // clock. Tests step it past a token's expiry.
  std::function<std::int64_t()> storage_now_seconds;
  // File storage for attachment fields (D45) in place of the storage module's; tests inject a
  // fake. Must outlive the application. Null: the storage module's.
  const records::AttachmentFiles* attachment_files = nullptr;
  // The analytics clock (epoch milliseconds): page views are stamped with it and the visitor's
  // day read from it. Empty: the system clock. Tests place events at chosen times.
  std::function<std::int64_t()> analytics_now_ms;
  // Called by the request that runs an image transform, before it runs (tests count transforms
  // for single flight, or hold one up to fill the queue). Empty: nothing.
  std::function<void(std::string_view key)> before_transform;
};

class Application {
 public:
  static Result<std::unique_ptr<Application>> Start(ApplicationOptions options);
  ~Application();

  std::uint16_t port() const;
  db::Database& database();
  // Returns when mail sent after an answer has gone out (tests read the outbox after it).
  void WaitForBackgroundWork();
  // One run of the purge job (D19a) as of `now_ms`, as the scheduler and `cairn admin
  // purge-due` run it (tests pass a later time instead of waiting out the grace period).
  Result<jobs::PurgeReport> RunPurgeJob(std::int64_t now_ms);
  // One run of the analytics job (rollups, retention) as of `now_ms`, as the scheduler runs it.
  Result<analytics::MaintenanceReport> RunAnalyticsJob(std::int64_t now_ms);
  // Graceful: stop accepting, finish in-flight requests, close the database. Idempotent.
  void Shutdown();

  struct Parts;
  explicit Application(std::unique_ptr<Parts> parts);

 private:
  std::unique_ptr<Parts> parts_;
};

}  // namespace cairn::app
