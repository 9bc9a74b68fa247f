// File storage (D40–D47) without HTTP: buckets and their permissions, public paths, signed URL
// tokens, and uploads that detect their type from the bytes before committing them. The routes
// (api/storage_api.cpp) map requests onto it; the backends sit behind ObjectStore.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "common/result.hpp"
#include "config/model.hpp"
#include "storage/object_store.hpp"
#include "storage/signed_token.hpp"
#include "storage/storage_settings.hpp"

namespace cairn::storage {

enum class BucketAction { kSign, kSignUpload, kDownload, kDelete };

struct SignedUrl {
  std::string url;          // absolute
  std::int64_t expires_at;  // epoch seconds
};

// An upload in progress: the first kSniffBytes are held until the type is known, checked
// against the token's content type and the bucket's allowedMimeTypes, then everything streams
// to the backend's staged writer. Nothing is visible before Finish.
class Upload {
 public:
  Upload(std::unique_ptr<ObjectWriter> writer, std::string declared_type,
         const std::vector<std::string>& allowed_types);
  Status Write(std::string_view chunk);
  Result<ObjectInfo> Finish();
  void Abort();

 private:
  Status DetectAndFlush();

  std::unique_ptr<ObjectWriter> writer_;
  std::string declared_type_;
  const std::vector<std::string>& allowed_types_;
  std::string head_;
  std::string media_type_;  // empty until detected
};

class StorageService {
 public:
  // `secret` signs the tokens (AUTH_SECRET or the generated one); `base_url` starts every URL.
  StorageService(const config::AppConfig& config, StorageSettings settings, ObjectStore& store,
                 std::string_view secret, std::string base_url);

  ObjectStore& store() { return store_; }
  const config::Bucket* FindBucket(std::string_view name) const;
  const std::vector<config::Bucket>& buckets() const { return config_.buckets; }

  // Whether a caller of `role` may do `action` in `bucket` (D43, Authentication rule 5): admin
  // always; otherwise the bucket's permission (absent: admin only) and, for signing, the role's
  // own permissions.storage flag when it declares one.
  bool Allows(const config::Bucket& bucket, BucketAction action, std::string_view role) const;
  // Whether files at `path` are served without a token: a public bucket,
  // STORAGE_DEFAULT_ACCESS=public, or a STORAGE_PUBLIC_PATHS prefix of `<bucket>/<path>`.
  bool IsPublic(const config::Bucket& bucket, std::string_view path) const;

  // `signer_id` (the signing user, may be empty) goes into the token for the activity log.
  // `transform` (transform::Normalize's text, may be empty) is signed into the token: the URL
  // serves that transform alone. A transform is always a cairn token, even on s3 (the service
  // cannot transform).
  SignedUrl SignDownload(std::string_view bucket, std::string_view path, std::int64_t expires_in,
                         std::int64_t now, std::string_view signer_id = {},
                         std::string_view transform = {}) const;
  SignedUrl SignUpload(std::string_view bucket, std::string_view path, std::int64_t expires_in,
                       std::string_view content_type, std::uint64_t max_size, std::int64_t now,
                       std::string_view signer_id = {}) const;
  // The URL of a public file (no token).
  std::string FileUrl(std::string_view bucket, std::string_view path) const;

  // The claims of `token` when it grants `operation` on exactly this bucket and path and has
  // not expired; a 403 otherwise.
  Result<TokenClaims> CheckToken(std::string_view bucket, std::string_view path,
                                 std::string_view token, Operation operation,
                                 std::int64_t now) const;

  // An upload to `path` of `bucket` whose type must fit `declared_type` (empty: any).
  Result<std::unique_ptr<Upload>> BeginUpload(const config::Bucket& bucket, std::string_view path,
                                              std::string declared_type);

 private:
  std::string UrlOf(std::string_view bucket, std::string_view path) const;

  const config::AppConfig& config_;
  StorageSettings settings_;
  ObjectStore& store_;
  TokenSigner signer_;
  std::string base_url_;
};

}  // namespace cairn::storage
