// Attachment fields over file storage (D45): the records module's AttachmentFiles answered by the
// storage service — a file's real size and type from its backend, and the signed (or, for public
// files, direct) URL a read embeds.
#pragma once

#include <cstdint>
#include <functional>

#include "records/attachment_files.hpp"
#include "storage/storage_service.hpp"
#include "transform/transform_service.hpp"

namespace cairn::app {

class StorageAttachmentFiles final : public records::AttachmentFiles {
 public:
  // `now_seconds` dates the embedded URLs (the same clock as the storage routes).
  // `transforms` (null: not served) checks the transforms attachment values carry.
  StorageAttachmentFiles(storage::StorageService& storage,
                         std::function<std::int64_t()> now_seconds,
                         const transform::TransformService* transforms = nullptr)
      : storage_(storage), now_seconds_(std::move(now_seconds)), transforms_(transforms) {}

  Result<std::optional<records::StoredFile>> Find(std::string_view bucket,
                                                  std::string_view path) const override;
  Result<std::string> NormalizeTransform(const boost::json::object& transform,
                                         std::string_view mime_type) const override;
  void AppendLinks(std::string_view bucket, std::string_view path, std::string_view transform,
                   std::string& out) const override;

 private:
  storage::StorageService& storage_;
  std::function<std::int64_t()> now_seconds_;
  const transform::TransformService* transforms_;
};

}  // namespace cairn::app
