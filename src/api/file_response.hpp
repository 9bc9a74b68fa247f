// The answer to a file GET or HEAD (D47): the stored bytes streamed from the backend with their
// stored type, ETag / If-None-Match (304), a single Range (206, or 416 when it cannot be met),
// and a Content-Disposition that never lets a browser run an uploaded page or script inline.
// Shared by plain downloads and image transforms (TransformResponse: a cache entry streamed).
#pragma once

#include <string_view>

#include "common/result.hpp"
#include "http/request.hpp"
#include "http/response.hpp"
#include "storage/object_store.hpp"
#include "transform/transform_service.hpp"

namespace cairn::api {

Result<http::Response> FileResponse(const http::Request& request, storage::ObjectStore& store,
                                    std::string_view bucket, const storage::ObjectInfo& info,
                                    bool is_public);

// A transformed image (interface.md "Storage: image transforms" rule 10): its ETag (`key`),
// `Cache-Control: public, max-age=31536000, immutable`, `Vary: Accept` when the format was
// negotiated, and the bytes streamed from the cache file (or memory). Range is not served on
// transforms; the whole image is sent.
http::Response TransformResponse(const http::Request& request, std::string_view path,
                                 std::string_view key, bool negotiated,
                                 transform::TransformService::Served served);
// The 304 of a transform the client holds already.
http::Response TransformNotModified(std::string_view key, bool negotiated);
// The ETag of a transform: its cache key, quoted.
std::string TransformEtag(std::string_view key);

// Whether an If-None-Match header value names `etag` (`*`, a list, weak forms compared weakly).
bool IfNoneMatchHits(std::string_view header, std::string_view etag);

// The range a `Range` header asks of a body of `size` bytes: nullopt to send it whole (no
// header, another unit, several ranges or a malformed one, as RFC 9110 allows), or an error
// flag when no byte of it exists (416).
struct RangeRequest {
  bool unsatisfiable = false;
  storage::ByteRange range;
};
std::optional<RangeRequest> ParseRange(std::string_view header, std::uint64_t size);

}  // namespace cairn::api
