#include "net/http_client.hpp"

#include <openssl/err.h>
#include <openssl/ssl.h>

#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/address.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/ssl.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/http.hpp>
#include <boost/beast/ssl.hpp>
#include <charconv>
#include <mutex>
#include <optional>
#include <utility>
#include <vector>

namespace cairn::net {
namespace {

namespace asio = boost::asio;
namespace beast = boost::beast;
namespace http = beast::http;
namespace ssl = asio::ssl;
using tcp = asio::ip::tcp;
using boost::system::error_code;

constexpr std::size_t kReadChunkBytes = 16 * 1024;

bool IsIpAddress(const std::string& host) {
  error_code ec;
  (void)asio::ip::make_address(host, ec);
  return !ec;
}

// One kept-alive connection with its own io_context: each blocking step runs one asynchronous
// operation to completion, so the tcp_stream's expiry bounds it.
class Connection {
 public:
  explicit Connection(ssl::context* tls) : tls_context_(tls) {}
  Connection(const Connection&) = delete;
  Connection& operator=(const Connection&) = delete;

  error_code Connect(const std::string& host, std::uint16_t port) {
    tcp::resolver resolver(ioc_);
    tcp::resolver::results_type results;
    error_code resolve_error = asio::error::would_block;
    bool resolved = false;
    resolver.async_resolve(host, std::to_string(port),
                           [&](const error_code& ec, tcp::resolver::results_type found) {
                             resolve_error = ec;
                             results = std::move(found);
                             resolved = true;
                           });
    ioc_.restart();
    ioc_.run_for(kConnectTimeout);
    if (!resolved) {
      resolver.cancel();
      ioc_.restart();
      ioc_.run();
      return asio::error::timed_out;
    }
    if (resolve_error) return resolve_error;

    if (tls_context_ != nullptr) {
      tls_.emplace(ioc_, *tls_context_);
      // SNI, and the certificate must name the host (DNS name or IP address).
      if (!IsIpAddress(host) &&
          SSL_set_tlsext_host_name(tls_->native_handle(), host.c_str()) != 1) {
        return error_code(static_cast<int>(::ERR_get_error()), asio::error::get_ssl_category());
      }
      tls_->set_verify_callback(ssl::host_name_verification(host));
    } else {
      plain_.emplace(ioc_);
    }
    error_code ec = Run(kConnectTimeout, [&](auto& stream, auto handler) {
      beast::get_lowest_layer(stream).async_connect(results, std::move(handler));
    });
    if (ec || !tls_) return ec;
    return Run(kConnectTimeout, [&](auto& stream, auto handler) {
      if constexpr (requires { stream.async_handshake(ssl::stream_base::client, handler); }) {
        stream.async_handshake(ssl::stream_base::client, std::move(handler));
      }
    });
  }

  template <class Body>
  error_code Write(http::request<Body>& request) {
    http::request_serializer<Body> serializer{request};
    while (!serializer.is_done()) {
      const error_code ec = Run(kIoTimeout, [&](auto& stream, auto handler) {
        http::async_write_some(stream, serializer, std::move(handler));
      });
      if (ec) return ec;
    }
    return {};
  }

  error_code ReadHeader(http::response_parser<http::buffer_body>& parser) {
    return Run(kIoTimeout, [&](auto& stream, auto handler) {
      http::async_read_header(stream, buffer_, parser, std::move(handler));
    });
  }

  error_code ReadSome(http::response_parser<http::buffer_body>& parser) {
    return Run(kIoTimeout, [&](auto& stream, auto handler) {
      http::async_read_some(stream, buffer_, parser, std::move(handler));
    });
  }

  std::chrono::steady_clock::time_point idle_since;

 private:
  template <class Start>
  error_code Run(std::chrono::steady_clock::duration timeout, Start&& start) {
    error_code result = asio::error::would_block;
    bool done = false;
    auto handler = [&result, &done](const error_code& ec, auto&&...) {
      result = ec;
      done = true;
    };
    if (tls_) {
      beast::get_lowest_layer(*tls_).expires_after(timeout);
      start(*tls_, handler);
    } else {
      plain_->expires_after(timeout);
      start(*plain_, handler);
    }
    ioc_.restart();
    ioc_.run();
    return done ? result : error_code(asio::error::timed_out);
  }

  ssl::context* tls_context_;
  asio::io_context ioc_{1};
  std::optional<beast::tcp_stream> plain_;
  std::optional<beast::ssl_stream<beast::tcp_stream>> tls_;
  beast::flat_buffer buffer_;
};

// A reused connection that the server had closed fails before any byte of the answer.
bool IsStale(const error_code& ec) {
  return ec == http::error::end_of_stream || ec == asio::error::eof ||
         ec == asio::error::connection_reset || ec == asio::error::broken_pipe ||
         ec == asio::error::connection_aborted;
}

}  // namespace

struct HttpClient::Pool {
  std::string host;
  std::uint16_t port = 0;
  std::string service;
  std::string unavailable;
  std::unique_ptr<ssl::context> tls_context;  // null for plain http
  std::mutex mutex;
  std::vector<std::unique_ptr<Connection>> idle;  // most recently used last

  std::unique_ptr<Connection> Take() {
    const auto now = std::chrono::steady_clock::now();
    std::lock_guard lock(mutex);
    while (!idle.empty()) {
      std::unique_ptr<Connection> connection = std::move(idle.back());
      idle.pop_back();
      if (now - connection->idle_since < kMaxIdleTime) return connection;
    }
    return nullptr;
  }

  void Give(std::unique_ptr<Connection> connection) {
    connection->idle_since = std::chrono::steady_clock::now();
    std::lock_guard lock(mutex);
    if (idle.size() < kMaxIdleConnections) idle.push_back(std::move(connection));
  }

  Error NetworkError(std::string_view step, const error_code& ec) const {
    return Error::Unavailable(unavailable, service + " " + std::string(step) + " " + host + ":" +
                                               std::to_string(port) + ": " + ec.message());
  }
};

class HttpResponse::Impl {
 public:
  Impl() {
    parser.header_limit(kMaxResponseHeaderBytes);
    parser.body_limit(boost::none);  // downloads stream; ReadAll has its own limit
  }
  Impl(const Impl&) = delete;
  Impl& operator=(const Impl&) = delete;
  ~Impl() {
    if (connection && !failed && parser.is_done() && parser.keep_alive()) {
      pool->Give(std::move(connection));
    }
  }

  Result<std::size_t> ReadSome(std::span<char> buffer) {
    if (failed) return pool->NetworkError("read", asio::error::not_connected);
    while (!buffer.empty() && !parser.is_done()) {
      auto& body = parser.get().body();
      body.data = buffer.data();
      body.size = buffer.size();
      error_code ec = connection->ReadSome(parser);
      if (ec == http::error::need_buffer) ec = {};
      const std::size_t read = buffer.size() - parser.get().body().size;
      body.data = nullptr;
      body.size = 0;
      if (ec) {
        failed = true;
        return pool->NetworkError("read", ec);
      }
      if (read > 0) return read;
    }
    return std::size_t{0};
  }

  std::shared_ptr<HttpClient::Pool> pool;
  std::unique_ptr<Connection> connection;
  http::response_parser<http::buffer_body> parser;
  bool failed = false;
};

HttpResponse::HttpResponse(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
HttpResponse::~HttpResponse() = default;

unsigned HttpResponse::status() const {
  return impl_->parser.get().result_int();
}

std::string_view HttpResponse::header(std::string_view name) const {
  const auto& fields = impl_->parser.get();
  const auto found = fields.find(beast::string_view(name.data(), name.size()));
  if (found == fields.end()) return {};
  const auto value = found->value();
  return {value.data(), value.size()};
}

Result<std::size_t> HttpResponse::ReadSome(std::span<char> buffer) {
  return impl_->ReadSome(buffer);
}

Result<std::string> HttpResponse::ReadAll(std::size_t limit) {
  std::string body;
  char chunk[kReadChunkBytes];
  while (true) {
    CAIRN_ASSIGN_OR_RETURN(const std::size_t read, impl_->ReadSome(chunk));
    if (read == 0) return body;
    if (body.size() + read > limit) {
      impl_->failed = true;
      return Error::Unavailable(
          impl_->pool->unavailable,
          impl_->pool->service + " answer body above " + std::to_string(limit) + " bytes");
    }
    body.append(chunk, read);
  }
}

Result<Endpoint> Endpoint::Parse(std::string_view url) {
  Endpoint endpoint;
  if (url.starts_with("https://")) {
    url.remove_prefix(8);
  } else if (url.starts_with("http://")) {
    endpoint.tls = false;
    endpoint.port = 80;
    url.remove_prefix(7);
  } else {
    return Error::Validation("The endpoint must start with http:// or https://");
  }
  if (url.ends_with('/')) url.remove_suffix(1);
  if (url.find_first_of("/?#@") != std::string_view::npos) {
    return Error::Validation("The endpoint must be a scheme, a host and a port, without a path");
  }
  std::string_view port;
  if (url.starts_with('[')) {
    const std::size_t close = url.find(']');
    if (close == std::string_view::npos) return Error::Validation("Bad IPv6 host in the endpoint");
    endpoint.host = std::string(url.substr(1, close - 1));
    const std::string_view rest = url.substr(close + 1);
    if (!rest.empty()) {
      if (rest.front() != ':') return Error::Validation("Bad port in the endpoint");
      port = rest.substr(1);
    }
  } else {
    const std::size_t colon = url.find(':');
    endpoint.host = std::string(url.substr(0, colon));
    if (colon != std::string_view::npos) port = url.substr(colon + 1);
  }
  if (endpoint.host.empty()) return Error::Validation("The endpoint has no host");
  if (!port.empty()) {
    unsigned value = 0;
    const auto [end, ec] = std::from_chars(port.data(), port.data() + port.size(), value);
    if (ec != std::errc() || end != port.data() + port.size() || value == 0 || value > 65535) {
      return Error::Validation("Bad port in the endpoint");
    }
    endpoint.port = static_cast<std::uint16_t>(value);
  }
  return endpoint;
}

std::string Endpoint::Authority() const {
  std::string out = host.find(':') != std::string::npos ? "[" + host + "]" : host;
  if (port != (tls ? 443 : 80)) out += ":" + std::to_string(port);
  return out;
}

std::string Endpoint::Origin() const {
  return (tls ? "https://" : "http://") + Authority();
}

HttpClient::HttpClient(std::string host, std::uint16_t port, bool tls, std::string service,
                       std::string unavailable)
    : pool_(std::make_shared<Pool>()) {
  pool_->host = std::move(host);
  pool_->port = port;
  pool_->service = std::move(service);
  pool_->unavailable = std::move(unavailable);
  if (tls) {
    pool_->tls_context = std::make_unique<ssl::context>(ssl::context::tls_client);
    pool_->tls_context->set_default_verify_paths();
    pool_->tls_context->set_verify_mode(ssl::verify_peer);
    SSL_CTX_set_min_proto_version(pool_->tls_context->native_handle(), TLS1_2_VERSION);
  }
}

HttpClient::~HttpClient() = default;

namespace {

template <class Body>
void SetHeaders(http::request<Body>& message, const HttpRequest& request) {
  for (const auto& [name, value] : request.headers) {
    message.set(beast::string_view(name.data(), name.size()), value);
  }
}

}  // namespace

Result<std::unique_ptr<HttpResponse>> HttpClient::Send(const HttpRequest& request) {
  const http::verb verb = http::string_to_verb(request.method);
  for (int attempt = 0; attempt < 2; ++attempt) {
    std::unique_ptr<Connection> connection = attempt == 0 ? pool_->Take() : nullptr;
    const bool reused = connection != nullptr;
    if (!connection) {
      connection = std::make_unique<Connection>(pool_->tls_context.get());
      const error_code ec = connection->Connect(pool_->host, pool_->port);
      if (ec) return pool_->NetworkError("connect", ec);
    }

    error_code ec;
    if (!request.body.empty() && request.body_file.empty()) {
      http::request<http::string_body> message{verb, request.target, 11, request.body};
      SetHeaders(message, request);
      message.prepare_payload();
      ec = connection->Write(message);
    } else if (request.body_file.empty()) {
      http::request<http::empty_body> message{verb, request.target, 11};
      SetHeaders(message, request);
      if (verb == http::verb::put || verb == http::verb::post) message.content_length(0);
      ec = connection->Write(message);
    } else {
      http::request<http::file_body> message{verb, request.target, 11};
      SetHeaders(message, request);
      error_code open_error;
      message.body().open(request.body_file.c_str(), beast::file_mode::scan, open_error);
      if (open_error) {
        return Error::Internal(pool_->service + " upload: cannot open " +
                               request.body_file.string() + ": " + open_error.message());
      }
      message.content_length(request.body_size);
      ec = connection->Write(message);
    }

    auto impl = std::make_unique<HttpResponse::Impl>();
    if (verb == http::verb::head) impl->parser.skip(true);
    if (!ec) ec = connection->ReadHeader(impl->parser);
    if (ec) {
      if (reused && IsStale(ec)) continue;
      return pool_->NetworkError(request.method + " " + request.target.substr(0, 200), ec);
    }
    impl->pool = pool_;
    impl->connection = std::move(connection);
    return std::make_unique<HttpResponse>(std::move(impl));
  }
  return pool_->NetworkError("send", asio::error::connection_reset);
}

}  // namespace cairn::net
