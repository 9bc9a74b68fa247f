// The one interface of the storage backends (D41, D48): a local directory (storage/local), the
// database (storage/bytea) and an S3-compatible service (storage/s3). Everything above it (the
// service, the routes, attachments) is the same for the three. Paths given here are already
// checked by storage::CheckPath; buckets are names from the config.
//
// Writes are staged: bytes go to a temporary place (a temporary file on the same filesystem,
// chunks of a staged version, a spooled file), and Commit makes the object visible in one step,
// replacing the old one; until then the old object is served whole, and a crash leaves only
// staging that RecoverStaging removes at the next start (D47).
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "common/result.hpp"

namespace cairn::storage {

struct ObjectInfo {
  std::string path;
  std::uint64_t size = 0;
  std::string mime_type;           // detected from the bytes when it was stored
  std::string etag;                // a strong validator, quoted ("\"…\""); changes with the bytes
  std::int64_t updated_at_ms = 0;  // epoch millis of the last write
};

// A byte range of an object, already checked against its size: [offset, offset + length).
struct ByteRange {
  std::uint64_t offset = 0;
  std::uint64_t length = 0;
};

// Reads one range of an object in order. Blocking; called on the worker pool.
class ObjectReader {
 public:
  virtual ~ObjectReader() = default;
  // Fills the front of `buffer`; 0 means the range is complete.
  virtual Result<std::size_t> Read(std::span<char> buffer) = 0;
};

// An upload in progress. Destroying a writer that was not committed discards its staging.
class ObjectWriter {
 public:
  virtual ~ObjectWriter() = default;
  // The next bytes, in order. A full disk is Error::Unavailable with http_status 507.
  virtual Status Write(std::string_view chunk) = 0;
  // Makes the bytes durable (fsync, one transaction, a completed PUT) and visible at the path,
  // replacing the object that was there. `mime_type` is what the bytes were detected to be.
  virtual Result<ObjectInfo> Commit(std::string_view mime_type) = 0;
  // Discards the staging now. Called at most once, never after Commit.
  virtual void Abort() = 0;
};

struct ListPage {
  std::vector<ObjectInfo> objects;         // ordered by path (bytewise)
  std::optional<std::string> next_cursor;  // opaque; absent on the last page
};

// A URL signed by the backend itself (S3 presigned URLs); local and bytea have none.
struct PresignRequest {
  std::string_view bucket;
  std::string_view path;
  bool upload = false;
  std::int64_t expires_in_seconds = 0;
  std::string_view content_type;  // uploads: the type the PUT must declare; may be empty
  std::int64_t now_seconds = 0;   // epoch seconds the signature is dated
};

class ObjectStore {
 public:
  virtual ~ObjectStore() = default;
  // "local", "bytea" or "s3" (STORAGE_PROVIDER).
  virtual std::string_view provider() const = 0;
  // Prepares the backend and removes what a crash left staged (temporary files, staged chunks,
  // spooled uploads). Called once at startup, before any request.
  virtual Status Start() = 0;
  // The object at `path`, or nullopt when there is none.
  virtual Result<std::optional<ObjectInfo>> Stat(std::string_view bucket,
                                                 std::string_view path) = 0;
  // A reader of `range` of the object; Error::NotFound when there is none.
  virtual Result<std::unique_ptr<ObjectReader>> Open(std::string_view bucket, std::string_view path,
                                                     ByteRange range) = 0;
  // A writer that creates or replaces the object at `path` on Commit.
  virtual Result<std::unique_ptr<ObjectWriter>> Create(std::string_view bucket,
                                                       std::string_view path) = 0;
  // Removes the object; false when there was none.
  virtual Result<bool> Remove(std::string_view bucket, std::string_view path) = 0;
  // Up to `limit` objects whose path starts with `prefix`, after `cursor` (from a previous page).
  // A cursor this backend did not issue is Error::Validation.
  virtual Result<ListPage> List(std::string_view bucket, std::string_view prefix, int limit,
                                std::string_view cursor) = 0;
  // The backend's own signed URL for the request, or nullopt when cairn signs its own tokens.
  virtual std::optional<std::string> Presign(const PresignRequest& /*request*/) const {
    return std::nullopt;
  }
};

}  // namespace cairn::storage
