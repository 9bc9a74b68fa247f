// Attachment fields over file storage (D45): the records module's AttachmentFiles answered by the
// storage service — a file's real size and type from its backend, and the signed (or, for public
// files, direct) URL a read embeds.
#pragma once

#include <cstdint>
#include <functional>

#include "records/attachment_files.hpp"
#include "storage/storage_service.hpp"

namespace cairn::app {

class StorageAttachmentFiles final : public records::AttachmentFiles {
 public:
  // `now_seconds` dates the embedded URLs (the same clock as the storage routes).
  StorageAttachmentFiles(storage::StorageService& storage,
                         std::function<std::int64_t()> now_seconds)
      : storage_(storage), now_seconds_(std::move(now_seconds)) {}

  Result<std::optional<records::StoredFile>> Find(std::string_view bucket,
                                                  std::string_view path) const override;
  void AppendLinks(std::string_view bucket, std::string_view path, std::string& out) const override;

 private:
  storage::StorageService& storage_;
  std::function<std::int64_t()> now_seconds_;
};

}  // namespace cairn::app
