#include "app/attachment_storage.hpp"

#include "common/json.hpp"
#include "common/time.hpp"
#include "storage/file_path.hpp"
#include "storage/limits.hpp"
#include "transform/image.hpp"

namespace cairn::app {

Result<std::optional<records::StoredFile>> StorageAttachmentFiles::Find(
    std::string_view bucket, std::string_view path) const {
  if (storage_.FindBucket(bucket) == nullptr || storage::PathProblem(path)) {
    return std::optional<records::StoredFile>();
  }
  CAIRN_ASSIGN_OR_RETURN(auto info, storage_.store().Stat(bucket, path));
  if (!info) return std::optional<records::StoredFile>();
  return std::optional<records::StoredFile>(records::StoredFile{info->size, info->mime_type});
}

Result<std::string> StorageAttachmentFiles::NormalizeTransform(const boost::json::object& transform,
                                                               std::string_view mime_type) const {
  if (transforms_ == nullptr) {
    return Error::Validation("Invalid transform", {{"", "image transforms are not served"}});
  }
  CAIRN_ASSIGN_OR_RETURN(const transform::Params params,
                         transform::ParseObject(transform, transforms_->presets()));
  if (transform::SourceTypeOf(mime_type) == transform::SourceType::kNotImage) {
    return Error::Validation("Only images can be transformed",
                             {{"", "the file is " + std::string(mime_type) + ", not an image"}});
  }
  return transform::Normalize(params);
}

void StorageAttachmentFiles::AppendLinks(std::string_view bucket, std::string_view path,
                                         std::string_view transform, std::string& out) const {
  const config::Bucket* config = storage_.FindBucket(bucket);
  if (config == nullptr || storage::PathProblem(path)) return;
  // A transform is always a signed cairn URL (a public file's plain URL would serve the original).
  if (transform.empty() && storage_.IsPublic(*config, path)) {
    out += R"(,"url":)";
    json::AppendString(out, storage_.FileUrl(bucket, path));
    return;
  }
  const storage::SignedUrl link = storage_.SignDownload(
      bucket, path, storage::kAttachmentUrlSeconds, now_seconds_(), {}, transform);
  out += R"(,"signedUrl":)";
  json::AppendString(out, link.url);
  out += R"(,"signedUrlExpiresAt":")";
  time::AppendIso(out, link.expires_at * 1000);
  out += '"';
}

}  // namespace cairn::app
