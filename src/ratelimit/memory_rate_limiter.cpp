#include "ratelimit/memory_rate_limiter.hpp"

namespace cairn::ratelimit {

static_assert(MemoryRateLimiter::kMaxKeysPerShard > 0);

Result<Decision> MemoryRateLimiter::Hit(std::string_view key, const Limit& limit,
                                        std::int64_t now_ms) {
  const std::size_t hash = KeyHash{}(key);
  // The maps bucket by the hash modulo a prime; the shard comes from other bits.
  Shard& shard = shards_[((hash * 0x9E3779B97F4A7C15ULL) >> 40) % kMemoryShards];
  std::lock_guard lock(shard.mutex);
  auto it = shard.entries.find(key);
  if (it == shard.entries.end()) {
    MakeRoom(shard, now_ms);
    it = shard.entries.emplace(std::string(key), Entry{{}, limit.window_ms}).first;
  }
  Entry& entry = it->second;
  if (entry.window_ms != limit.window_ms) entry = Entry{{}, limit.window_ms};
  Count(entry.state, limit.window_ms, now_ms);
  const Decision decision = Decide(entry.state, limit, now_ms);
  if (!decision.allowed) Uncount(entry.state);
  return decision;
}

std::size_t MemoryRateLimiter::key_count() const {
  std::size_t count = 0;
  for (const Shard& shard : shards_) {
    std::lock_guard lock(shard.mutex);
    count += shard.entries.size();
  }
  return count;
}

// Keeps a shard below kMaxKeysPerShard before an insertion: drops expired keys (at most once per
// kMemorySweepIntervalMs, so a flood of new keys does not scan the shard on every hit), then, if
// live keys still fill it, evicts arbitrary ones. Eviction forgets some client's count, but a
// client able to create that many keys controls that many addresses and escapes a per-address
// limit anyway.
void MemoryRateLimiter::MakeRoom(Shard& shard, std::int64_t now_ms) {
  auto& entries = shard.entries;
  if (entries.size() < kMaxKeysPerShard) return;
  if (now_ms >= shard.next_sweep_ms) {
    shard.next_sweep_ms = now_ms + kMemorySweepIntervalMs;
    std::erase_if(entries, [&](const auto& item) {
      const Entry& entry = item.second;
      return now_ms >= ExpiresAt(entry.state.window_start, entry.window_ms);
    });
  }
  while (entries.size() >= kMaxKeysPerShard) entries.erase(entries.begin());
}

std::unique_ptr<RateLimiter> MakeMemoryRateLimiter() {
  return std::make_unique<MemoryRateLimiter>();
}

}  // namespace cairn::ratelimit
