// The transform cache on disk (interface.md "Storage: image transforms" rule 10): one file per
// entry, `<key>.<extension>` in STORAGE_TRANSFORM_CACHE_DIR, written to a temporary file, fsynced
// and renamed into place (a reader never sees half an entry), evicted least-recently-used so the
// total stays within STORAGE_TRANSFORM_CACHE_MAX_SIZE. The accounting lives in memory and is
// rebuilt from the directory at startup (recency from each file's modification time, which hits
// refresh at most once a minute). Removing the directory only costs the next requests a
// transform; originals are never here.
#pragma once

#include <chrono>
#include <cstdint>
#include <filesystem>
#include <list>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>

#include "common/result.hpp"
#include "transform/image.hpp"

namespace cairn::transform {

// An open file descriptor, closed with its owner.
class FileHandle {
 public:
  FileHandle() = default;
  explicit FileHandle(int fd) : fd_(fd) {}
  FileHandle(FileHandle&& other) noexcept : fd_(std::exchange(other.fd_, -1)) {}
  FileHandle& operator=(FileHandle&& other) noexcept;
  FileHandle(const FileHandle&) = delete;
  FileHandle& operator=(const FileHandle&) = delete;
  ~FileHandle();
  int get() const { return fd_; }

 private:
  int fd_ = -1;
};

class DiskCache {
 public:
  DiskCache(std::filesystem::path directory, std::uint64_t max_bytes);

  // Creates the directory (0700), removes temporary files a crash left, and indexes the entries
  // there, evicting down to the limit when it shrank. Called once, before any request.
  Status Start();

  struct Hit {
    FileHandle file;  // open for reading; stays readable even if evicted meanwhile
    std::uint64_t size = 0;
    Output output = Output::kJpeg;
  };
  // The entry of `key` (64 hex digits), marked as just used; nullopt when there is none.
  std::optional<Hit> Find(std::string_view key);
  // Stores `bytes` under `key` atomically, then evicts the least recently used entries beyond
  // the limit. An entry larger than the whole cache is not kept (nothing is evicted for it).
  Status Put(std::string_view key, Output output, std::string_view bytes);

  std::uint64_t size_bytes() const;
  std::size_t entry_count() const;
  const std::filesystem::path& directory() const { return directory_; }

 private:
  struct Entry {
    Output output = Output::kJpeg;
    std::uint64_t size = 0;
    std::list<std::string>::iterator recency;  // into recent_, front = most recent
    std::chrono::steady_clock::time_point touched;
  };

  std::filesystem::path PathOf(std::string_view key, Output output) const;
  // With mutex_ held: drops entries from the back until the total fits.
  void EvictLocked();
  void InsertLocked(const std::string& key, Output output, std::uint64_t size, bool most_recent);

  std::filesystem::path directory_;
  std::uint64_t max_bytes_;
  mutable std::mutex mutex_;
  std::list<std::string> recent_;
  std::unordered_map<std::string, Entry> entries_;
  std::uint64_t total_ = 0;
};

}  // namespace cairn::transform
