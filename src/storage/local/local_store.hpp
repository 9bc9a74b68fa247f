// The local directory backend (D41): `<root>/<bucket>/<path>`, uploads staged in
// `<root>/.staging` (same filesystem, so the final rename is atomic). Every path is walked one
// segment at a time with O_NOFOLLOW from descriptors under the root, so no symlink, wherever it
// points, is ever followed; the media type of a file is detected from its first bytes and kept in
// a small cache keyed by the file's identity, so no metadata store can drift from the files.
#pragma once

#include <filesystem>
#include <mutex>
#include <string>
#include <unordered_map>

#include "storage/object_store.hpp"

namespace cairn::storage {

class LocalObjectStore final : public ObjectStore {
 public:
  explicit LocalObjectStore(std::filesystem::path root);
  ~LocalObjectStore() override;
  LocalObjectStore(const LocalObjectStore&) = delete;
  LocalObjectStore& operator=(const LocalObjectStore&) = delete;

  std::string_view provider() const override { return "local"; }
  Status Start() override;
  Result<std::optional<ObjectInfo>> Stat(std::string_view bucket, std::string_view path) override;
  Result<std::unique_ptr<ObjectReader>> Open(std::string_view bucket, std::string_view path,
                                             ByteRange range) override;
  Result<std::unique_ptr<ObjectWriter>> Create(std::string_view bucket,
                                               std::string_view path) override;
  Result<bool> Remove(std::string_view bucket, std::string_view path) override;
  Result<ListPage> List(std::string_view bucket, std::string_view prefix, int limit,
                        std::string_view cursor) override;

  // The media type of the regular file `fd` whose identity is `key` (cached). Internal.
  std::string MediaTypeOf(int fd, const std::string& key);
  void RememberMediaType(const std::string& key, std::string type);

 private:
  std::filesystem::path root_;
  int root_fd_ = -1;
  int staging_fd_ = -1;
  std::mutex cache_mutex_;
  std::unordered_map<std::string, std::string> media_types_;  // identity key → type
};

}  // namespace cairn::storage
