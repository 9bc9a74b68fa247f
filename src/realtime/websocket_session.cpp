#include "realtime/websocket_session.hpp"

#include <chrono>

#include <boost/asio/as_tuple.hpp>
#include <boost/asio/co_spawn.hpp>
#include <boost/asio/this_coro.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <boost/beast/core/buffers_to_string.hpp>
#include <boost/beast/websocket.hpp>

#include "realtime/limits.hpp"
#include "realtime/messages.hpp"

namespace cairn::realtime {

namespace asio = boost::asio;
namespace beast = boost::beast;
namespace websocket = beast::websocket;

namespace {
constexpr auto kUseTuple = asio::as_tuple(asio::use_awaitable);
}  // namespace

asio::awaitable<void> WebSocketSession::Run(asio::ip::tcp::socket& socket,
                                            beast::flat_buffer& buffer,
                                            const http::BeastRequest& request) {
  // Keeps this object alive while the loops run (the hub only holds weak references).
  auto self = std::static_pointer_cast<WebSocketSession>(shared_from_this());
  // Beast writes through the channel straight to the socket until the writer starts; from then
  // on what it writes joins the writer's bytes (websocket_channel.hpp).
  WebSocketChannel channel(
      socket, outgoing_, [this] { Wake(); }, 2 * kMaxQueuedBytes);
  Stream stream(channel);
  stream.read_message_max(kMaxClientFrameBytes);
  stream.set_option(websocket::stream_base::timeout::suggested(beast::role_type::server));
  // Clients wait for the 101 before they send frames, so no bytes past the request are pending.
  auto [accept_error] = co_await stream.async_accept(request, kUseTuple);
  if (accept_error) co_return;
  // The request's read buffer is not read again: its memory goes back for the connection's life.
  buffer.clear();
  buffer.shrink_to_fit();
  Start(co_await asio::this_coro::executor, socket);
  asio::co_spawn(socket.get_executor(), ReadLoop(stream), [self](const std::exception_ptr&) {
    self->reader_done_ = true;
    self->Wake();
  });
  stream_ = &stream;
  channel_ = &channel;
  channel.set_queued(true);
  co_await WriteLoop();
  channel.ReleaseTeardown();  // the writer is gone: nothing more is held back
  channel.set_queued(false);
  // The writer ended (closed, or the connection failed): end the reader too before the stream
  // goes away with this frame.
  if (!reader_done_) {
    beast::error_code ignored;
    socket.cancel(ignored);
    while (!reader_done_) {
      co_await WaitUntil(std::chrono::steady_clock::now() + std::chrono::milliseconds(10));
    }
  }
}

asio::awaitable<void> WebSocketSession::ReadLoop(Stream& stream) {
  beast::flat_buffer incoming;
  while (true) {
    auto [error, bytes] = co_await stream.async_read(incoming, kUseTuple);
    if (error) break;  // closed by the client, too big (1009 sent by Beast), or cancelled
    const std::string text = beast::buffers_to_string(incoming.data());
    incoming.consume(incoming.size());
    if (stream.got_text() && IsPing(text)) {
      EnqueueMessage(PongMessage());
    }
  }
}

asio::awaitable<void> WebSocketSession::SendClose(std::uint16_t code, const std::string& reason) {
  // Every framed byte is out (WriteLoop): Beast writes the close itself, and waits for the
  // answer, so its frames go straight to the socket again.
  channel_->set_queued(false);
  // The outcome does not matter: the connection ends either way.
  co_await stream_->async_close(
      websocket::close_reason(static_cast<websocket::close_code>(code), reason), kUseTuple);
}

}  // namespace cairn::realtime
