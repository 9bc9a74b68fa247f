// The layer under a subscription's WebSocket stream (Boost.Beast's NextLayer). Reads go to the
// socket. Writes go to the socket too, except while the connection's writer owns the socket
// (`queued`): then the frames Beast writes on its own (a pong, the answer to a client's close)
// are appended to the writer's outgoing bytes and the writer is woken to send them. So the
// writer can send many pre-framed messages in one write, and nothing Beast writes ever lands
// between the bytes of one of them. A teardown Beast starts (after its close frame) waits until
// the writer has sent those bytes.
#pragma once

#include <cstddef>
#include <functional>
#include <optional>
#include <string>
#include <utility>

#include <boost/asio/any_completion_handler.hpp>
#include <boost/asio/async_result.hpp>
#include <boost/asio/bind_executor.hpp>
#include <boost/asio/buffer.hpp>
#include <boost/asio/error.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/post.hpp>
#include <boost/beast/core/role.hpp>
#include <boost/beast/websocket/teardown.hpp>

namespace cairn::realtime {

class WebSocketChannel {
 public:
  using executor_type = boost::asio::ip::tcp::socket::executor_type;

  // `outgoing`: the writer's bytes; `wake`: tells the writer there is more; `limit`: past this
  // many outgoing bytes a write of Beast's fails (a client sending pings it never reads the
  // answers of cannot grow memory).
  WebSocketChannel(boost::asio::ip::tcp::socket& socket, std::string& outgoing,
                   std::function<void()> wake, std::size_t limit)
      : socket_(socket), outgoing_(outgoing), wake_(std::move(wake)), limit_(limit) {}

  executor_type get_executor() { return socket_.get_executor(); }
  boost::asio::ip::tcp::socket& socket() { return socket_; }
  // While queued, the writer alone writes to the socket.
  void set_queued(bool queued) { queued_ = queued; }

  template <class Buffers, class Token>
  auto async_read_some(const Buffers& buffers, Token&& token) {
    return socket_.async_read_some(buffers, std::forward<Token>(token));
  }

  template <class Buffers, class Token>
  auto async_write_some(const Buffers& buffers, Token&& token) {
    if (!queued_) return socket_.async_write_some(buffers, std::forward<Token>(token));
    return boost::asio::async_initiate<Token, void(boost::system::error_code, std::size_t)>(
        [this](auto handler, const Buffers& bytes) {
          boost::system::error_code error;
          std::size_t taken = boost::asio::buffer_size(bytes);
          if (outgoing_.size() + taken > limit_) {
            error = boost::asio::error::no_buffer_space;
            taken = 0;
          } else {
            for (const auto& buffer : boost::beast::buffers_range_ref(bytes)) {
              outgoing_.append(static_cast<const char*>(buffer.data()), buffer.size());
            }
            wake_();
          }
          boost::asio::post(socket_.get_executor(),
                            [handler = std::move(handler), error, taken]() mutable {
                              std::move(handler)(error, taken);
                            });
        },
        token, buffers);
  }

  // Beast closes and tears down the socket under the channel.
  friend void beast_close_socket(WebSocketChannel& channel) {
    boost::system::error_code ignored;
    channel.socket_.close(ignored);
  }
  friend void teardown(boost::beast::role_type role, WebSocketChannel& channel,
                       boost::system::error_code& error) {
    boost::beast::websocket::teardown(role, channel.socket_, error);
  }
  // While queued, the writer may still hold what Beast wrote before (its close frame): the
  // teardown waits for ReleaseTeardown.
  template <class Handler>
  friend void async_teardown(boost::beast::role_type role, WebSocketChannel& channel,
                             Handler&& handler) {
    if (!channel.queued_) {
      boost::beast::websocket::async_teardown(role, channel.socket_,
                                              std::forward<Handler>(handler));
      return;
    }
    channel.teardown_role_ = role;
    channel.teardown_.emplace(std::forward<Handler>(handler));
    channel.wake_();
  }

  // Called by the writer when it holds no more bytes (or stopped): a teardown Beast asked for
  // runs now, and Beast writes straight to the socket from then on.
  void ReleaseTeardown() {
    if (!teardown_) return;
    queued_ = false;
    Teardown handler = std::move(*teardown_);
    teardown_.reset();
    // Run on the socket's executor (a type-erased handler's own executor cannot be required
    // never to block, which the teardown's completion asks for).
    boost::beast::websocket::async_teardown(
        teardown_role_, socket_,
        boost::asio::bind_executor(
            socket_.get_executor(),
            [handler = std::move(handler)](boost::system::error_code error) mutable {
              std::move(handler)(error);
            }));
  }

 private:
  boost::asio::ip::tcp::socket& socket_;
  std::string& outgoing_;
  std::function<void()> wake_;
  std::size_t limit_;
  bool queued_ = false;
  using Teardown = boost::asio::any_completion_handler<void(boost::system::error_code)>;
  std::optional<Teardown> teardown_;
  boost::beast::role_type teardown_role_ = boost::beast::role_type::server;
};

}  // namespace cairn::realtime
