// Wiring of account erasure and retention (D19a) shared by `cairn serve` and
// `cairn admin purge-due`: what an erasure unties in other modules, and the purge job.
#pragma once

#include <functional>
#include <memory>
#include <vector>

#include "app/settings.hpp"
#include "auth/auth_service.hpp"
#include "config/model.hpp"
#include "jobs/purge_job.hpp"
#include "jobs/scheduler.hpp"

namespace cairn::app {

// Inside an erasure's transaction: comments lose their author, records their authorship stamps
// (the person is gone, the discussion and the data stay).
std::vector<auth::AccountErasureHook> AccountErasureHooks(const config::AppConfig& config);
// The same, reading the tables of the version served when the erasure runs (live schema
// editing swaps it).
using ServedConfig = std::function<std::shared_ptr<const config::AppConfig>()>;
std::vector<auth::AccountErasureHook> AccountErasureHooks(ServedConfig served);

// The purge job, run every jobs::kPurgeJobInterval on a scheduler thread of its own.
std::unique_ptr<jobs::Scheduler> StartPurgeSchedule(jobs::PurgeJob& job);

}  // namespace cairn::app
