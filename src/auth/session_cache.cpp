#include "auth/session_cache.hpp"

#include <iterator>

#include "auth/limits.hpp"

namespace cairn::auth {

std::uint64_t SessionCache::Generation() const {
  std::lock_guard lock(mutex_);
  return generation_;
}

std::optional<Caller> SessionCache::Get(std::string_view token_hash, std::int64_t now) const {
  if (!enabled_) return std::nullopt;
  std::lock_guard lock(mutex_);
  const auto found = entries_.find(std::string(token_hash));
  if (found == entries_.end() || now - found->second.cached_at >= kSessionCacheTtlMillis) {
    return std::nullopt;
  }
  return found->second.caller;
}

void SessionCache::Put(std::string_view token_hash, const Caller& caller, std::uint64_t generation,
                       std::int64_t now) {
  if (!enabled_) return;
  std::lock_guard lock(mutex_);
  if (generation != generation_) return;
  if (entries_.size() >= kSessionCacheMaxEntries) MakeRoom(now);
  Entry& entry = entries_[std::string(token_hash)];
  entry.caller.user = caller.user;
  entry.caller.session = caller.session;
  entry.cached_at = now;
}

void SessionCache::Clear() {
  std::lock_guard lock(mutex_);
  ++generation_;
  entries_.clear();
}

void SessionCache::MakeRoom(std::int64_t now) {
  for (auto it = entries_.begin(); it != entries_.end();) {
    it = now - it->second.cached_at >= kSessionCacheTtlMillis ? entries_.erase(it) : std::next(it);
  }
  if (entries_.size() >= kSessionCacheMaxEntries) entries_.clear();
}

}  // namespace cairn::auth
