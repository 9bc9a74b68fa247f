#include "api/file_response.hpp"

#include <unistd.h>

#include <cerrno>
#include <charconv>

#include "common/text.hpp"
#include "http/body_stream.hpp"
#include "storage/media_type.hpp"

namespace cairn::api {
namespace {

class ReaderSource final : public http::BodySource {
 public:
  explicit ReaderSource(std::unique_ptr<storage::ObjectReader> reader)
      : reader_(std::move(reader)) {}
  Result<std::size_t> Read(std::span<char> buffer) override { return reader_->Read(buffer); }

 private:
  std::unique_ptr<storage::ObjectReader> reader_;
};

class EmptySource final : public http::BodySource {
 public:
  Result<std::size_t> Read(std::span<char> /*buffer*/) override { return std::size_t{0}; }
};

// A cache entry, read from its open descriptor (it stays readable if evicted meanwhile).
class CachedFileSource final : public http::BodySource {
 public:
  explicit CachedFileSource(transform::FileHandle file) : file_(std::move(file)) {}
  Result<std::size_t> Read(std::span<char> buffer) override {
    while (true) {
      const ssize_t got = ::read(file_.get(), buffer.data(), buffer.size());
      if (got >= 0) return static_cast<std::size_t>(got);
      if (errno != EINTR) return Error::Internal("transform cache read failed");
    }
  }

 private:
  transform::FileHandle file_;
};

class MemorySource final : public http::BodySource {
 public:
  explicit MemorySource(std::shared_ptr<const std::string> bytes) : bytes_(std::move(bytes)) {}
  Result<std::size_t> Read(std::span<char> buffer) override {
    const std::size_t count = std::min(buffer.size(), bytes_->size() - offset_);
    std::copy_n(bytes_->data() + offset_, count, buffer.data());
    offset_ += count;
    return count;
  }

 private:
  std::shared_ptr<const std::string> bytes_;
  std::size_t offset_ = 0;
};

constexpr std::string_view kImmutable = "public, max-age=31536000, immutable";

std::string_view WithoutWeak(std::string_view tag) {
  return tag.starts_with("W/") ? tag.substr(2) : tag;
}

std::optional<std::uint64_t> ParseUnsigned(std::string_view text) {
  if (text.empty()) return std::nullopt;
  std::uint64_t value = 0;
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (ec != std::errc() || end != text.data() + text.size()) return std::nullopt;
  return value;
}

// `attachment; filename="a.pdf"; filename*=UTF-8''a.pdf` (RFC 6266): the plain name keeps
// printable ASCII other than quotes and backslashes, the starred one carries the rest.
std::string ContentDisposition(std::string_view path, bool attachment) {
  const std::size_t slash = path.rfind('/');
  const std::string_view name = path.substr(slash == std::string_view::npos ? 0 : slash + 1);
  std::string out = attachment ? "attachment" : "inline";
  out += "; filename=\"";
  for (char c : name) {
    const auto byte = static_cast<unsigned char>(c);
    out.push_back(byte >= 0x20 && byte < 0x7f && c != '"' && c != '\\' ? c : '_');
  }
  out += "\"; filename*=UTF-8''";
  text::AppendPercentEncoded(name, out, false);
  return out;
}

}  // namespace

bool IfNoneMatchHits(std::string_view header, std::string_view etag) {
  if (text::TrimOws(header) == "*") return true;
  while (!header.empty()) {
    const std::size_t comma = header.find(',');
    const std::string_view tag = text::TrimOws(header.substr(0, comma));
    if (WithoutWeak(tag) == WithoutWeak(etag)) return true;
    if (comma == std::string_view::npos) break;
    header.remove_prefix(comma + 1);
  }
  return false;
}

std::optional<RangeRequest> ParseRange(std::string_view header, std::uint64_t size) {
  header = text::TrimOws(header);
  if (!header.starts_with("bytes=")) return std::nullopt;
  const std::string_view spec = text::TrimOws(header.substr(6));
  if (spec.find(',') != std::string_view::npos) return std::nullopt;  // several: send it whole
  const std::size_t dash = spec.find('-');
  if (dash == std::string_view::npos) return std::nullopt;
  const auto first = ParseUnsigned(text::TrimOws(spec.substr(0, dash)));
  const auto last = ParseUnsigned(text::TrimOws(spec.substr(dash + 1)));
  RangeRequest request;
  if (!first) {
    // `bytes=-N`: the last N bytes.
    if (!last) return std::nullopt;
    if (*last == 0 || size == 0) return RangeRequest{true, {}};
    const std::uint64_t length = std::min(*last, size);
    request.range = {size - length, length};
    return request;
  }
  if (last && *last < *first) return std::nullopt;
  if (*first >= size) return RangeRequest{true, {}};
  const std::uint64_t end = last ? std::min(*last, size - 1) : size - 1;
  request.range = {*first, end - *first + 1};
  return request;
}

std::string TransformEtag(std::string_view key) {
  std::string etag = "\"t-";
  etag += key.substr(0, 40);
  etag += '"';
  return etag;
}

http::Response TransformNotModified(std::string_view key, bool negotiated) {
  http::Response response;
  response.status = 304;
  response.content_type.clear();
  response.SetHeader("ETag", TransformEtag(key));
  response.SetHeader("Cache-Control", std::string(kImmutable));
  if (negotiated) response.SetHeader("Vary", "Accept");
  return response;
}

http::Response TransformResponse(const http::Request& request, std::string_view path,
                                 std::string_view key, bool negotiated,
                                 transform::TransformService::Served served) {
  http::Response response;
  response.SetHeader("ETag", TransformEtag(key));
  response.SetHeader("Cache-Control", std::string(kImmutable));
  if (negotiated) response.SetHeader("Vary", "Accept");
  response.content_type = std::string(transform::MediaTypeOf(served.output));
  // The name the browser saves it under carries the output's extension.
  std::string name(
      path.substr(path.rfind('/') == std::string_view::npos ? 0 : path.rfind('/') + 1));
  if (const std::size_t dot = name.rfind('.'); dot != std::string::npos && dot > 0) {
    name.resize(dot);
  }
  name += '.';
  name += transform::ExtensionOf(served.output);
  response.SetHeader("Content-Disposition", ContentDisposition(name, false));
  response.stream_length = served.size;
  if (request.method == "HEAD") {
    response.stream = std::make_shared<EmptySource>();
  } else if (served.memory) {
    response.stream = std::make_shared<MemorySource>(std::move(served.memory));
  } else {
    response.stream = std::make_shared<CachedFileSource>(std::move(served.file));
  }
  return response;
}

Result<http::Response> FileResponse(const http::Request& request, storage::ObjectStore& store,
                                    std::string_view bucket, const storage::ObjectInfo& info,
                                    bool is_public) {
  http::Response response;
  response.SetHeader("ETag", info.etag);
  response.SetHeader("Cache-Control", is_public ? "public, no-cache" : "private, no-cache");
  response.SetHeader("Accept-Ranges", "bytes");
  if (auto match = request.Header("If-None-Match");
      !match.empty() && IfNoneMatchHits(match, info.etag)) {
    response.status = 304;
    response.content_type.clear();
    return response;
  }
  const bool active = storage::IsActiveContent(info.mime_type);
  response.content_type = info.mime_type;
  response.SetHeader("Content-Disposition", ContentDisposition(info.path, active));
  // A page or script that is opened anyway runs with no origin and no scripts.
  if (active) response.SetHeader("Content-Security-Policy", "sandbox; default-src 'none'");

  storage::ByteRange range{0, info.size};
  std::optional<RangeRequest> wanted;
  if (auto header = request.Header("Range"); !header.empty()) {
    const auto if_range = request.Header("If-Range");
    if (if_range.empty() || text::TrimOws(if_range) == info.etag)
      wanted = ParseRange(header, info.size);
  }
  if (wanted && wanted->unsatisfiable) {
    Error error = Error::Validation("The requested range is not within the file");
    error.http_status = 416;
    http::Response refused = http::Response::FromError(error);
    refused.SetHeader("Content-Range", "bytes */" + std::to_string(info.size));
    return refused;
  }
  if (wanted) {
    range = wanted->range;
    response.status = 206;
    response.SetHeader("Content-Range", "bytes " + std::to_string(range.offset) + "-" +
                                            std::to_string(range.offset + range.length - 1) + "/" +
                                            std::to_string(info.size));
  }
  response.stream_length = range.length;
  if (request.method == "HEAD" || range.length == 0) {
    response.stream = std::make_shared<EmptySource>();
    return response;
  }
  CAIRN_ASSIGN_OR_RETURN(auto reader, store.Open(bucket, info.path, range));
  response.stream = std::make_shared<ReaderSource>(std::move(reader));
  return response;
}

}  // namespace cairn::api
