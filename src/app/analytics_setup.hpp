// Analytics wiring (D54): its tables, the user-agent classifier (the uap-core regexes, compiled
// once per process), the service, and the background job (rollups, retention) on its own
// scheduler, so it runs whenever analytics is on, with or without auth.
#pragma once

#include <functional>
#include <memory>

#include "analytics/analytics_service.hpp"
#include "common/result.hpp"
#include "config/model.hpp"
#include "db/database.hpp"
#include "jobs/scheduler.hpp"

namespace cairn::app {

Result<std::unique_ptr<analytics::AnalyticsService>> SetUpAnalytics(
    db::Database& database, const config::AppConfig& config, std::function<std::int64_t()> now);

std::unique_ptr<jobs::Scheduler> StartAnalyticsSchedule(analytics::AnalyticsService& service);

}  // namespace cairn::app
