// A stored file read by libvips as it decodes (transform::ImageInput over an ObjectStore): the
// first bytes, already read to detect the type, are served again from memory; past them the
// object is read in order, and a seek elsewhere reopens it at the new offset (a ranged read on
// every backend). So a transform holds a few buffers of its source, never the whole file.
#pragma once

#include <cstdint>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>

#include "common/result.hpp"
#include "storage/object_store.hpp"
#include "transform/image.hpp"

namespace cairn::transform {

class ObjectInput final : public ImageInput {
 public:
  // `head` holds the object's first bytes and `reader` continues right after them.
  ObjectInput(storage::ObjectStore& store, std::string_view bucket, std::string path,
              std::uint64_t size, std::string head, std::unique_ptr<storage::ObjectReader> reader);

  ~ObjectInput() override;

  std::int64_t Read(void* buffer, std::int64_t length) override;
  std::int64_t Seek(std::int64_t offset, int whence) override;

  // Why a read failed (the storage's error, not the image's), once one has.
  std::optional<Error> failure() const;

 private:
  storage::ObjectStore& store_;
  std::string bucket_;
  std::string path_;
  std::uint64_t size_;
  std::string head_;
  std::unique_ptr<storage::ObjectReader> reader_;  // positioned at reader_at_; null: reopen
  std::uint64_t reader_at_;
  std::uint64_t position_ = 0;
  std::optional<Error> failure_;
  // libvips calls Read and Seek from its own worker threads, handing off between them with
  // GLib's locks; this mutex makes that handoff (and the one from the thread that made the
  // input) one that ThreadSanitizer can see too. Never contended.
  mutable std::mutex mutex_;
};

}  // namespace cairn::transform
