#include "app/analytics_setup.hpp"

#include "analytics/limits.hpp"
#include "common/log.hpp"
#include "common/time.hpp"

namespace cairn::app {

Result<std::shared_ptr<analytics::AnalyticsService>> BuildAnalyticsService(
    db::Database& database, const config::AppConfig& config, std::function<std::int64_t()> now) {
  CAIRN_ASSIGN_OR_RETURN(const analytics::UserAgentClassifier* user_agents,
                         analytics::UserAgentClassifier::Shared());
  return std::make_shared<analytics::AnalyticsService>(database, *config.analytics, config.name,
                                                       *user_agents, std::move(now));
}

std::unique_ptr<jobs::Scheduler> StartAnalyticsSchedule(ServedAnalytics served) {
  std::vector<jobs::Scheduler::Job> list;
  list.push_back({"analytics", analytics::kJobFirstDelay, analytics::kJobInterval,
                  [served = std::move(served)] {
                    const std::shared_ptr<analytics::AnalyticsService> service = served();
                    if (!service) return;  // off in the served version
                    auto report = service->RunMaintenance(time::NowMillis());
                    if (!report.ok()) {
                      log::Warn("analytics job failed: " + report.error().message + " " +
                                report.error().detail);
                      return;
                    }
                    if (report->hours_rolled_up > 0 || report->events_deleted > 0) {
                      log::Info("analytics job: " + std::to_string(report->hours_rolled_up) +
                                " hour(s) and " + std::to_string(report->days_rolled_up) +
                                " day(s) rolled up, " + std::to_string(report->events_deleted) +
                                " event(s) past retention deleted");
                    }
                  }});
  return std::make_unique<jobs::Scheduler>(std::move(list));
}

}  // namespace cairn::app
