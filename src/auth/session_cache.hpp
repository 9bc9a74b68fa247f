// Sessions resolved in the last kSessionCacheTtlMillis, by token hash. AuthService clears the
// cache after every auth write; a generation number keeps a lookup that raced such a write
// from caching what the write changed. Only the node that makes a write sees it at once, so the
// cache is on only where one node serves the database (SQLite; D11 on PostgreSQL's many nodes).
#pragma once

#include <cstdint>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>

#include "auth/model.hpp"

namespace cairn::auth {

class SessionCache {
 public:
  // A disabled cache holds nothing: every lookup goes to the database.
  explicit SessionCache(bool enabled) : enabled_(enabled) {}

  // Read before the database lookup and passed to Put with its result.
  std::uint64_t Generation() const;
  // The cached session and user, when cached within the TTL.
  std::optional<Caller> Get(std::string_view token_hash, std::int64_t now) const;
  // Dropped when the cache was cleared since `generation` was read.
  void Put(std::string_view token_hash, const Caller& caller, std::uint64_t generation,
           std::int64_t now);
  void Clear();

 private:
  struct Entry {
    Caller caller;  // without its token: the key stands for it
    std::int64_t cached_at = 0;
  };
  void MakeRoom(std::int64_t now);

  const bool enabled_;
  mutable std::mutex mutex_;
  std::uint64_t generation_ = 0;
  std::unordered_map<std::string, Entry> entries_;
};

}  // namespace cairn::auth
