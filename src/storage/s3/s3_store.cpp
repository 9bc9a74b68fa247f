#include "storage/s3/s3_store.hpp"

#include <fcntl.h>
#include <openssl/evp.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <charconv>
#include <chrono>
#include <cstring>
#include <ctime>
#include <stdexcept>
#include <system_error>

#include "common/crypto.hpp"
#include "common/time.hpp"
#include "storage/limits.hpp"
#include "storage/s3/s3_xml.hpp"

namespace cairn::storage::s3 {
namespace {

constexpr std::string_view kUnavailable = "The file storage service is unavailable";
constexpr std::string_view kDefaultMimeType = "application/octet-stream";
constexpr std::size_t kCursorMacHexChars = 32;
constexpr std::size_t kSkipChunkBytes = 16 * 1024;

std::int64_t NowSeconds() {
  return std::chrono::duration_cast<std::chrono::seconds>(
             std::chrono::system_clock::now().time_since_epoch())
      .count();
}

std::string ObjectKey(std::string_view bucket, std::string_view path) {
  std::string key(bucket);
  key += '/';
  key += path;
  return key;
}

std::optional<std::uint64_t> ParseUnsigned(std::string_view text) {
  std::uint64_t value = 0;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (text.empty() || ec != std::errc() || end != text.data() + text.size()) return std::nullopt;
  return value;
}

// An IMF-fixdate (RFC 9110): "Sun, 06 Nov 1994 08:49:37 GMT" → epoch millis; 0 when malformed.
std::int64_t ParseHttpDate(std::string_view text) {
  static constexpr std::string_view kMonths[] = {"Jan", "Feb", "Mar", "Apr", "May", "Jun",
                                                 "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"};
  const std::size_t comma = text.find(", ");
  if (comma == std::string_view::npos) return 0;
  text.remove_prefix(comma + 2);
  // "06 Nov 1994 08:49:37 GMT"
  if (text.size() != 24 || text.substr(20) != " GMT") return 0;
  const auto number = [&](std::size_t at, std::size_t length) {
    return ParseUnsigned(text.substr(at, length)).value_or(~std::uint64_t{0});
  };
  std::tm parts{};
  const std::string_view month = text.substr(3, 3);
  const auto found = std::find(std::begin(kMonths), std::end(kMonths), month);
  if (found == std::end(kMonths)) return 0;
  const std::uint64_t day = number(0, 2), year = number(7, 4), hour = number(12, 2),
                      minute = number(15, 2), second = number(18, 2);
  if (day < 1 || day > 31 || year < 1970 || year > 9999 || hour > 23 || minute > 59 ||
      second > 60) {
    return 0;
  }
  parts.tm_mday = static_cast<int>(day);
  parts.tm_mon = static_cast<int>(found - std::begin(kMonths));
  parts.tm_year = static_cast<int>(year) - 1900;
  parts.tm_hour = static_cast<int>(hour);
  parts.tm_min = static_cast<int>(minute);
  parts.tm_sec = static_cast<int>(second);
  return static_cast<std::int64_t>(timegm(&parts)) * 1000;
}

std::string Quoted(std::string_view etag) {
  if (etag.starts_with('"') || etag.starts_with("W/\"")) return std::string(etag);
  return "\"" + std::string(etag) + "\"";
}

ObjectInfo InfoFromHead(std::string_view path, const HttpResponse& response) {
  ObjectInfo info;
  info.path = std::string(path);
  info.size = ParseUnsigned(response.header("Content-Length")).value_or(0);
  info.mime_type = std::string(response.header("Content-Type"));
  if (info.mime_type.empty()) info.mime_type = std::string(kDefaultMimeType);
  info.etag = Quoted(response.header("ETag"));
  info.updated_at_ms = ParseHttpDate(response.header("Last-Modified"));
  return info;
}

Error StorageFull(std::string detail) {
  Error error =
      Error::Unavailable("Storage is full: the upload could not be stored", std::move(detail));
  error.http_status = 507;
  return error;
}

Error SpoolError(std::string_view step, const std::filesystem::path& file, int err) {
  std::string detail = "S3 upload spool " + std::string(step) + " " + file.string() + ": " +
                       std::generic_category().message(err);
  if (err == ENOSPC || err == EDQUOT) return StorageFull(std::move(detail));
  return Error::Internal(std::move(detail));
}

class EmptyReader final : public ObjectReader {
 public:
  Result<std::size_t> Read(std::span<char> /*buffer*/) override { return std::size_t{0}; }
};

// The body of a ranged GET, read on demand. A 200 (a server that ignored Range) is read from
// the range's offset.
class S3Reader final : public ObjectReader {
 public:
  S3Reader(std::unique_ptr<HttpResponse> response, std::string key, std::uint64_t skip,
           std::uint64_t length)
      : response_(std::move(response)), key_(std::move(key)), skip_(skip), remaining_(length) {}

  Result<std::size_t> Read(std::span<char> buffer) override {
    if (remaining_ == 0 || buffer.empty()) return std::size_t{0};
    char discard[kSkipChunkBytes];
    while (skip_ > 0) {
      const std::size_t want =
          static_cast<std::size_t>(std::min<std::uint64_t>(skip_, sizeof discard));
      CAIRN_ASSIGN_OR_RETURN(const std::size_t read, response_->ReadSome({discard, want}));
      if (read == 0) return Short();
      skip_ -= read;
    }
    const std::size_t want =
        static_cast<std::size_t>(std::min<std::uint64_t>(buffer.size(), remaining_));
    CAIRN_ASSIGN_OR_RETURN(const std::size_t read, response_->ReadSome(buffer.first(want)));
    if (read == 0) return Short();
    remaining_ -= read;
    if (remaining_ == 0) response_.reset();  // done: the connection goes back to the pool
    return read;
  }

 private:
  Error Short() {
    response_.reset();
    return Error::Unavailable(
        std::string(kUnavailable),
        "S3 GET " + key_ + ": the body ended " + std::to_string(remaining_) + " bytes early");
  }

  std::unique_ptr<HttpResponse> response_;
  std::string key_;
  std::uint64_t skip_;
  std::uint64_t remaining_;
};

// Spools the upload to a file while hashing it; Commit PUTs the file in one request.
class S3Writer final : public ObjectWriter {
 public:
  S3Writer(S3ObjectStore& store, std::string bucket, std::string path, std::filesystem::path spool,
           int fd)
      : store_(store),
        bucket_(std::move(bucket)),
        path_(std::move(path)),
        spool_(std::move(spool)),
        fd_(fd),
        sha_(EVP_MD_CTX_new()) {
    if (sha_ == nullptr || EVP_DigestInit_ex(sha_, EVP_sha256(), nullptr) != 1) {
      Discard();
      EVP_MD_CTX_free(sha_);
      throw std::runtime_error("EVP_DigestInit_ex(sha256) failed");
    }
  }
  S3Writer(const S3Writer&) = delete;
  S3Writer& operator=(const S3Writer&) = delete;
  ~S3Writer() override {
    Discard();
    EVP_MD_CTX_free(sha_);
  }

  Status Write(std::string_view chunk) override {
    if (fd_ < 0) return Error::Internal("S3 upload: write after the writer was closed");
    const char* data = chunk.data();
    std::size_t left = chunk.size();
    while (left > 0) {
      const ssize_t written = ::write(fd_, data, left);
      if (written < 0) {
        if (errno == EINTR) continue;
        return SpoolError("write", spool_, errno);
      }
      data += written;
      left -= static_cast<std::size_t>(written);
    }
    if (EVP_DigestUpdate(sha_, chunk.data(), chunk.size()) != 1) {
      return Error::Internal("S3 upload: EVP_DigestUpdate failed");
    }
    size_ += chunk.size();
    return {};
  }

  Result<ObjectInfo> Commit(std::string_view mime_type) override {
    if (fd_ < 0) return Error::Internal("S3 upload: commit after the writer was closed");
    const int fd = std::exchange(fd_, -1);
    if (::close(fd) != 0) {
      const int err = errno;
      Discard();
      return SpoolError("close", spool_, err);
    }
    unsigned char digest[EVP_MAX_MD_SIZE];
    unsigned int digest_size = 0;
    if (EVP_DigestFinal_ex(sha_, digest, &digest_size) != 1) {
      Discard();
      return Error::Internal("S3 upload: EVP_DigestFinal_ex failed");
    }
    const std::string mime(mime_type.empty() ? kDefaultMimeType : mime_type);
    S3ObjectStore::Request request;
    request.method = "PUT";
    request.key = ObjectKey(bucket_, path_);
    request.headers = {{"Content-Type", mime}};
    request.payload_hash =
        LowerHex(std::string_view(reinterpret_cast<const char*>(digest), digest_size));
    request.body_file = spool_;
    request.body_size = size_;
    auto sent = store_.Send(request);
    Discard();
    if (!sent.ok()) return std::move(sent).error();
    HttpResponse& response = **sent;
    if (response.status() != 200) return store_.Failure(request, response);
    ObjectInfo info;
    info.path = path_;
    info.size = size_;
    info.mime_type = mime;
    info.etag = Quoted(response.header("ETag"));
    info.updated_at_ms = ParseHttpDate(response.header("Date"));
    if (response.header("ETag").empty() || info.updated_at_ms == 0) {
      // A service that does not say: ask (the object was just written).
      sent->reset();
      CAIRN_ASSIGN_OR_RETURN(auto stat, store_.Stat(bucket_, path_));
      if (stat) {
        if (info.etag == "\"\"") info.etag = stat->etag;
        if (info.updated_at_ms == 0) info.updated_at_ms = stat->updated_at_ms;
      }
    }
    return info;
  }

  void Abort() override { Discard(); }

 private:
  void Discard() {
    if (fd_ >= 0) ::close(std::exchange(fd_, -1));
    if (!spool_.empty()) {
      std::error_code ignored;
      std::filesystem::remove(spool_, ignored);
      spool_.clear();
    }
  }

  S3ObjectStore& store_;
  std::string bucket_;
  std::string path_;
  std::filesystem::path spool_;
  int fd_;
  EVP_MD_CTX* sha_;
  std::uint64_t size_ = 0;
};

bool IsIpAddressLiteral(std::string_view host) {
  if (host.find(':') != std::string_view::npos) return true;  // IPv6
  return !host.empty() && std::all_of(host.begin(), host.end(),
                                      [](char c) { return (c >= '0' && c <= '9') || c == '.'; });
}

// List cursors carry S3's continuation token in hex, so they are safe in a URL as they are.
std::optional<std::string> FromHex(std::string_view hex) {
  if (hex.size() % 2 != 0) return std::nullopt;
  std::string out;
  out.reserve(hex.size() / 2);
  for (std::size_t i = 0; i < hex.size(); i += 2) {
    unsigned value = 0;
    const auto [end, ec] = std::from_chars(hex.data() + i, hex.data() + i + 2, value, 16);
    if (ec != std::errc() || end != hex.data() + i + 2) return std::nullopt;
    out.push_back(static_cast<char>(value));
  }
  return out;
}

bool IsS3BucketName(std::string_view name) {
  if (name.size() < 3 || name.size() > 63) return false;
  return std::all_of(name.begin(), name.end(), [](char c) {
    return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '.' || c == '-';
  });
}

}  // namespace

Result<std::unique_ptr<S3ObjectStore>> S3ObjectStore::Create(S3Settings settings,
                                                             std::filesystem::path staging_dir) {
  if (settings.region.empty()) return Error::Validation("STORAGE_S3_REGION is empty");
  if (!IsS3BucketName(settings.bucket)) {
    return Error::Validation(
        "STORAGE_S3_BUCKET must be an S3 bucket name (3 to 63 of a-z 0-9 . -)");
  }
  if (settings.access_key_id.empty()) return Error::Validation("STORAGE_S3_ACCESS_KEY_ID is empty");
  if (settings.secret_access_key.empty()) {
    return Error::Validation("STORAGE_S3_SECRET_ACCESS_KEY is empty");
  }
  const std::string url = settings.endpoint.empty()
                              ? "https://s3." + settings.region + ".amazonaws.com"
                              : settings.endpoint;
  auto endpoint = Endpoint::Parse(url);
  if (!endpoint.ok()) {
    return Error::Validation("STORAGE_S3_ENDPOINT: " + endpoint.error().message);
  }
  return std::unique_ptr<S3ObjectStore>(
      new S3ObjectStore(std::move(settings), std::move(*endpoint), std::move(staging_dir)));
}

S3ObjectStore::S3ObjectStore(S3Settings settings, Endpoint endpoint,
                             std::filesystem::path staging_dir)
    : settings_(std::move(settings)),
      endpoint_(std::move(endpoint)),
      credentials_{settings_.access_key_id, settings_.secret_access_key, settings_.region, "s3"},
      staging_dir_(std::move(staging_dir)) {
  // As the AWS SDKs do: an IP address has no virtual hosts, and a dotted bucket name breaks the
  // wildcard certificate of virtual-hosted TLS (*.s3.amazonaws.com).
  path_style_ = settings_.force_path_style || IsIpAddressLiteral(endpoint_.host) ||
                (endpoint_.tls && settings_.bucket.find('.') != std::string::npos);
  const std::string host = path_style_ ? endpoint_.host : settings_.bucket + "." + endpoint_.host;
  client_ = std::make_unique<HttpClient>(host, endpoint_.port, endpoint_.tls, "S3",
                                         "File storage is unavailable");
}

S3ObjectStore::~S3ObjectStore() = default;

std::string S3ObjectStore::Host() const {
  return path_style_ ? endpoint_.Authority() : settings_.bucket + "." + endpoint_.Authority();
}

std::string S3ObjectStore::Target(std::string_view key) const {
  std::string path = "/";
  if (path_style_) {
    path += settings_.bucket;
    if (!key.empty()) path += '/';
  }
  path += key;
  return path;  // decoded; encoded once where it is signed and sent
}

Result<std::unique_ptr<HttpResponse>> S3ObjectStore::Send(const Request& request) {
  SigningRequest signing;
  signing.method = request.method;
  signing.path = Target(request.key);
  signing.query = request.query;
  const std::string amz_date = AmzDate(NowSeconds());
  signing.headers = request.headers;
  signing.headers.emplace_back("Host", Host());
  signing.headers.emplace_back("x-amz-content-sha256", request.payload_hash);
  signing.headers.emplace_back("x-amz-date", amz_date);
  signing.payload_hash = request.payload_hash;
  const HeaderSignature signature = SignHeaders(credentials_, signing, amz_date);

  HttpRequest http;
  http.method = request.method;
  http.target = UriEncode(signing.path, true);
  if (!request.query.empty()) http.target += "?" + CanonicalQuery(request.query);
  http.headers = std::move(signing.headers);
  http.headers.emplace_back("Authorization", signature.authorization);
  http.body_file = request.body_file;
  http.body_size = request.body_size;
  return client_->Send(http);
}

Error S3ObjectStore::Failure(const Request& request, HttpResponse& response) {
  const unsigned status = response.status();
  const auto body = response.ReadAll(kMaxErrorBodyBytes);
  const S3ErrorBody parsed = body.ok() ? ParseErrorBody(*body) : S3ErrorBody{};
  std::string detail = "S3 " + request.method + " " + (request.key.empty() ? "/" : request.key) +
                       ": HTTP " + std::to_string(status);
  if (!parsed.code.empty()) detail += " " + parsed.code;
  if (!parsed.message.empty()) detail += ": " + parsed.message;
  Error error = Error::Unavailable(std::string(kUnavailable), std::move(detail));
  if (status == 503) error.retry_after_seconds = 1;
  return error;
}

Status S3ObjectStore::Start() {
  std::error_code ec;
  std::filesystem::create_directories(staging_dir_, ec);
  if (ec) {
    return Error::Internal("S3 staging directory " + staging_dir_.string() + ": " + ec.message());
  }
  for (const auto& entry : std::filesystem::directory_iterator(staging_dir_, ec)) {
    if (entry.path().filename().string().starts_with(kSpoolPrefix)) {
      std::error_code ignored;
      std::filesystem::remove(entry.path(), ignored);
    }
  }
  if (ec) {
    return Error::Internal("S3 staging directory " + staging_dir_.string() + ": " + ec.message());
  }

  Request request;
  request.method = "HEAD";
  CAIRN_ASSIGN_OR_RETURN(auto response, Send(request));
  const unsigned status = response->status();
  if (status == 200) return {};
  Error error = Failure(request, *response);
  const std::string_view region = response->header("x-amz-bucket-region");
  if (!region.empty() && region != settings_.region) {
    error.message = "STORAGE_S3_REGION: the bucket " + settings_.bucket + " is in " +
                    std::string(region) + ", not " + settings_.region;
  } else if (status == 404) {
    error.message = "STORAGE_S3_BUCKET: the bucket " + settings_.bucket + " does not exist at " +
                    endpoint_.Origin();
  } else if (status == 403 || status == 400) {
    error.message =
        "STORAGE_S3_ACCESS_KEY_ID / STORAGE_S3_SECRET_ACCESS_KEY: " + endpoint_.Origin() +
        " refused them for the bucket " + settings_.bucket + " (HTTP " + std::to_string(status) +
        ")";
  }
  return error;
}

Result<std::optional<ObjectInfo>> S3ObjectStore::Stat(std::string_view bucket,
                                                      std::string_view path) {
  Request request;
  request.method = "HEAD";
  request.key = ObjectKey(bucket, path);
  CAIRN_ASSIGN_OR_RETURN(auto response, Send(request));
  if (response->status() == 404) return std::optional<ObjectInfo>();
  if (response->status() != 200) return Failure(request, *response);
  return std::optional<ObjectInfo>(InfoFromHead(path, *response));
}

Result<std::unique_ptr<ObjectReader>> S3ObjectStore::Open(std::string_view bucket,
                                                          std::string_view path, ByteRange range) {
  if (range.length == 0) {
    CAIRN_ASSIGN_OR_RETURN(auto info, Stat(bucket, path));
    if (!info) return Error::NotFound();
    return std::unique_ptr<ObjectReader>(std::make_unique<EmptyReader>());
  }
  Request request;
  request.method = "GET";
  request.key = ObjectKey(bucket, path);
  request.headers = {{"Range", "bytes=" + std::to_string(range.offset) + "-" +
                                   std::to_string(range.offset + range.length - 1)}};
  CAIRN_ASSIGN_OR_RETURN(auto response, Send(request));
  const unsigned status = response->status();
  if (status == 404) return Error::NotFound();
  if (status != 206 && status != 200) return Failure(request, *response);
  const std::uint64_t skip = status == 200 ? range.offset : 0;
  return std::unique_ptr<ObjectReader>(
      std::make_unique<S3Reader>(std::move(response), request.key, skip, range.length));
}

Result<std::unique_ptr<ObjectWriter>> S3ObjectStore::Create(std::string_view bucket,
                                                            std::string_view path) {
  const std::filesystem::path spool =
      staging_dir_ / (std::string(kSpoolPrefix) + crypto::RandomAlphanumeric(24));
  const int fd = ::open(spool.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
  if (fd < 0) return SpoolError("create", spool, errno);
  return std::unique_ptr<ObjectWriter>(
      std::make_unique<S3Writer>(*this, std::string(bucket), std::string(path), spool, fd));
}

Result<bool> S3ObjectStore::Remove(std::string_view bucket, std::string_view path) {
  CAIRN_ASSIGN_OR_RETURN(auto info, Stat(bucket, path));
  if (!info) return false;
  Request request;
  request.method = "DELETE";
  request.key = ObjectKey(bucket, path);
  CAIRN_ASSIGN_OR_RETURN(auto response, Send(request));
  if (response->status() != 204 && response->status() != 200) {
    return Failure(request, *response);
  }
  return true;
}

std::string S3ObjectStore::CursorMac(std::string_view bucket, std::string_view prefix,
                                     std::string_view token) const {
  std::string message(bucket);
  message += '\0';
  message += prefix;
  message += '\0';
  message += token;
  const std::string key = "cairn s3 list cursor\n" + settings_.secret_access_key;
  return LowerHex(crypto::HmacSha256(key, message)).substr(0, kCursorMacHexChars);
}

Result<ListPage> S3ObjectStore::List(std::string_view bucket, std::string_view prefix, int limit,
                                     std::string_view cursor) {
  std::string token;
  if (!cursor.empty()) {
    const std::size_t dot = cursor.find('.');
    const auto decoded = dot == kCursorMacHexChars && cursor.size() <= kMaxCursorBytes
                             ? FromHex(cursor.substr(dot + 1))
                             : std::nullopt;
    if (!decoded || decoded->empty() ||
        !crypto::ConstantTimeEquals(cursor.substr(0, dot), CursorMac(bucket, prefix, *decoded))) {
      return Error::Validation("Invalid cursor");
    }
    token = *decoded;
  }
  limit = std::clamp(limit, 1, kMaxListLimit);
  const std::string key_prefix = ObjectKey(bucket, prefix);

  Request request;
  request.method = "GET";
  request.query = {{"list-type", "2"}, {"prefix", key_prefix}, {"max-keys", std::to_string(limit)}};
  if (!token.empty()) request.query.emplace_back("continuation-token", token);
  CAIRN_ASSIGN_OR_RETURN(auto response, Send(request));
  if (response->status() != 200) return Failure(request, *response);
  CAIRN_ASSIGN_OR_RETURN(const std::string body, response->ReadAll(kMaxListBodyBytes));
  response.reset();
  CAIRN_ASSIGN_OR_RETURN(ListResult listed, ParseListObjectsV2(body));

  ListPage page;
  const std::string bucket_prefix = ObjectKey(bucket, "");
  for (const ListedObject& object : listed.objects) {
    if (!object.key.starts_with(key_prefix)) continue;  // a service that ignored the prefix
    const std::string_view path = std::string_view(object.key).substr(bucket_prefix.size());
    // The listing has no content type: HEAD it (one round trip, kept-alive connection).
    CAIRN_ASSIGN_OR_RETURN(auto info, Stat(bucket, path));
    if (!info) continue;  // removed since it was listed
    page.objects.push_back(std::move(*info));
  }
  if (listed.truncated) {
    page.next_cursor = CursorMac(bucket, prefix, listed.next_continuation_token) + "." +
                       LowerHex(listed.next_continuation_token);
  }
  return page;
}

std::optional<std::string> S3ObjectStore::Presign(const PresignRequest& request) const {
  SigningRequest signing;
  signing.method = request.upload ? "PUT" : "GET";
  signing.path = Target(ObjectKey(request.bucket, request.path));
  signing.headers = {{"Host", Host()}};
  if (request.upload && !request.content_type.empty()) {
    signing.headers.emplace_back("Content-Type", std::string(request.content_type));
  }
  const std::string query =
      PresignQuery(credentials_, signing, AmzDate(request.now_seconds), request.expires_in_seconds);
  return (endpoint_.tls ? "https://" : "http://") + Host() + UriEncode(signing.path, true) + "?" +
         query;
}

}  // namespace cairn::storage::s3
