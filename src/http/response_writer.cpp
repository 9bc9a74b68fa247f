#include "http/response_writer.hpp"

#include <vector>

#include <boost/asio/as_tuple.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <boost/beast/http.hpp>

#include "common/log.hpp"
#include "http/body_stream.hpp"
#include "http/limits.hpp"

namespace cairn::http {
namespace {

namespace bhttp = boost::beast::http;
constexpr auto kUseTuple = boost::asio::as_tuple(boost::asio::use_awaitable);

bhttp::response_header<> HeaderOf(Response& response, const Request& request, unsigned version) {
  bhttp::response_header<> header;
  header.version(version);
  header.result(static_cast<bhttp::status>(response.status));
  if (!response.content_type.empty()) {
    header.set(bhttp::field::content_type, response.content_type);
  }
  header.set("X-Request-Id", request.request_id);
  for (auto& [name, value] : response.headers) header.insert(name, value);
  return header;
}

template <class Message>
boost::asio::awaitable<bool> WriteWhole(Connection& connection, Message& message) {
  connection.ExpiresAfter(kWriteTimeout);
  auto [ec, written] = co_await bhttp::async_write(connection.socket, message, kUseTuple);
  co_return !ec;
}

boost::asio::awaitable<bool> WriteStream(Connection& connection, bhttp::response_header<> header,
                                         bool keep_alive, Response& response,
                                         const Request& request, WorkerPool& workers) {
  bhttp::response<bhttp::buffer_body> out{std::move(header)};
  out.keep_alive(keep_alive);
  if (response.stream_length) {
    out.content_length(*response.stream_length);
  } else {
    out.chunked(true);
  }
  out.body().data = nullptr;
  out.body().more = true;
  bhttp::response_serializer<bhttp::buffer_body> serializer{out};
  connection.ExpiresAfter(kWriteTimeout);
  auto [header_ec, header_bytes] =
      co_await bhttp::async_write_header(connection.socket, serializer, kUseTuple);
  if (header_ec) co_return false;

  std::vector<char> chunk(kStreamChunkBytes);
  BodySource& source = *response.stream;
  std::uint64_t sent = 0;
  for (;;) {
    connection.NoDeadline();
    Result<std::size_t> read = co_await workers.Run([&]() -> Result<std::size_t> {
      try {
        return source.Read(chunk);
      } catch (const std::exception& e) {
        return Error::Internal(e.what());
      }
    });
    if (!read.ok()) {
      // The status line is gone already: all that is left is to cut the body short.
      log::Error("request " + request.request_id + ": streamed body failed after " +
                 std::to_string(sent) + " bytes: " + read.error().detail);
      co_return false;
    }
    const std::size_t n = *read;
    sent += n;
    if (n == 0 && response.stream_length && sent != *response.stream_length) {
      log::Error("request " + request.request_id + ": streamed body ended at " +
                 std::to_string(sent) + " of " + std::to_string(*response.stream_length) +
                 " bytes");
      co_return false;
    }
    out.body().data = n > 0 ? chunk.data() : nullptr;
    out.body().size = n;
    out.body().more = n > 0;
    connection.ExpiresAfter(kWriteTimeout);
    auto [ec, written] = co_await bhttp::async_write(connection.socket, serializer, kUseTuple);
    if (ec == bhttp::error::need_buffer) ec = {};
    if (ec) co_return false;
    if (n == 0) co_return serializer.is_done();
  }
}

}  // namespace

boost::asio::awaitable<bool> WriteResponse(Connection& connection, Response response,
                                           const Request& request, unsigned version,
                                           bool keep_alive, WorkerPool& workers) {
  auto header = HeaderOf(response, request, version);
  bool written = false;
  if (request.method == "HEAD") {
    // The headers of the GET answer, without its body (RFC 9110 §9.3.2).
    bhttp::response<bhttp::empty_body> out{std::move(header)};
    out.keep_alive(keep_alive);
    if (!response.stream) {
      out.content_length(response.body.size());
    } else if (response.stream_length) {
      out.content_length(*response.stream_length);
    }
    written = co_await WriteWhole(connection, out);
  } else if (response.stream) {
    written =
        co_await WriteStream(connection, std::move(header), keep_alive, response, request, workers);
  } else {
    bhttp::response<bhttp::string_body> out{std::move(header), std::move(response.body)};
    out.keep_alive(keep_alive);
    out.prepare_payload();
    written = co_await WriteWhole(connection, out);
  }
  co_return written&& keep_alive;
}

}  // namespace cairn::http
