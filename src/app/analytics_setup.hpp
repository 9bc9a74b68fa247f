// Analytics wiring (D54): its tables, the user-agent classifier (the uap-core regexes, compiled
// once per process), the service of one schema version, and the background job (rollups,
// retention) on its own scheduler, which runs the service of the version served at each turn,
// with or without auth.
#pragma once

#include <functional>
#include <memory>

#include "analytics/analytics_service.hpp"
#include "common/result.hpp"
#include "config/model.hpp"
#include "db/database.hpp"
#include "jobs/scheduler.hpp"

namespace cairn::app {

// The service of one version whose `analytics` is on (`config.analytics` set); its tables exist
// (EnsureAnalyticsSchema at startup, CreateAnalyticsSchema in the publish that turns it on).
Result<std::shared_ptr<analytics::AnalyticsService>> BuildAnalyticsService(
    db::Database& database, const config::AppConfig& config, std::function<std::int64_t()> now);

// The served version's service, with what keeps it alive during a run; null: analytics is off.
using ServedAnalytics = std::function<std::shared_ptr<analytics::AnalyticsService>()>;
std::unique_ptr<jobs::Scheduler> StartAnalyticsSchedule(ServedAnalytics served);

}  // namespace cairn::app
