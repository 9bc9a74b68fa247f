#include "transform/object_input.hpp"

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <span>

namespace cairn::transform {

ObjectInput::ObjectInput(storage::ObjectStore& store, std::string_view bucket, std::string path,
                         std::uint64_t size, std::string head,
                         std::unique_ptr<storage::ObjectReader> reader)
    : store_(store),
      bucket_(bucket),
      path_(std::move(path)),
      size_(size),
      head_(std::move(head)),
      reader_(std::move(reader)),
      reader_at_(head_.size()) {
  const std::lock_guard lock(mutex_);  // publishes the members to libvips' threads
}

ObjectInput::~ObjectInput() {
  const std::lock_guard lock(mutex_);  // the members libvips' threads last wrote
}

std::optional<Error> ObjectInput::failure() const {
  const std::lock_guard lock(mutex_);
  return failure_;
}

// Fills the whole buffer unless the object ends first: some of libvips' loaders (TIFF's) take a
// short read for a truncated file.
std::int64_t ObjectInput::Read(void* buffer, std::int64_t length) {
  const std::lock_guard lock(mutex_);
  if (failure_ || length < 0) return -1;
  auto* out = static_cast<char*>(buffer);
  std::size_t filled = 0;
  const auto wanted = static_cast<std::size_t>(std::min<std::uint64_t>(
      static_cast<std::uint64_t>(length), size_ > position_ ? size_ - position_ : 0));
  while (filled < wanted) {
    const std::size_t want = wanted - filled;
    if (position_ < head_.size()) {
      const std::size_t count = std::min<std::size_t>(head_.size() - position_, want);
      std::memcpy(out + filled, head_.data() + position_, count);
      position_ += count;
      filled += count;
      continue;
    }
    if (reader_ && reader_at_ != position_) reader_.reset();
    if (!reader_) {
      auto reopened = store_.Open(bucket_, path_, {position_, size_ - position_});
      if (!reopened) {
        failure_ = reopened.error();
        return -1;
      }
      reader_ = std::move(*reopened);
      reader_at_ = position_;
    }
    auto got = reader_->Read(std::span<char>(out + filled, want));
    if (!got) {
      failure_ = got.error();
      return -1;
    }
    if (*got == 0) break;  // the object is shorter than it was said to be
    position_ += *got;
    reader_at_ = position_;
    filled += *got;
  }
  return static_cast<std::int64_t>(filled);
}

std::int64_t ObjectInput::Seek(std::int64_t offset, int whence) {
  const std::lock_guard lock(mutex_);
  std::int64_t base = 0;
  if (whence == SEEK_CUR) base = static_cast<std::int64_t>(position_);
  if (whence == SEEK_END) base = static_cast<std::int64_t>(size_);
  if (whence != SEEK_SET && whence != SEEK_CUR && whence != SEEK_END) return -1;
  const std::int64_t target = base + offset;
  if (target < 0) return -1;
  // Past the end is allowed (as lseek); reads there answer 0.
  position_ = static_cast<std::uint64_t>(target);
  return target;
}

}  // namespace cairn::transform
