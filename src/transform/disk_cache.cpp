#include "transform/disk_cache.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <vector>

#include "common/crypto.hpp"
#include "common/log.hpp"

namespace cairn::transform {
namespace {

constexpr std::string_view kTemporarySuffix = ".tmp";
constexpr std::size_t kKeyLength = 64;
constexpr auto kTouchInterval = std::chrono::seconds(60);

bool IsKey(std::string_view text) {
  return text.size() == kKeyLength && std::all_of(text.begin(), text.end(), [](char c) {
           return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f');
         });
}

std::string ErrnoText() {
  return std::strerror(errno);
}

}  // namespace

FileHandle& FileHandle::operator=(FileHandle&& other) noexcept {
  if (this != &other) {
    if (fd_ >= 0) ::close(fd_);
    fd_ = std::exchange(other.fd_, -1);
  }
  return *this;
}

FileHandle::~FileHandle() {
  if (fd_ >= 0) ::close(fd_);
}

DiskCache::DiskCache(std::filesystem::path directory, std::uint64_t max_bytes)
    : directory_(std::move(directory)), max_bytes_(max_bytes) {}

std::filesystem::path DiskCache::PathOf(std::string_view key, Output output) const {
  std::string name(key);
  name += '.';
  name += ExtensionOf(output);
  return directory_ / name;
}

Status DiskCache::Start() {
  std::error_code ec;
  std::filesystem::create_directories(directory_, ec);
  if (ec) {
    return Error::Internal("transform cache " + directory_.string() + ": " + ec.message());
  }
  std::filesystem::permissions(directory_, std::filesystem::perms::owner_all,
                               std::filesystem::perm_options::replace, ec);
  struct Found {
    std::string key;
    Output output;
    std::uint64_t size;
    std::filesystem::file_time_type modified;
  };
  std::vector<Found> found;
  for (const auto& item : std::filesystem::directory_iterator(directory_, ec)) {
    const std::string name = item.path().filename().string();
    if (name.ends_with(kTemporarySuffix)) {
      std::filesystem::remove(item.path(), ec);  // a write a crash interrupted
      continue;
    }
    const std::size_t dot = name.find('.');
    if (dot == std::string::npos || !IsKey(std::string_view(name).substr(0, dot))) continue;
    const auto output = OutputOfExtension(std::string_view(name).substr(dot + 1));
    if (!output || !item.is_regular_file(ec)) continue;
    found.push_back({name.substr(0, dot), *output, item.file_size(ec), item.last_write_time(ec)});
  }
  if (ec) return Error::Internal("transform cache " + directory_.string() + ": " + ec.message());
  // Oldest first, so the newest ends at the front of the recency list.
  std::sort(found.begin(), found.end(),
            [](const Found& a, const Found& b) { return a.modified < b.modified; });
  const std::lock_guard lock(mutex_);
  for (const Found& entry : found) InsertLocked(entry.key, entry.output, entry.size, true);
  EvictLocked();
  return {};
}

void DiskCache::InsertLocked(const std::string& key, Output output, std::uint64_t size,
                             bool most_recent) {
  if (auto it = entries_.find(key); it != entries_.end()) {
    total_ -= it->second.size;
    recent_.erase(it->second.recency);
    entries_.erase(it);
  }
  auto position =
      most_recent ? recent_.insert(recent_.begin(), key) : recent_.insert(recent_.end(), key);
  entries_[key] = Entry{output, size, position, std::chrono::steady_clock::now()};
  total_ += size;
}

void DiskCache::EvictLocked() {
  while (total_ > max_bytes_ && !recent_.empty()) {
    const std::string key = recent_.back();
    recent_.pop_back();
    const auto it = entries_.find(key);
    if (it == entries_.end()) continue;
    std::error_code ec;
    std::filesystem::remove(PathOf(key, it->second.output), ec);
    total_ -= it->second.size;
    entries_.erase(it);
  }
}

std::optional<DiskCache::Hit> DiskCache::Find(std::string_view key) {
  Output output{};
  bool touch = false;
  {
    const std::lock_guard lock(mutex_);
    const auto it = entries_.find(std::string(key));
    if (it == entries_.end()) return std::nullopt;
    recent_.splice(recent_.begin(), recent_, it->second.recency);
    output = it->second.output;
    const auto now = std::chrono::steady_clock::now();
    if (now - it->second.touched > kTouchInterval) {
      it->second.touched = now;
      touch = true;
    }
  }
  FileHandle file(::open(PathOf(key, output).c_str(), O_RDONLY | O_CLOEXEC | O_NOFOLLOW));
  struct stat status {};
  if (file.get() < 0 || ::fstat(file.get(), &status) != 0) {
    // Removed behind the cache's back (or evicted just now): a miss.
    const std::lock_guard lock(mutex_);
    if (const auto it = entries_.find(std::string(key)); it != entries_.end()) {
      total_ -= it->second.size;
      recent_.erase(it->second.recency);
      entries_.erase(it);
    }
    return std::nullopt;
  }
  // Recency survives a restart through the modification time.
  if (touch) ::futimens(file.get(), nullptr);
  return Hit{std::move(file), static_cast<std::uint64_t>(status.st_size), output};
}

Status DiskCache::Put(std::string_view key, Output output, std::string_view bytes) {
  if (bytes.size() > max_bytes_) return {};
  const std::filesystem::path final_path = PathOf(key, output);
  const std::filesystem::path temporary =
      directory_ /
      (std::string(key) + "." + crypto::RandomAlphanumeric(8) + std::string(kTemporarySuffix));
  FileHandle file(::open(temporary.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600));
  if (file.get() < 0) return Error::Internal("transform cache: " + ErrnoText());
  std::string_view rest = bytes;
  while (!rest.empty()) {
    const ssize_t written = ::write(file.get(), rest.data(), rest.size());
    if (written < 0 && errno == EINTR) continue;
    if (written <= 0) {
      const std::string reason = ErrnoText();
      std::error_code ec;
      std::filesystem::remove(temporary, ec);
      return Error::Internal("transform cache: " + reason);
    }
    rest.remove_prefix(static_cast<std::size_t>(written));
  }
  if (::fsync(file.get()) != 0 || std::rename(temporary.c_str(), final_path.c_str()) != 0) {
    const std::string reason = ErrnoText();
    std::error_code ec;
    std::filesystem::remove(temporary, ec);
    return Error::Internal("transform cache: " + reason);
  }
  const std::lock_guard lock(mutex_);
  InsertLocked(std::string(key), output, bytes.size(), true);
  EvictLocked();
  return {};
}

std::uint64_t DiskCache::size_bytes() const {
  const std::lock_guard lock(mutex_);
  return total_;
}

std::size_t DiskCache::entry_count() const {
  const std::lock_guard lock(mutex_);
  return entries_.size();
}

}  // namespace cairn::transform
