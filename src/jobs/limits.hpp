// Background job constants (D19a). Documented in docs/auth.md ("Account erasure").
#pragma once

#include <chrono>

namespace cairn::jobs {

// The purge job (due erasures, then the retention of the trash) runs this often on each node;
// a node that finds another one holding the job's lock skips its turn.
inline constexpr std::chrono::minutes kPurgeJobInterval{15};
// The first run after startup waits this long, so starting nodes do not all purge at once.
inline constexpr std::chrono::seconds kPurgeJobFirstDelay{60};
// Trashed records purged per transaction (each is read for its activity entry).
inline constexpr int kRetentionBatchSize = 200;

}  // namespace cairn::jobs
