// One node at a time per background job (ARCHITECTURE "Background jobs").
#pragma once

#include <string_view>

#include "common/result.hpp"
#include "db/database.hpp"

namespace cairn::jobs {

// Inside a write transaction: true when this transaction may run a step of `job` (it then holds
// the job's advisory lock until it ends, on PostgreSQL), false when another node's transaction
// holds it. Always true on SQLite, whose one writer already runs alone.
Result<bool> TryJobLock(db::Connection& connection, std::string_view job);

}  // namespace cairn::jobs
