// A per-connection LRU cache of prepared statements keyed by SQL text. The backend supplies the
// handle type and what evicting one means (sqlite3_finalize, DEALLOCATE).
#pragma once

#include <cstddef>
#include <functional>
#include <list>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>

namespace cairn::db {

template <class Statement>
class StatementCache {
 public:
  using Evict = std::function<void(Statement&)>;

  StatementCache(std::size_t capacity, Evict evict)
      : capacity_(capacity), evict_(std::move(evict)) {}
  ~StatementCache() { Clear(); }
  StatementCache(const StatementCache&) = delete;
  StatementCache& operator=(const StatementCache&) = delete;

  // The cached statement for `sql` (now the most recently used), or null.
  Statement* Find(std::string_view sql) {
    const auto it = index_.find(sql);
    if (it == index_.end()) return nullptr;
    entries_.splice(entries_.begin(), entries_, it->second);
    return &it->second->second;
  }

  // Caches `statement` for `sql` (not already cached), evicting the least recently used one
  // beyond capacity.
  Statement& Insert(std::string_view sql, Statement statement) {
    entries_.emplace_front(std::string(sql), std::move(statement));
    index_.emplace(std::string_view(entries_.front().first), entries_.begin());
    while (entries_.size() > capacity_) EvictEntry(std::prev(entries_.end()));
    return entries_.front().second;
  }

  void Erase(std::string_view sql) {
    const auto it = index_.find(sql);
    if (it != index_.end()) EvictEntry(it->second);
  }

  void Clear() {
    while (!entries_.empty()) EvictEntry(entries_.begin());
  }

  std::size_t size() const { return entries_.size(); }

 private:
  using Entries = std::list<std::pair<std::string, Statement>>;

  void EvictEntry(typename Entries::iterator it) {
    index_.erase(std::string_view(it->first));
    if (evict_) evict_(it->second);
    entries_.erase(it);
  }

  std::size_t capacity_;
  Evict evict_;
  Entries entries_;
  std::unordered_map<std::string_view, typename Entries::iterator> index_;
};

}  // namespace cairn::db
