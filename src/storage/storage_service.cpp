#include "storage/storage_service.hpp"

#include <algorithm>

#include "common/text.hpp"
#include "storage/limits.hpp"
#include "storage/media_type.hpp"

namespace cairn::storage {
namespace {

constexpr std::string_view kAdminRole = "admin";

bool RuleAdmits(const config::PermissionRule& rule, std::string_view role) {
  switch (rule.kind) {
    case config::PermissionRule::Kind::kAll:
    case config::PermissionRule::Kind::kAuthenticated:
      return true;  // every caller here has a session
    case config::PermissionRule::Kind::kRoles:
      return std::find(rule.roles.begin(), rule.roles.end(), role) != rule.roles.end();
  }
  return false;
}

// `prefix` covers `full` when it is all of it or a whole leading part of its segments.
bool CoversPath(std::string_view prefix, std::string_view full) {
  if (!full.starts_with(prefix)) return false;
  return full.size() == prefix.size() || prefix.ends_with('/') || full[prefix.size()] == '/';
}

}  // namespace

// --- Upload --------------------------------------------------------------------------------------

Upload::Upload(std::unique_ptr<ObjectWriter> writer, std::string declared_type,
               const std::vector<std::string>& allowed_types)
    : writer_(std::move(writer)),
      declared_type_(std::move(declared_type)),
      allowed_types_(allowed_types) {}

Status Upload::Write(std::string_view chunk) {
  if (media_type_.empty()) {
    const std::size_t take = std::min(chunk.size(), kSniffBytes - head_.size());
    head_.append(chunk.substr(0, take));
    chunk.remove_prefix(take);
    if (head_.size() < kSniffBytes) return {};
    CAIRN_TRY(DetectAndFlush());
  }
  if (chunk.empty()) return {};
  return writer_->Write(chunk);
}

Status Upload::DetectAndFlush() {
  media_type_ = DetectMediaType(head_);
  if (!declared_type_.empty() && !DeclaredTypeFits(declared_type_, media_type_)) {
    return Error::Validation(
        "The file's type does not match the signed content type",
        {{"contentType", "the file is " + media_type_ + ", not " + declared_type_}});
  }
  if (!MatchesAnyPattern(media_type_, allowed_types_)) {
    return Error::Validation("This bucket does not accept files of this type",
                             {{"contentType", "the file is " + media_type_}});
  }
  Status wrote = writer_->Write(head_);
  head_.clear();
  head_.shrink_to_fit();
  return wrote;
}

Result<ObjectInfo> Upload::Finish() {
  if (media_type_.empty()) CAIRN_TRY(DetectAndFlush());
  return writer_->Commit(media_type_);
}

void Upload::Abort() {
  writer_->Abort();
}

// --- StorageService ------------------------------------------------------------------------------

StorageService::StorageService(const config::AppConfig& config, StorageSettings settings,
                               ObjectStore& store, std::string_view secret, std::string base_url)
    : config_(config),
      settings_(std::move(settings)),
      store_(store),
      signer_(secret),
      base_url_(std::move(base_url)) {
  while (!base_url_.empty() && base_url_.back() == '/') base_url_.pop_back();
}

const config::Bucket* StorageService::FindBucket(std::string_view name) const {
  return config_.FindBucket(name);
}

bool StorageService::Allows(const config::Bucket& bucket, BucketAction action,
                            std::string_view role) const {
  if (role == kAdminRole) return true;
  if (!bucket.permissions) return false;
  const config::BucketPermissions& permissions = *bucket.permissions;
  const std::optional<config::PermissionRule>* rule = nullptr;
  switch (action) {
    case BucketAction::kSign:
      rule = &permissions.sign;
      break;
    case BucketAction::kSignUpload:
      rule = &permissions.sign_upload;
      break;
    case BucketAction::kDownload:
      rule = &permissions.download;
      break;
    case BucketAction::kDelete:
      rule = &permissions.remove;
      break;
  }
  if (rule == nullptr || !rule->has_value() || !RuleAdmits(**rule, role)) return false;
  if (action != BucketAction::kSign && action != BucketAction::kSignUpload) return true;
  // The role's own gate, when the role declares one.
  if (!config_.auth) return true;
  for (const config::Role& declared : config_.auth->roles) {
    if (declared.name != role) continue;
    const std::optional<bool>& gate =
        action == BucketAction::kSign ? declared.storage_sign : declared.storage_sign_upload;
    return gate.value_or(true);
  }
  return true;
}

bool StorageService::IsPublic(const config::Bucket& bucket, std::string_view path) const {
  if (bucket.is_public || settings_.default_public) return true;
  if (settings_.public_paths.empty()) return false;
  std::string full = bucket.name;
  full += '/';
  full += path;
  return std::any_of(settings_.public_paths.begin(), settings_.public_paths.end(),
                     [&](const std::string& prefix) { return CoversPath(prefix, full); });
}

std::string StorageService::UrlOf(std::string_view bucket, std::string_view path) const {
  std::string url = base_url_;
  url += "/api/buckets/";
  url += bucket;
  url += "/files/";
  text::AppendPercentEncoded(path, url, true);
  return url;
}

std::string StorageService::FileUrl(std::string_view bucket, std::string_view path) const {
  return UrlOf(bucket, path);
}

SignedUrl StorageService::SignDownload(std::string_view bucket, std::string_view path,
                                       std::int64_t expires_in, std::int64_t now,
                                       std::string_view signer_id,
                                       std::string_view transform) const {
  const std::int64_t expires_at = now + expires_in;
  if (transform.empty()) {
    if (auto native = store_.Presign({bucket, path, false, expires_in, {}, now})) {
      return {std::move(*native), expires_at};
    }
  }
  TokenClaims claims{
      std::string(bucket),    std::string(path),     Operation::kDownload, expires_at, 0, {},
      std::string(signer_id), std::string(transform)};
  return {UrlOf(bucket, path) + "?token=" + signer_.Sign(claims), expires_at};
}

SignedUrl StorageService::SignUpload(std::string_view bucket, std::string_view path,
                                     std::int64_t expires_in, std::string_view content_type,
                                     std::uint64_t max_size, std::int64_t now,
                                     std::string_view signer_id) const {
  const std::int64_t expires_at = now + expires_in;
  if (auto native = store_.Presign({bucket, path, true, expires_in, content_type, now})) {
    return {std::move(*native), expires_at};
  }
  TokenClaims claims{
      std::string(bucket),       std::string(path),     Operation::kUpload, expires_at, max_size,
      std::string(content_type), std::string(signer_id)};
  return {UrlOf(bucket, path) + "?token=" + signer_.Sign(claims), expires_at};
}

Result<TokenClaims> StorageService::CheckToken(std::string_view bucket, std::string_view path,
                                               std::string_view token, Operation operation,
                                               std::int64_t now) const {
  CAIRN_ASSIGN_OR_RETURN(TokenClaims claims, signer_.Verify(token));
  if (claims.bucket != bucket || claims.path != path) {
    return Error::Forbidden("This token is for another file");
  }
  if (claims.operation != operation) {
    return Error::Forbidden(operation == Operation::kUpload ? "This token is not for uploads"
                                                            : "This token is not for downloads");
  }
  if (claims.expires_at <= now) return Error::Forbidden("This token has expired");
  return claims;
}

Result<std::unique_ptr<Upload>> StorageService::BeginUpload(const config::Bucket& bucket,
                                                            std::string_view path,
                                                            std::string declared_type) {
  CAIRN_ASSIGN_OR_RETURN(auto writer, store_.Create(bucket.name, path));
  return std::make_unique<Upload>(std::move(writer), std::move(declared_type),
                                  bucket.allowed_mime_types);
}

}  // namespace cairn::storage
