// Every number of the rate limiter (D16), named in one place.
#pragma once

#include <cstddef>
#include <cstdint>

namespace cairn::ratelimit {

// --- Route groups (D16) ---
// The sliding window of every group but admin; RATE_LIMIT_WINDOW_SECONDS overrides it.
inline constexpr int kDefaultWindowSeconds = 60;
// Requests per window and client address.
inline constexpr int kSignInPerWindow = 20;
inline constexpr int kSignUpPerWindow = 20;
inline constexpr int kPasswordResetPerWindow = 10;
inline constexpr int kAuthPerWindow = 100;
// Magic links and email one-time codes (mail sent, codes guessed): tight, since each hit either
// mails someone or guesses a 6-digit code. auth/limits.hpp adds a per-email limit on top.
inline constexpr int kOneTimeCodePerWindow = 10;
// Page views sent to POST /api/analytics/collect (D54): generous, since one visitor's browsing
// sends one per page, but bounded so that one address cannot flood the events table.
inline constexpr int kAnalyticsCollectPerWindow = 600;
// Admin routes: this many requests per kAdminWindowMs, whatever RATE_LIMIT_WINDOW_SECONDS says.
inline constexpr int kAdminPerWindow = 10;
inline constexpr std::int64_t kAdminWindowMs = 1000;
// Requests per window of one signed-in user on one node (RATE_LIMIT_USER_MAX; 0 turns it off):
// 50 per second sustained, far above what a person or a well-behaved client sends.
inline constexpr int kDefaultUserMaxRequests = 3000;
inline constexpr int kMaxUserMaxRequests = 1'000'000;

// --- Client address ---
// X-Forwarded-For hops examined from the right; hops further left are ignored.
inline constexpr int kMaxForwardedHops = 64;

// --- In-memory limiter (embedded SQLite mode) ---
// Counters are spread over this many independently locked shards ...
inline constexpr std::size_t kMemoryShards = 16;
// ... holding at most this many keys in all (kMemoryMaxKeys / kMemoryShards per shard). A full
// shard first drops its expired keys, then evicts arbitrary ones: memory stays bounded whatever
// the clients send.
inline constexpr std::size_t kMemoryMaxKeys = 100'000;
// A full shard scans for expired keys at most this often (so a flood of new keys costs O(1)
// per hit, not a scan per hit).
inline constexpr std::int64_t kMemorySweepIntervalMs = 1000;

// --- Database limiter (PostgreSQL, shared by every node) ---
// Each node deletes expired counter rows this often (measured on the hits' clock).
inline constexpr std::int64_t kPurgeIntervalMs = 60'000;

// --- Middleware ---
// While the limiter fails (database down) and requests are let through, a warning is logged at
// most this often.
inline constexpr std::int64_t kFailureLogIntervalMs = 10'000;

}  // namespace cairn::ratelimit
