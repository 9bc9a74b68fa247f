#include "realtime/sse_session.hpp"

#include <array>
#include <chrono>

#include <boost/asio/as_tuple.hpp>
#include <boost/asio/co_spawn.hpp>
#include <boost/asio/this_coro.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <boost/asio/write.hpp>

#include "common/json.hpp"
#include "realtime/limits.hpp"
#include "realtime/messages.hpp"

namespace cairn::realtime {

namespace asio = boost::asio;

namespace {

constexpr auto kUseTuple = asio::as_tuple(asio::use_awaitable);

// No length and no chunks: the stream ends when the connection does.
constexpr std::string_view kHeader =
    "HTTP/1.1 200 OK\r\n"
    "Content-Type: text/event-stream\r\n"
    "Cache-Control: no-store\r\n"
    "X-Content-Type-Options: nosniff\r\n"
    "X-Accel-Buffering: no\r\n"
    "Connection: close\r\n\r\n";

}  // namespace

asio::awaitable<void> SseSession::Run(asio::ip::tcp::socket& socket,
                                      boost::beast::flat_buffer& buffer,
                                      const http::BeastRequest& /*request*/) {
  auto self = std::static_pointer_cast<SseSession>(shared_from_this());
  auto [header_error, header_bytes] =
      co_await asio::async_write(socket, asio::buffer(kHeader), kUseTuple);
  if (header_error) co_return;
  // The request's read buffer is not read again: its memory goes back for the connection's life.
  buffer.clear();
  buffer.shrink_to_fit();
  Start(co_await asio::this_coro::executor, socket);
  asio::co_spawn(socket.get_executor(), ReadLoop(socket), [self](const std::exception_ptr&) {
    self->reader_done_ = true;
    self->Wake();
  });
  socket_ = &socket;
  co_await WriteLoop();
  boost::system::error_code ignored;
  socket.shutdown(asio::ip::tcp::socket::shutdown_send, ignored);
  if (!reader_done_) {
    socket.cancel(ignored);
    while (!reader_done_) {
      co_await WaitUntil(std::chrono::steady_clock::now() + std::chrono::milliseconds(10));
    }
  }
}

asio::awaitable<void> SseSession::ReadLoop(asio::ip::tcp::socket& socket) {
  // The client says nothing after its request; reading only tells when it leaves. Whatever it
  // sends is dropped, a small buffer at a time.
  std::array<char, 512> ignored{};
  while (true) {
    auto [error, bytes] = co_await socket.async_read_some(asio::buffer(ignored), kUseTuple);
    if (error) co_return;
  }
}

asio::awaitable<void> SseSession::SendClose(std::uint16_t code, const std::string& reason) {
  std::string message = R"({"type":"close","code":)" + std::to_string(code) + R"(,"reason":)";
  json::AppendString(message, reason);
  message.push_back('}');
  std::string event;
  AppendFrame(Transport::kEventStream, message, event);
  co_await asio::async_write(*socket_, asio::buffer(event), kUseTuple);
}

}  // namespace cairn::realtime
