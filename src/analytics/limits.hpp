// Every number of the analytics module (D54, docs/analytics.md), named in one place.
#pragma once

#include <chrono>
#include <cstddef>
#include <cstdint>

namespace cairn::analytics {

inline constexpr std::int64_t kHourMillis = 60LL * 60 * 1000;
inline constexpr std::int64_t kDayMillis = 24 * kHourMillis;

// --- Collect: the body's fields are cut to these lengths (bytes, never inside a character) ---
inline constexpr std::size_t kMaxPathLength = 2000;
inline constexpr std::size_t kMaxTitleLength = 500;
inline constexpr std::size_t kMaxReferrerLength = 2000;
inline constexpr std::size_t kMaxUtmLength = 200;
inline constexpr std::size_t kMaxUserAgentLength = 512;
// The collect body is small; anything larger is refused with 413 before it is read.
inline constexpr std::size_t kMaxCollectBodyBytes = 16 * 1024;
// Screen sizes above this are not screens.
inline constexpr int kMaxScreenPixels = 100'000;

// The rate limit of collect per client address is ratelimit/limits.hpp's
// kAnalyticsCollectPerWindow.

// --- The write queue (collector.cpp) ---
// The background writer wakes at least this often, and as soon as this many events wait.
inline constexpr std::int64_t kFlushIntervalMs = 200;
inline constexpr std::size_t kFlushBatch = 500;
// Past this many waiting events, collect writes the queue itself before answering (the queue
// never grows without bound when the database falls behind).
inline constexpr std::size_t kMaxQueuedEvents = 20'000;
// Rows per INSERT: 17 values each stays far below both databases' parameter limits.
inline constexpr std::size_t kRowsPerInsert = 200;

// --- User agents (user_agents.cpp) ---
// Classifications cached (least recently used evicted): user agents repeat.
inline constexpr std::size_t kUserAgentCacheSize = 10'000;

// --- Reports ---
inline constexpr int kDefaultEventsLimit = 50;
inline constexpr int kMaxEventsLimit = 1000;
// Rows of the pages, referrers and campaigns reports (the rest is summed in `total`).
inline constexpr std::size_t kMaxReportRows = 100;
// Buckets of a time series: an hourly series over years would be millions of rows.
inline constexpr std::int64_t kMaxTimeSeriesBuckets = 10'000;

// --- Background job (maintenance.cpp) ---
// Roll up an hour only once it has been over this long: writers on other nodes flush within
// kFlushIntervalMs, so an hour's events are all stored by then.
inline constexpr std::int64_t kRollupGraceMs = 60'000;
// The job runs this often on each node (one node at a time on PostgreSQL), the first time this
// long after startup. Reports read raw events only after the last rolled-up hour, so this bounds
// that part to about an hour and two minutes of page views.
inline constexpr std::chrono::minutes kJobInterval{1};
inline constexpr std::chrono::seconds kJobFirstDelay{30};
// Hours rolled up per run at most (60 days: the first run after a long outage, or over events
// loaded from elsewhere, catches up over several runs).
inline constexpr int kMaxHoursRolledUpPerRun = 60 * 24;

}  // namespace cairn::analytics
