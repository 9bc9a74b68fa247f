// The in-process limiter of the embedded mode: kMemoryShards hash maps, each behind its own
// mutex, bounded to kMemoryMaxKeys keys in all (limits.hpp). A hit on a known key looks it up
// without allocating (heterogeneous lookup) and does a few integer operations under its shard's
// lock. MakeMemoryRateLimiter (rate_limiter.hpp) is the usual way to get one.
#pragma once

#include <array>
#include <cstddef>
#include <functional>
#include <mutex>
#include <string>
#include <string_view>
#include <unordered_map>

#include "ratelimit/limits.hpp"
#include "ratelimit/rate_limiter.hpp"
#include "ratelimit/sliding_window.hpp"

namespace cairn::ratelimit {

class MemoryRateLimiter final : public RateLimiter {
 public:
  static constexpr std::size_t kMaxKeysPerShard = kMemoryMaxKeys / kMemoryShards;

  Result<Decision> Hit(std::string_view key, const Limit& limit, std::int64_t now_ms) override;
  // Keys held now (tests and diagnostics).
  std::size_t key_count() const;

 private:
  struct KeyHash {
    using is_transparent = void;
    std::size_t operator()(std::string_view key) const {
      return std::hash<std::string_view>{}(key);
    }
  };
  struct Entry {
    WindowState state;
    std::int64_t window_ms = 0;
  };
  struct Shard {
    mutable std::mutex mutex;
    std::unordered_map<std::string, Entry, KeyHash, std::equal_to<>> entries;
    std::int64_t next_sweep_ms = 0;
  };

  static void MakeRoom(Shard& shard, std::int64_t now_ms);

  std::array<Shard, kMemoryShards> shards_;
};

}  // namespace cairn::ratelimit
