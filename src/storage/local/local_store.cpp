#include "storage/local/local_store.hpp"

#include <dirent.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <system_error>

#include "common/crypto.hpp"
#include "common/log.hpp"
#include "storage/limits.hpp"
#include "storage/media_type.hpp"

namespace cairn::storage {
namespace {

constexpr const char* kStagingDirectory = ".staging";
constexpr std::string_view kStagingSuffix = ".part";
// Cached media types; the cache is emptied when it reaches this many (files are re-detected).
constexpr std::size_t kMaxCachedMediaTypes = 16384;
constexpr mode_t kFileMode = 0640;
constexpr mode_t kDirectoryMode = 0750;

// Owns a file descriptor.
class Fd {
 public:
  Fd() = default;
  explicit Fd(int fd) : fd_(fd) {}
  Fd(Fd&& other) noexcept : fd_(std::exchange(other.fd_, -1)) {}
  Fd& operator=(Fd&& other) noexcept {
    if (this != &other) {
      Reset();
      fd_ = std::exchange(other.fd_, -1);
    }
    return *this;
  }
  Fd(const Fd&) = delete;
  Fd& operator=(const Fd&) = delete;
  ~Fd() { Reset(); }
  int get() const { return fd_; }
  bool valid() const { return fd_ >= 0; }
  void Reset() {
    if (fd_ >= 0) ::close(fd_);
    fd_ = -1;
  }

 private:
  int fd_ = -1;
};

bool IsDiskFull(int error) {
  return error == ENOSPC || error == EDQUOT || error == EFBIG;
}

Error IoError(const std::string& what, int error) {
  if (IsDiskFull(error)) {
    Error full = Error::Unavailable("Storage is full: the file was not stored",
                                    what + ": " + std::strerror(error));
    full.http_status = 507;
    return full;
  }
  return Error::Internal(what + ": " + std::strerror(error));
}

std::string IdentityKey(std::string_view bucket, std::string_view path, const struct stat& st) {
  std::string key(bucket);
  key += '/';
  key += path;
  key += '|';
  key += std::to_string(st.st_dev) + ':' + std::to_string(st.st_ino) + ':' +
         std::to_string(st.st_size) + ':' + std::to_string(st.st_mtim.tv_sec) + '.' +
         std::to_string(st.st_mtim.tv_nsec);
  return key;
}

std::string EtagOf(const std::string& identity) {
  return '"' + crypto::Sha256Hex(identity).substr(0, 32) + '"';
}

std::int64_t MillisOf(const struct stat& st) {
  return static_cast<std::int64_t>(st.st_mtim.tv_sec) * 1000 + st.st_mtim.tv_nsec / 1'000'000;
}

// The parent directory of `path` inside `bucket` (opened without following any symlink) and the
// last segment. With `create`, missing directories are made. ENOENT / ENOTDIR / ELOOP come back
// as errno in `error` with an invalid descriptor.
struct Parent {
  Fd dir;
  std::string leaf;
  int error = 0;
};

Parent OpenParent(int root_fd, std::string_view bucket, std::string_view path, bool create) {
  Parent parent;
  std::string segment(bucket);
  int at = root_fd;
  Fd current;
  std::size_t start = 0;
  while (true) {
    if (create) ::mkdirat(at, segment.c_str(), kDirectoryMode);  // EEXIST is fine
    Fd next(::openat(at, segment.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC));
    if (!next.valid()) {
      parent.error = errno;
      return parent;
    }
    current = std::move(next);
    at = current.get();
    const std::size_t slash = path.find('/', start);
    if (slash == std::string_view::npos) {
      parent.leaf = std::string(path.substr(start));
      parent.dir = std::move(current);
      return parent;
    }
    segment = std::string(path.substr(start, slash - start));
    start = slash + 1;
  }
}

class LocalReader final : public ObjectReader {
 public:
  LocalReader(Fd fd, ByteRange range) : fd_(std::move(fd)), offset_(range.offset) {
    remaining_ = range.length;
    ::posix_fadvise(fd_.get(), static_cast<off_t>(offset_), static_cast<off_t>(remaining_),
                    POSIX_FADV_SEQUENTIAL);
  }
  Result<std::size_t> Read(std::span<char> buffer) override {
    if (remaining_ == 0) return std::size_t{0};
    const std::size_t want =
        static_cast<std::size_t>(std::min<std::uint64_t>(remaining_, buffer.size()));
    while (true) {
      const ssize_t got = ::pread(fd_.get(), buffer.data(), want, static_cast<off_t>(offset_));
      if (got < 0 && errno == EINTR) continue;
      if (got < 0) return IoError("reading a stored file", errno);
      if (got == 0) return Error::Internal("a stored file ended before its size");
      offset_ += static_cast<std::uint64_t>(got);
      remaining_ -= static_cast<std::uint64_t>(got);
      return static_cast<std::size_t>(got);
    }
  }

 private:
  Fd fd_;
  std::uint64_t offset_;
  std::uint64_t remaining_;
};

class LocalWriter final : public ObjectWriter {
 public:
  LocalWriter(LocalObjectStore& store, int root_fd, int staging_fd, std::string bucket,
              std::string path, std::string staged, Fd fd)
      : store_(store),
        root_fd_(root_fd),
        staging_fd_(staging_fd),
        bucket_(std::move(bucket)),
        path_(std::move(path)),
        staged_(std::move(staged)),
        fd_(std::move(fd)) {}
  ~LocalWriter() override { Discard(); }
  LocalWriter(const LocalWriter&) = delete;
  LocalWriter& operator=(const LocalWriter&) = delete;

  Status Write(std::string_view chunk) override {
    while (!chunk.empty()) {
      const ssize_t wrote = ::write(fd_.get(), chunk.data(), chunk.size());
      if (wrote < 0 && errno == EINTR) continue;
      if (wrote < 0) return IoError("writing an upload", errno);
      chunk.remove_prefix(static_cast<std::size_t>(wrote));
    }
    return {};
  }

  Result<ObjectInfo> Commit(std::string_view mime_type) override {
    if (::fsync(fd_.get()) != 0) return IoError("flushing an upload", errno);
    struct stat st {};
    if (::fstat(fd_.get(), &st) != 0) return IoError("reading an upload's size", errno);
    Parent parent = OpenParent(root_fd_, bucket_, path_, true);
    if (!parent.dir.valid()) {
      if (parent.error == ENOTDIR || parent.error == ELOOP) {
        return Error::Validation("Invalid path",
                                 {{"path", "part of the path is a file, not a folder"}});
      }
      return IoError("creating the folders of an upload", parent.error);
    }
    if (::renameat(staging_fd_, staged_.c_str(), parent.dir.get(), parent.leaf.c_str()) != 0) {
      if (errno == EISDIR || errno == ENOTEMPTY || errno == EEXIST) {
        return Error::Validation("Invalid path", {{"path", "a folder exists at this path"}});
      }
      return IoError("moving an upload into place", errno);
    }
    staged_.clear();
    // The rename is durable once the directory that holds the new name is.
    if (::fsync(parent.dir.get()) != 0) return IoError("flushing a folder", errno);
    const std::string identity = IdentityKey(bucket_, path_, st);
    store_.RememberMediaType(identity, std::string(mime_type));
    return ObjectInfo{path_, static_cast<std::uint64_t>(st.st_size), std::string(mime_type),
                      EtagOf(identity), MillisOf(st)};
  }

  void Abort() override { Discard(); }

 private:
  void Discard() {
    fd_.Reset();
    if (!staged_.empty()) ::unlinkat(staging_fd_, staged_.c_str(), 0);
    staged_.clear();
  }

  LocalObjectStore& store_;
  int root_fd_;
  int staging_fd_;
  std::string bucket_;
  std::string path_;
  std::string staged_;  // name in the staging directory; empty once renamed or removed
  Fd fd_;
};

// A directory stream over a duplicate of `dir_fd` (closedir closes the duplicate alone).
DIR* OpenDirectory(int dir_fd) {
  const int copy = ::dup(dir_fd);
  if (copy < 0) return nullptr;
  DIR* dir = ::fdopendir(copy);
  if (dir == nullptr) ::close(copy);
  return dir;
}

// Appends the regular files under `dir` (relative names joined with `/`) that start with
// `prefix`, without following symlinks.
void CollectFiles(int dir_fd, const std::string& relative, std::string_view prefix,
                  std::vector<std::string>& out) {
  DIR* dir = OpenDirectory(dir_fd);
  if (dir == nullptr) return;
  const int fd = ::dirfd(dir);
  std::vector<std::pair<std::string, bool>> entries;
  while (const dirent* entry = ::readdir(dir)) {
    const std::string name = entry->d_name;
    if (name == "." || name == "..") continue;
    struct stat st {};
    if (::fstatat(fd, name.c_str(), &st, AT_SYMLINK_NOFOLLOW) != 0) continue;
    if (S_ISREG(st.st_mode)) entries.emplace_back(name, false);
    if (S_ISDIR(st.st_mode)) entries.emplace_back(name, true);
  }
  for (const auto& [name, is_dir] : entries) {
    const std::string path = relative.empty() ? name : relative + '/' + name;
    // Only descend where the prefix can still match.
    const std::string_view common = std::string_view(path).substr(0, prefix.size());
    if (!is_dir) {
      if (path.starts_with(prefix)) out.push_back(path);
      continue;
    }
    if (!prefix.starts_with(common) && !path.starts_with(prefix)) continue;
    Fd child(::openat(fd, name.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC));
    if (child.valid()) CollectFiles(child.get(), path, prefix, out);
  }
  ::closedir(dir);
}

}  // namespace

LocalObjectStore::LocalObjectStore(std::filesystem::path root) : root_(std::move(root)) {}

LocalObjectStore::~LocalObjectStore() {
  if (staging_fd_ >= 0) ::close(staging_fd_);
  if (root_fd_ >= 0) ::close(root_fd_);
}

Status LocalObjectStore::Start() {
  std::error_code ec;
  std::filesystem::create_directories(root_, ec);
  if (ec) {
    return Error::Unavailable("cannot create STORAGE_LOCAL_DIRECTORY " + root_.string() + ": " +
                              ec.message());
  }
  root_fd_ = ::open(root_.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (root_fd_ < 0) {
    return Error::Unavailable("cannot open STORAGE_LOCAL_DIRECTORY " + root_.string() + ": " +
                              std::strerror(errno));
  }
  ::mkdirat(root_fd_, kStagingDirectory, kDirectoryMode);
  staging_fd_ =
      ::openat(root_fd_, kStagingDirectory, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
  if (staging_fd_ < 0) {
    return Error::Unavailable("cannot open " + (root_ / kStagingDirectory).string() + ": " +
                              std::strerror(errno));
  }
  // Uploads a crash interrupted: never renamed into place, so nothing refers to them.
  int removed = 0;
  if (DIR* dir = OpenDirectory(staging_fd_)) {
    std::vector<std::string> names;
    while (const dirent* entry = ::readdir(dir)) {
      const std::string_view name = entry->d_name;
      if (name.ends_with(kStagingSuffix)) names.emplace_back(name);
    }
    ::closedir(dir);
    for (const std::string& name : names) {
      if (::unlinkat(staging_fd_, name.c_str(), 0) == 0) ++removed;
    }
  }
  if (removed > 0) {
    log::Info("storage: removed " + std::to_string(removed) + " unfinished upload(s)");
  }
  return {};
}

std::string LocalObjectStore::MediaTypeOf(int fd, const std::string& key) {
  {
    std::lock_guard lock(cache_mutex_);
    if (auto it = media_types_.find(key); it != media_types_.end()) return it->second;
  }
  std::string head(kSniffBytes, '\0');
  std::size_t filled = 0;
  while (filled < head.size()) {
    const ssize_t got =
        ::pread(fd, head.data() + filled, head.size() - filled, static_cast<off_t>(filled));
    if (got < 0 && errno == EINTR) continue;
    if (got <= 0) break;
    filled += static_cast<std::size_t>(got);
  }
  head.resize(filled);
  std::string type = DetectMediaType(head);
  RememberMediaType(key, type);
  return type;
}

void LocalObjectStore::RememberMediaType(const std::string& key, std::string type) {
  std::lock_guard lock(cache_mutex_);
  if (media_types_.size() >= kMaxCachedMediaTypes) media_types_.clear();
  media_types_[key] = std::move(type);
}

Result<std::optional<ObjectInfo>> LocalObjectStore::Stat(std::string_view bucket,
                                                         std::string_view path) {
  Parent parent = OpenParent(root_fd_, bucket, path, false);
  if (!parent.dir.valid()) return std::optional<ObjectInfo>();
  Fd fd(::openat(parent.dir.get(), parent.leaf.c_str(), O_RDONLY | O_NOFOLLOW | O_CLOEXEC));
  struct stat st {};
  if (!fd.valid() || ::fstat(fd.get(), &st) != 0 || !S_ISREG(st.st_mode)) {
    return std::optional<ObjectInfo>();
  }
  const std::string identity = IdentityKey(bucket, path, st);
  return std::optional<ObjectInfo>(
      ObjectInfo{std::string(path), static_cast<std::uint64_t>(st.st_size),
                 MediaTypeOf(fd.get(), identity), EtagOf(identity), MillisOf(st)});
}

Result<std::unique_ptr<ObjectReader>> LocalObjectStore::Open(std::string_view bucket,
                                                             std::string_view path,
                                                             ByteRange range) {
  Parent parent = OpenParent(root_fd_, bucket, path, false);
  if (!parent.dir.valid()) return Error::NotFound("File not found");
  Fd fd(::openat(parent.dir.get(), parent.leaf.c_str(), O_RDONLY | O_NOFOLLOW | O_CLOEXEC));
  struct stat st {};
  if (!fd.valid() || ::fstat(fd.get(), &st) != 0 || !S_ISREG(st.st_mode)) {
    return Error::NotFound("File not found");
  }
  if (range.offset + range.length > static_cast<std::uint64_t>(st.st_size)) {
    // Replaced by a shorter file since it was looked at: serve what is there now.
    range.length = static_cast<std::uint64_t>(st.st_size) > range.offset
                       ? static_cast<std::uint64_t>(st.st_size) - range.offset
                       : 0;
  }
  return std::unique_ptr<ObjectReader>(std::make_unique<LocalReader>(std::move(fd), range));
}

Result<std::unique_ptr<ObjectWriter>> LocalObjectStore::Create(std::string_view bucket,
                                                               std::string_view path) {
  std::string staged = crypto::RandomAlphanumeric(24) + std::string(kStagingSuffix);
  Fd fd(::openat(staging_fd_, staged.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW,
                 kFileMode));
  if (!fd.valid()) return IoError("creating an upload", errno);
  return std::unique_ptr<ObjectWriter>(
      std::make_unique<LocalWriter>(*this, root_fd_, staging_fd_, std::string(bucket),
                                    std::string(path), std::move(staged), std::move(fd)));
}

Result<bool> LocalObjectStore::Remove(std::string_view bucket, std::string_view path) {
  Parent parent = OpenParent(root_fd_, bucket, path, false);
  if (!parent.dir.valid()) return false;
  struct stat st {};
  if (::fstatat(parent.dir.get(), parent.leaf.c_str(), &st, AT_SYMLINK_NOFOLLOW) != 0 ||
      !S_ISREG(st.st_mode)) {
    return false;
  }
  if (::unlinkat(parent.dir.get(), parent.leaf.c_str(), 0) != 0) {
    if (errno == ENOENT) return false;
    return IoError("removing a file", errno);
  }
  ::fsync(parent.dir.get());
  return true;
}

Result<ListPage> LocalObjectStore::List(std::string_view bucket, std::string_view prefix, int limit,
                                        std::string_view cursor) {
  std::optional<std::string> after;
  if (!cursor.empty()) {
    after = crypto::Base64UrlDecode(cursor);
    if (!after)
      return Error::Validation("Invalid cursor", {{"cursor", "is not a cursor of this list"}});
  }
  std::vector<std::string> paths;
  Fd bucket_dir(::openat(root_fd_, std::string(bucket).c_str(),
                         O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC));
  if (bucket_dir.valid()) CollectFiles(bucket_dir.get(), "", prefix, paths);
  std::sort(paths.begin(), paths.end());
  auto begin = after ? std::upper_bound(paths.begin(), paths.end(), *after) : paths.begin();
  ListPage page;
  for (auto it = begin; it != paths.end(); ++it) {
    if (static_cast<int>(page.objects.size()) == limit) {
      page.next_cursor = crypto::Base64Url(page.objects.back().path);
      break;
    }
    CAIRN_ASSIGN_OR_RETURN(auto info, Stat(bucket, *it));
    if (info) page.objects.push_back(std::move(*info));
  }
  return page;
}

}  // namespace cairn::storage
