#include "app/attachment_storage.hpp"

#include "common/json.hpp"
#include "common/time.hpp"
#include "storage/file_path.hpp"
#include "storage/limits.hpp"

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

void StorageAttachmentFiles::AppendLinks(std::string_view bucket, std::string_view path,
                                         std::string& out) const {
  const config::Bucket* config = storage_.FindBucket(bucket);
  if (config == nullptr || storage::PathProblem(path)) return;
  if (storage_.IsPublic(*config, path)) {
    out += R"(,"url":)";
    json::AppendString(out, storage_.FileUrl(bucket, path));
    return;
  }
  const storage::SignedUrl link =
      storage_.SignDownload(bucket, path, storage::kAttachmentUrlSeconds, now_seconds_());
  out += R"(,"signedUrl":)";
  json::AppendString(out, link.url);
  out += R"(,"signedUrlExpiresAt":")";
  time::AppendIso(out, link.expires_at * 1000);
  out += '"';
}

}  // namespace cairn::app
