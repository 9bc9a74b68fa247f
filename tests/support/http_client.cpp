#include "http_client.hpp"

#include <chrono>
#include <map>
#include <mutex>
#include <stdexcept>

#include <sys/socket.h>
#include <sys/time.h>

#include <boost/asio/connect.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/read.hpp>
#include <boost/asio/write.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/http.hpp>
#include <boost/json/parse.hpp>

namespace cairn::test {
namespace asio = boost::asio;
namespace beast = boost::beast;
namespace bhttp = beast::http;
using tcp = asio::ip::tcp;

namespace {

HttpResult FromBeast(const bhttp::response<bhttp::string_body>& response) {
  HttpResult result;
  result.status = static_cast<int>(response.result_int());
  for (const auto& field : response) {
    std::string name(field.name_string());
    for (char& c : name) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    result.headers[name] = std::string(field.value());
    if (name == "set-cookie") result.set_cookies.emplace_back(field.value());
  }
  result.body = response.body();
  return result;
}

}  // namespace

std::string HttpResult::Header(const std::string& name) const {
  std::string lower = name;
  for (char& c : lower) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  auto it = headers.find(lower);
  return it == headers.end() ? std::string() : it->second;
}

std::optional<std::string> HttpResult::SetCookie(const std::string& name) const {
  for (const std::string& cookie : set_cookies) {
    if (cookie.starts_with(name + "=")) return cookie;
  }
  return std::nullopt;
}

boost::json::value HttpResult::Json() const {
  boost::system::error_code ec;
  auto value = boost::json::parse(body, ec);
  if (ec) return nullptr;
  return value;
}

struct HttpClient::Impl {
  asio::io_context ioc;
  beast::tcp_stream stream{ioc};
  beast::flat_buffer buffer;
  std::string host;
  std::uint16_t port;
  bool connected = false;

  void Connect() {
    tcp::endpoint endpoint(asio::ip::make_address(host), port);
    stream.expires_after(std::chrono::seconds(30));
    stream.connect(endpoint);
    connected = true;
    buffer.clear();
  }
};

HttpClient::HttpClient(std::uint16_t port, std::string host) : impl_(new Impl) {
  impl_->host = std::move(host);
  impl_->port = port;
}

HttpClient::~HttpClient() {
  beast::error_code ignored;
  impl_->stream.socket().close(ignored);
  delete impl_;
}

HttpResult HttpClient::Request(const std::string& method, const std::string& target,
                               const std::string& body, const Headers& headers) {
  for (int attempt = 0; attempt < 2; ++attempt) {
    if (!impl_->connected) impl_->Connect();
    bhttp::request<bhttp::string_body> request{bhttp::string_to_verb(method), target, 11};
    if (request.method() == bhttp::verb::unknown) request.method_string(method);
    request.set(bhttp::field::host, impl_->host);
    for (const auto& [name, value] : headers) request.set(name, value);
    request.body() = body;
    request.prepare_payload();
    beast::error_code ec;
    impl_->stream.expires_after(std::chrono::seconds(30));
    bhttp::write(impl_->stream, request, ec);
    // A server may answer before it has read the whole body (413) and stop reading: a failed
    // write is not the end, the answer may be waiting.
    bhttp::response_parser<bhttp::string_body> parser;
    parser.body_limit(64 * 1024 * 1024);
    parser.skip(method == "HEAD");  // the answer to HEAD has headers only
    bhttp::read(impl_->stream, impl_->buffer, parser, ec);
    if (ec) {
      // The server may close an idle keep-alive connection: reconnect once.
      impl_->connected = false;
      beast::error_code ignored;
      impl_->stream.socket().close(ignored);
      if (attempt == 0) continue;
      throw std::runtime_error("HTTP " + method + " " + target + " failed: " + ec.message());
    }
    HttpResult result = FromBeast(parser.get());
    if (!parser.get().keep_alive()) {
      impl_->connected = false;
      beast::error_code ignored;
      impl_->stream.socket().close(ignored);
    }
    if (auto observer = ObserverOf(impl_->port)) observer(method, target, result);
    return result;
  }
  throw std::runtime_error("unreachable");
}

namespace {

std::mutex observers_mutex;
std::map<std::uint16_t, ResponseObserver>& Observers() {
  static std::map<std::uint16_t, ResponseObserver> observers;
  return observers;
}

}  // namespace

void SetResponseObserver(std::uint16_t port, ResponseObserver observer) {
  std::lock_guard lock(observers_mutex);
  if (observer) {
    Observers()[port] = std::move(observer);
  } else {
    Observers().erase(port);
  }
}

ResponseObserver ObserverOf(std::uint16_t port) {
  std::lock_guard lock(observers_mutex);
  const auto found = Observers().find(port);
  return found == Observers().end() ? ResponseObserver() : found->second;
}

HttpResult HttpClient::PostJson(const std::string& target, const std::string& json,
                                const Headers& headers) {
  Headers all = headers;
  all.emplace_back("Content-Type", "application/json");
  return Request("POST", target, json, all);
}

std::string SendRaw(std::uint16_t port, const std::string& bytes, int timeout_ms,
                    bool close_after_send) {
  asio::io_context ioc;
  beast::tcp_stream stream(ioc);
  stream.expires_after(std::chrono::milliseconds(timeout_ms));
  stream.connect(tcp::endpoint(asio::ip::make_address("127.0.0.1"), port));
  // Synchronous reads ignore the stream's expiry: bound them with a socket receive timeout.
  timeval receive_timeout{timeout_ms / 1000, (timeout_ms % 1000) * 1000};
  setsockopt(stream.socket().native_handle(), SOL_SOCKET, SO_RCVTIMEO, &receive_timeout,
             sizeof receive_timeout);
  beast::error_code ec;
  asio::write(stream, asio::buffer(bytes), ec);
  if (close_after_send) stream.socket().shutdown(tcp::socket::shutdown_send, ec);
  std::string received;
  char chunk[16384];
  for (;;) {
    std::size_t n = stream.read_some(asio::buffer(chunk), ec);
    received.append(chunk, n);
    if (ec) break;
  }
  return received;
}

std::vector<HttpResult> ParseResponses(const std::string& raw) {
  std::vector<HttpResult> results;
  std::size_t offset = 0;
  while (offset < raw.size()) {
    bhttp::response_parser<bhttp::string_body> parser;
    parser.eager(true);
    beast::error_code ec;
    std::size_t used = 0;
    while (!parser.is_done()) {
      const std::size_t n =
          parser.put(asio::buffer(raw.data() + offset + used, raw.size() - offset - used), ec);
      if (ec || n == 0) break;
      used += n;
    }
    if (!parser.is_done()) break;
    results.push_back(FromBeast(parser.get()));
    offset += used;
  }
  return results;
}

}  // namespace cairn::test
