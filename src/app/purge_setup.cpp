#include "app/purge_setup.hpp"

#include "auth/organization_store.hpp"
#include "common/log.hpp"
#include "common/time.hpp"
#include "jobs/limits.hpp"
#include "records/comment_service.hpp"
#include "records/record_erasure.hpp"

namespace cairn::app {

std::vector<auth::AccountErasureHook> AccountErasureHooks(const config::AppConfig& config) {
  std::vector<auth::AccountErasureHook> hooks;
  hooks.emplace_back(&records::ForgetCommentAuthor);
  // Organizations the person leaves empty go (memberships and invitations are rows of
  // auth::UserDataColumns; the hook removes them first to see which organizations empty).
  hooks.emplace_back(&auth::ForgetOrganizationMember);
  hooks.emplace_back([&config](db::Connection& connection, std::string_view user_id) {
    return records::ForgetRecordAuthor(connection, config, user_id);
  });
  return hooks;
}

std::vector<auth::AccountErasureHook> AccountErasureHooks(ServedConfig served) {
  std::vector<auth::AccountErasureHook> hooks;
  hooks.emplace_back(&records::ForgetCommentAuthor);
  hooks.emplace_back(&auth::ForgetOrganizationMember);
  hooks.emplace_back(
      [served = std::move(served)](db::Connection& connection, std::string_view user_id) {
        const std::shared_ptr<const config::AppConfig> config = served();
        return records::ForgetRecordAuthor(connection, *config, user_id);
      });
  return hooks;
}

std::unique_ptr<jobs::Scheduler> StartPurgeSchedule(jobs::PurgeJob& job) {
  std::vector<jobs::Scheduler::Job> list;
  list.push_back({std::string(jobs::kPurgeJobName), jobs::kPurgeJobFirstDelay,
                  jobs::kPurgeJobInterval, [&job] {
                    auto report = job.Run(time::NowMillis());
                    if (!report.ok()) {
                      log::Warn("purge job failed: " + report.error().message + " " +
                                report.error().detail);
                      return;
                    }
                    if (!report->erased_user_ids.empty() || !report->retention.empty()) {
                      log::Info("purge job: " + jobs::FormatPurgeReport(*report));
                    }
                  }});
  return std::make_unique<jobs::Scheduler>(std::move(list));
}

}  // namespace cairn::app
