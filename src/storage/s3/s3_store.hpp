// The s3 backend (D41, D48): objects in one bucket of an S3-compatible service, reached through
// its REST API with SigV4-signed requests (s3/sigv4.hpp) over net/http_client.hpp.
//
// - A cairn bucket is a key prefix: the object of (bucket, path) is `<bucket>/<path>` in the one
//   S3 bucket of the settings (STORAGE_S3_BUCKET).
// - Addressing: virtual-hosted (`https://<s3-bucket>.<endpoint-host>/<key>`) by default,
//   path-style (`https://<endpoint-host>/<s3-bucket>/<key>`) with force_path_style, and also
//   (as the AWS SDKs do) for an IP address endpoint or a dotted bucket name over TLS.
// - Uploads spool to a file in the staging directory while their SHA-256 is computed, so one PUT
//   carries Content-Length and a signed payload hash (x-amz-content-sha256); S3 makes the object
//   visible whole when the PUT completes (D47). A full disk while spooling is a 507.
// - Stat is HEAD, Open a ranged GET streamed through the caller's buffer, Remove a HEAD (S3
//   answers DELETE with 204 whether or not the key existed) then DELETE.
// - List is ListObjectsV2. Its listing has no content types, so each listed object is HEADed for
//   its Content-Type (the type detected from the bytes when it was stored): one more round trip
//   per object, over a kept-alive connection; a listed object gone by then is left out. Its
//   cursor is S3's continuation token (hex, so it is URL-safe) after a MAC bound to the bucket
//   and prefix, so a cursor this backend did not issue (or issued for another listing) is
//   Error::Validation.
// - Presign answers a native presigned URL; uploads sign the content-type header, so the PUT
//   must carry exactly that Content-Type.
// - Failures of the service (403, 5xx, unreachable, timeouts) are Error::Unavailable with the S3
//   error code and message in `detail`.
#pragma once

#include <filesystem>
#include <memory>
#include <string>

#include "net/http_client.hpp"
#include "storage/object_store.hpp"
#include "storage/s3/sigv4.hpp"
#include "storage/storage_settings.hpp"

namespace cairn::storage::s3 {

// The shared outgoing HTTP client (src/net).
using net::Endpoint;
using net::HttpClient;
using net::HttpRequest;
using net::HttpResponse;

// Bodies read whole: S3 error answers and one ListObjectsV2 page (1000 keys fit in ~1.5 MB).
inline constexpr std::size_t kMaxErrorBodyBytes = 64 * 1024;
inline constexpr std::size_t kMaxListBodyBytes = 16 * 1024 * 1024;
// A list cursor, in bytes (S3's continuation tokens are well below).
inline constexpr std::size_t kMaxCursorBytes = 2048;
// The prefix of spooled uploads in the staging directory; Start removes the ones a crash left.
inline constexpr std::string_view kSpoolPrefix = "s3-upload-";

class S3ObjectStore final : public ObjectStore {
 public:
  // Checks the settings (endpoint syntax, bucket, credentials): Error::Validation naming the
  // setting. `staging_dir` holds spooled uploads; Start creates it.
  static Result<std::unique_ptr<S3ObjectStore>> Create(S3Settings settings,
                                                       std::filesystem::path staging_dir);
  ~S3ObjectStore() override;
  S3ObjectStore(const S3ObjectStore&) = delete;
  S3ObjectStore& operator=(const S3ObjectStore&) = delete;

  std::string_view provider() const override { return "s3"; }
  // Creates the staging directory, removes spooled uploads a crash left, and checks that the
  // bucket answers (HEAD bucket): a missing bucket or refused credentials is an error that names
  // the setting.
  Status Start() override;
  Result<std::optional<ObjectInfo>> Stat(std::string_view bucket, std::string_view path) override;
  Result<std::unique_ptr<ObjectReader>> Open(std::string_view bucket, std::string_view path,
                                             ByteRange range) override;
  Result<std::unique_ptr<ObjectWriter>> Create(std::string_view bucket,
                                               std::string_view path) override;
  Result<bool> Remove(std::string_view bucket, std::string_view path) override;
  Result<ListPage> List(std::string_view bucket, std::string_view prefix, int limit,
                        std::string_view cursor) override;
  std::optional<std::string> Presign(const PresignRequest& request) const override;

  // Internal (the writer and reader): one signed request to the object `key` ("" for the
  // bucket), answered once its header is read.
  struct Request {
    std::string method;
    std::string key;
    NameValues query;
    NameValues headers;  // besides Host, x-amz-date and x-amz-content-sha256
    std::string payload_hash = std::string(kEmptyPayloadSha256);
    std::filesystem::path body_file;
    std::uint64_t body_size = 0;
  };
  Result<std::unique_ptr<HttpResponse>> Send(const Request& request);
  // The error for an unexpected answer: its S3 code and message go to `detail`.
  Error Failure(const Request& request, HttpResponse& response);

 private:
  S3ObjectStore(S3Settings settings, Endpoint endpoint, std::filesystem::path staging_dir);

  std::string Host() const;                        // the Host header
  std::string Target(std::string_view key) const;  // the encoded path
  std::string CursorMac(std::string_view bucket, std::string_view prefix,
                        std::string_view token) const;

  S3Settings settings_;
  Endpoint endpoint_;
  Credentials credentials_;
  std::filesystem::path staging_dir_;
  bool path_style_ = false;
  std::unique_ptr<HttpClient> client_;
};

}  // namespace cairn::storage::s3
