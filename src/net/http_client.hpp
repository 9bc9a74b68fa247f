// A small blocking HTTP/1.1 client for outgoing calls (the s3 backend, OAuth providers), on
// Boost.Beast (plain TCP, or TLS through OpenSSL with the peer's certificate and host name checked
// against the system store). It is pull-based: Send answers once the response header is read, and
// the body is read piece by piece on demand, so a download streams through the caller's buffer.
// Connections are kept alive and reused (a small idle pool); one that the server closed while idle
// is replaced and the request sent once more. Every connect and every read or write has a timeout.
//
// Only http_client.cpp includes Beast; callers see plain types.
#pragma once

#include <chrono>
#include <cstdint>
#include <filesystem>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "common/result.hpp"

namespace cairn::net {

// Header or query fields, in order; repeats allowed.
using NameValues = std::vector<std::pair<std::string, std::string>>;

// Resolving and connecting (with the TLS handshake), and then each read or write of a request.
inline constexpr std::chrono::seconds kConnectTimeout{10};
inline constexpr std::chrono::seconds kIoTimeout{30};
// Idle connections kept for reuse, and how long one may stay idle (S3 closes them after ~20 s).
inline constexpr std::size_t kMaxIdleConnections = 8;
inline constexpr std::chrono::seconds kMaxIdleTime{15};
// A response header, in bytes.
inline constexpr std::uint32_t kMaxResponseHeaderBytes = 64 * 1024;

// Where requests go: "http(s)://host[:port]" with nothing after the authority but an optional '/'.
struct Endpoint {
  bool tls = true;
  std::string host;  // a name, an IPv4 address, or an IPv6 address without brackets
  std::uint16_t port = 443;

  static Result<Endpoint> Parse(std::string_view url);
  // "host", "host:port" when the port is not the scheme's, "[v6]" for IPv6.
  std::string Authority() const;
  // "http://authority" or "https://authority".
  std::string Origin() const;
};

struct HttpRequest {
  std::string method;  // "GET", "HEAD", "PUT", "POST", "DELETE"
  std::string target;  // the encoded path and query: "/bucket/key?x=1"
  NameValues headers;  // with Host; Content-Length is added for a body
  // The body, read from this file (empty: no body)…
  std::filesystem::path body_file;
  std::uint64_t body_size = 0;
  // …or held in memory (used when there is no body_file).
  std::string body;
};

// A response whose header has been read. Destroying it returns its connection to the pool when
// the body was read to the end and the server keeps the connection; otherwise it is closed.
class HttpResponse {
 public:
  class Impl;
  explicit HttpResponse(std::unique_ptr<Impl> impl);
  ~HttpResponse();
  HttpResponse(const HttpResponse&) = delete;
  HttpResponse& operator=(const HttpResponse&) = delete;

  unsigned status() const;
  // The header's value, or empty when absent (names compare without case).
  std::string_view header(std::string_view name) const;
  // The next body bytes into the front of `buffer`; 0 at the end of the body.
  Result<std::size_t> ReadSome(std::span<char> buffer);
  // The rest of the body; more than `limit` bytes is an error.
  Result<std::string> ReadAll(std::size_t limit);

 private:
  std::unique_ptr<Impl> impl_;
};

class HttpClient {
 public:
  // `host` is where to connect and whose certificate to check (the endpoint's host, or
  // "<bucket>.<host>" for virtual-hosted buckets); `port` and `tls` come from the endpoint.
  // `service` names the other side in error details ("S3"); `unavailable` is the message of
  // every network error ("File storage is unavailable").
  HttpClient(std::string host, std::uint16_t port, bool tls, std::string service,
             std::string unavailable);
  ~HttpClient();
  HttpClient(const HttpClient&) = delete;
  HttpClient& operator=(const HttpClient&) = delete;

  // Sends the request and reads the response header. Network failures (refused, reset, timed
  // out, TLS) are Error::Unavailable with the cause in `detail`.
  Result<std::unique_ptr<HttpResponse>> Send(const HttpRequest& request);

  struct Pool;

 private:
  std::shared_ptr<Pool> pool_;
};

}  // namespace cairn::net
