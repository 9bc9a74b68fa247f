// Storage limits (interface.md "Limits", D42–D47). Named once here; docs/storage.md lists them.
#pragma once

#include <cstddef>
#include <cstdint>

namespace cairn::storage {

// A file path inside a bucket, in bytes (D44).
inline constexpr std::size_t kMaxPathBytes = 1024;
// A signed URL's lifetime in seconds: default, least and most (interface.md "Limits").
inline constexpr std::int64_t kDefaultExpiresInSeconds = 3600;
inline constexpr std::int64_t kMinExpiresInSeconds = 60;
inline constexpr std::int64_t kMaxExpiresInSeconds = 604800;
// The lifetime of the signed URL embedded in an attachment of a record answer.
inline constexpr std::int64_t kAttachmentUrlSeconds = 3600;
// An upload token's size limit when the signer gives none.
inline constexpr std::uint64_t kDefaultMaxUploadBytes = 10'485'760;
// Files per POST …/sign/batch.
inline constexpr std::size_t kMaxBatchFiles = 100;
// Files per page of GET …/files: default and most.
inline constexpr int kDefaultListLimit = 100;
inline constexpr int kMaxListLimit = 1000;
// The first bytes of an upload kept to detect its type (libmagic) before the rest is stored.
inline constexpr std::size_t kSniffBytes = 64 * 1024;
// A token's text, in bytes; longer is refused before it is decoded.
inline constexpr std::size_t kMaxTokenBytes = 4096;
// A content type named by the signer, in bytes.
inline constexpr std::size_t kMaxContentTypeBytes = 255;

}  // namespace cairn::storage
